package executorapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/testenv"
)

// Pause and resume through the real executor binary (DESIGN.md §10): a
// script posts to a loopback stub, asks for approval, and on resume posts
// again, on another replica than the one that suspended it.

const continuationKey = "the-continuation-key-of-the-resume-drills-0123"

// orderStub counts POSTs and answers each with its number.
type orderStub struct {
	*httptest.Server
	posts atomic.Int64
}

func newOrderStub(t *testing.T) *orderStub {
	s := &orderStub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		if r.Method == http.MethodPost {
			n = int(s.posts.Add(1))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"id":"order-%d","n":%d}`, n, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// approvalEnv is the executor's environment for approvals: the key, a
// policy granting tenant acme api (the stub) and approval.
func approvalEnv(t *testing.T, env map[string]string, stub string) map[string]string {
	t.Helper()
	policy := fmt.Sprintf(`
tenants:
  acme:
    capabilities: [api, approval]
connectors:
  orders:
    baseURL: %s
    methods: [POST]
    pathPrefixes: [/orders]
    tenants: [acme]
`, stub)
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	env["CAPABILITIES_POLICY_FILE"] = file
	env["CONTINUATION_KEY"] = continuationKey
	return env
}

// refundSource posts, asks for approval, posts again; after that it
// busy-waits wait ms (a resume long enough to be cut short).
func refundSource(wait int) string {
	return fmt.Sprintf(`
const before = Date.now()
console.log('before ' + before)
const order = api.post('orders', '/orders', {amount: 10}).json
const answer = approval.request({message: 'Refund ' + order.id + '?', data: {order: order.id}})
const confirmed = api.post('orders', '/orders/confirm', {approved: answer.approved}).json
const end = Date.now() + %d; while (Date.now() < end) {}
return JSON.stringify({before: before, order: order.id, approved: answer.approved, confirm: confirmed.n})`, wait)
}

func refundJob(id string, wait int) *flowjob.Job {
	j := hostJob(id, "acme", "session-"+id, refundSource(wait), flowjob.CapabilityAPI, flowjob.CapabilityApproval)
	return j
}

// tamper changes the first character of token's signature.
func tamper(token string) string {
	payload, sig, _ := strings.Cut(token, ".")
	c := "A"
	if sig[0] == 'A' {
		c = "B"
	}
	return payload + "." + c + sig[1:]
}

// provisioned creates the executor's streams, so that jobs published
// before a replica is up wait for it.
func provisioned(t *testing.T, nc *nats.Conn, cfg consumer.Config) {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	provision(t, js, cfg, 20*time.Second)
}

func runJob(t *testing.T, c *flowclient.Client, j *flowjob.Job) *flowjob.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.Run(ctx, j)
	if err != nil {
		t.Fatalf("job %s: %v", j.ID, err)
	}
	return res
}

func suspend(t *testing.T, c *flowclient.Client, j *flowjob.Job) *flowjob.Result {
	t.Helper()
	r := runJob(t, c, j)
	if r.Status != flowjob.StatusSuspended || r.Continuation == "" || r.Directive.Type != flowjob.DirectiveSuspend {
		t.Fatalf("job %s: %s %+v, want suspended with a continuation", j.ID, r.Status, r.Error)
	}
	return r
}

func TestResumeOnAnotherReplica(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		stub := newOrderStub(t)
		env, cfg := names(t, url)
		env = approvalEnv(t, env, stub.URL)
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		c := newClient(t, nc, cfg)
		provisioned(t, nc, cfg)

		first := startBinary(t, env)
		job := refundJob("refund", 0)
		s := suspend(t, c, job)
		if want := `{"message":"Refund order-1?","data":{"order":"order-1"}}`; string(s.Directive.Request) != want {
			t.Errorf("request %s, want %s", s.Directive.Request, want)
		}
		if len(s.Variables) != 0 || s.Error != nil {
			t.Errorf("a suspended result sets nothing: %+v", s)
		}
		if len(s.Logs) != 1 || !strings.HasPrefix(s.Logs[0].Message, "before ") {
			t.Fatalf("logs %+v", s.Logs)
		}
		before := strings.TrimPrefix(s.Logs[0].Message, "before ")
		_ = first.cmd.Process.Signal(syscall.SIGKILL)
		first.wait(t, 10*time.Second)

		startBinary(t, env)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		time.Sleep(20 * time.Millisecond) // Date.now() moves on
		done, err := c.Resume(ctx, job, "refund-approved", s.Continuation, map[string]bool{"approved": true})
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != flowjob.StatusSucceeded {
			t.Fatalf("resume: %s %+v", done.Status, done.Error)
		}
		var out struct {
			Before   int64  `json:"before"`
			Order    string `json:"order"`
			Approved bool   `json:"approved"`
			Confirm  int    `json:"confirm"`
		}
		if err := json.Unmarshal([]byte(done.Variables["out"]), &out); err != nil {
			t.Fatalf("output %q: %v", done.Variables["out"], err)
		}
		if fmt.Sprint(out.Before) != before || out.Order != "order-1" || !out.Approved || out.Confirm != 2 {
			t.Errorf("resumed output %+v: want Date.now() %s as before the pause, order-1 replayed, then the second POST", out, before)
		}
		if n := stub.posts.Load(); n != 2 {
			t.Errorf("the stub saw %d POSTs, want 2 (the first is not repeated)", n)
		}
	})
}

// TestResumeRefusals: a tampered token, one for another step, an expired
// one and a changed source each get their code; two resumes of one token
// racing on two replicas give one success and one CONTINUATION_USED.
func TestResumeRefusals(t *testing.T) {
	url := testenv.MachineNATSURL(t)
	stub := newOrderStub(t)
	env, cfg := names(t, url)
	env = approvalEnv(t, env, stub.URL)
	env["SANDBOX_MAX_PARALLEL"] = "1"
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := newClient(t, nc, cfg)
	provisioned(t, nc, cfg)
	startBinary(t, env)
	startBinary(t, env)

	job := refundJob("to-refuse", 500)
	token := suspend(t, c, job).Continuation
	signer, err := continuation.NewSigner([]byte(continuationKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := signer.Verify(token, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	expired := claims
	expired.Expires = time.Now().Add(-time.Minute).Unix()
	other := refundJob("other-step", 0)
	otherToken := suspend(t, c, other).Continuation

	cases := []struct {
		name string
		job  *flowjob.Job
		code string
	}{
		{"tampered", job.ResumeWith("r-tampered", tamper(token), nil), flowjob.CodeInvalidContinuation},
		{"forged claims", job.ResumeWith("r-forged", strings.Split(otherToken, ".")[0]+"."+strings.Split(token, ".")[1], nil), flowjob.CodeInvalidContinuation},
		{"another job's token", job.ResumeWith("r-other", otherToken, nil), flowjob.CodeInvalidContinuation},
		{"expired", job.ResumeWith("r-expired", signer.Sign(expired), nil), flowjob.CodeInvalidContinuation},
		{"changed source", func() *flowjob.Job {
			j := job.ResumeWith("r-changed", token, nil)
			j.Action.Source += "\n// changed"
			return j
		}(), flowjob.CodeContinuationSourceChange},
	}
	for _, tc := range cases {
		r := runJob(t, c, tc.job)
		if r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%s: %s %+v, want %s", tc.name, r.Status, r.Error, tc.code)
		}
	}

	// Two resumes at once, one per replica (each runs one job at a time).
	var wg sync.WaitGroup
	results := make([]*flowjob.Result, 2)
	for i := range results {
		wg.Go(func() {
			results[i] = runJob(t, c, job.ResumeWith(fmt.Sprintf("r-race-%d", i), token, json.RawMessage(`{"approved":true}`)))
		})
	}
	wg.Wait()
	codes := map[string]int{}
	for _, r := range results {
		if r.Error != nil {
			codes[r.Error.Code]++
		} else {
			codes[string(r.Status)]++
		}
	}
	if codes[string(flowjob.StatusSucceeded)] != 1 || codes[flowjob.CodeContinuationUsed] != 1 {
		t.Errorf("two racing resumes: %v, want one succeeded and one CONTINUATION_USED", codes)
	}
}

// TestResumeHasOneResultThroughFailures: a resume job cut short by a
// SIGKILL, then a broker restart, is redelivered, claims its continuation
// again (it is the same job) and ends with exactly one result.
func TestResumeHasOneResultThroughFailures(t *testing.T) {
	broker := testenv.StartNATSProcess(t, testenv.NATSModule, testenv.NATSProcessOptions{})
	url := broker.URL()
	stub := newOrderStub(t)
	env, cfg := names(t, url)
	env = approvalEnv(t, env, stub.URL)
	env["SANDBOX_TIMEOUT_MS"] = "8000"
	env["ACK_WAIT"] = "10s"
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := newClient(t, nc, cfg)
	js, _ := jetstream.New(nc)
	provisioned(t, nc, cfg)

	a := startBinary(t, env)
	job := refundJob("slow-refund", 3000)
	token := suspend(t, c, job).Continuation
	resume := job.ResumeWith("slow-refund-approved", token, json.RawMessage(`{"approved":true}`))
	if _, err := c.Publish(context.Background(), resume, ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the resume job to run", func() bool { return stub.posts.Load() == 2 })
	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	a.wait(t, 10*time.Second)
	broker.Stop()
	broker.Start()

	startBinary(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	done, err := c.Await(ctx, resume.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != flowjob.StatusSucceeded || done.Attempt < 2 {
		t.Errorf("resume after a SIGKILL and a broker restart: %s attempt %d %+v", done.Status, done.Attempt, done.Error)
	}
	waitFor(t, 30*time.Second, "JOBS to empty", func() bool { return streamState(t, js, cfg.JobsStream).Msgs == 0 })
	counts := resultCounts(t, js, cfg)
	if counts[resume.ID] != 1 || counts[job.ID] != 1 || len(counts) != 2 {
		t.Errorf("results %v, want exactly one per job", counts)
	}
	if n := stub.posts.Load(); n != 3 {
		// The first POST is replayed from the journal; the second ran live
		// in both runs of the resume job (a host call is at least once
		// past the last suspension).
		t.Errorf("the stub saw %d POSTs, want 3", n)
	}
}
