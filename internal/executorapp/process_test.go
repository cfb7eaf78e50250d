package executorapp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/testenv"
)

var (
	binDir  string
	binOnce sync.Once
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "executorapp-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "removing the test folder:", err)
	}
	os.Exit(code)
}

// executorBinary builds cmd/executor once for the package's tests.
func executorBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "executor")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/executor")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building cmd/executor: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a running executor binary.
type proc struct {
	cmd    *exec.Cmd
	stdout *bytes.Buffer
	stderr *testenv.SyncBuffer
	done   chan struct{}
	err    error
}

func startBinary(t testing.TB, env map[string]string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(executorBinary(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &proc{cmd: cmd, stdout: &bytes.Buffer{}, stderr: &testenv.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the executor: %v", err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("executor pid %d stderr:\n%s", cmd.Process.Pid, p.stderr.String())
		}
	})
	return p
}

func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("the executor did not exit within %s", d)
		return -1
	}
}

// names are per-test stream names and subjects (the machine's broker is
// shared), with cleanup.
func names(t *testing.T, url string) (map[string]string, consumer.Config) {
	t.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	id := strings.ToUpper(hex.EncodeToString(b[:]))
	env := map[string]string{
		"NATS_URL": url, "JOBS_STREAM": "T_JOBS_" + id, "RESULTS_STREAM": "T_RESULTS_" + id,
		"DLQ_STREAM": "T_DLQ_" + id, "CONSUMER_NAME": "T_EXEC_" + id, "SUBJECT_PREFIX": "fstest." + id,
		"ADMIN_ADDR": "127.0.0.1:0", "LOG_LEVEL": "debug",
	}
	cfg, err := ConfigFromEnv(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	testenv.DeleteStreamsAtCleanup(t, url, cfg.Consumer().Streams()...)
	return env, cfg.Consumer()
}

// provision creates cfg's streams, buckets and consumer as a replica does
// at start (consumer.ProvisionWithRetry): a shared broker can answer a
// create with a passing server-side failure ("error creating store for
// stream"; nats-server logs the cause only in its own log), which a drill
// of something else must ride over as the executor does.
func provision(t testing.TB, js jetstream.JetStream, cfg consumer.Config, d time.Duration) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	if _, err := consumer.ProvisionWithRetry(testenv.Context(t, d), js, cfg, consumer.ApplyConfig, log, nil); err != nil {
		t.Fatal(err)
	}
}

func eachBroker(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("embedded", func(t *testing.T) { f(t, testenv.EmbeddedNATS(t).ClientURL()) })
	t.Run("machine", func(t *testing.T) { f(t, testenv.MachineNATSURL(t)) })
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func streamState(t *testing.T, js jetstream.JetStream, name string) jetstream.StreamState {
	t.Helper()
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatalf("stream %s info: %v", name, err)
	}
	return info.State
}

// resultCounts reads the RESULTS stream and counts results per job id.
func resultCounts(t *testing.T, js jetstream.JetStream, cfg consumer.Config) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	total := int(streamState(t, js, cfg.ResultsStream).Msgs)
	c, err := js.OrderedConsumer(ctx, cfg.ResultsStream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for read := 0; read < total; {
		batch, err := c.Fetch(total-read, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			var r flowjob.Result
			if err := json.Unmarshal(m.Data(), &r); err != nil {
				t.Fatal(err)
			}
			counts[r.JobID]++
			n++
		}
		if n == 0 {
			t.Fatalf("read %d of %d results", read, total)
		}
		read += n
	}
	return counts
}

func slowJob(id string, ms int) *flowjob.Job {
	return &flowjob.Job{
		ID: id, SessionID: "s-" + id, FlowID: "f", BlockID: "b", Context: flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         fmt.Sprintf("const end = Date.now() + %d; while (Date.now() < end) {} return 'done'", ms),
			InputVariables: []flowjob.InputVariable{},
			OutputVariable: "out",
			OnError:        flowjob.OnErrorContinue,
		},
	}
}

func newClient(t *testing.T, nc *nats.Conn, cfg consumer.Config) *flowclient.Client {
	t.Helper()
	c, err := flowclient.NewClient(nc, flowclient.WithSubjectPrefix(cfg.SubjectPrefix), flowclient.WithResultsStream(cfg.ResultsStream))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDemoRunsEndToEnd runs the real binary as the README says, on a bare
// machine (embedded broker), and checks the printed result events.
func TestDemoRunsEndToEnd(t *testing.T) {
	p := startBinary(t, map[string]string{"EXECUTOR_DATA_DIR": t.TempDir(), "ADMIN_ADDR": "127.0.0.1:0"}, "-demo-only")
	if code := p.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr.String())
	}
	want := map[string]struct {
		status    flowjob.Status
		directive flowjob.DirectiveType
		code      string
	}{
		"01-success-cpf":     {flowjob.StatusSucceeded, flowjob.DirectiveContinue, ""},
		"02-success-nome":    {flowjob.StatusSucceeded, flowjob.DirectiveContinue, ""},
		"03-error-continue":  {flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeScriptError},
		"04-error-handoff":   {flowjob.StatusFailed, flowjob.DirectiveFreezeHandoff, flowjob.CodeScriptError},
		"05-error-redirect":  {flowjob.StatusFailed, flowjob.DirectiveRedirect, flowjob.CodeScriptError},
		"06-tool-throw":      {flowjob.StatusFailed, flowjob.DirectiveThrow, flowjob.CodeScriptError},
		"07-timeout":         {flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeTimeout},
		"08-syntax-error":    {flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeSyntaxError},
		"09-deadline-passed": {flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeDeadlineExceeded},
		"10-invalid-onerror": {flowjob.StatusFailed, flowjob.DirectiveFreezeHandoff, flowjob.CodeInvalidJob},
		"11-api-connector":   {flowjob.StatusSucceeded, flowjob.DirectiveContinue, ""},
	}
	sc := bufio.NewScanner(p.stdout)
	seen := 0
	for sc.Scan() {
		var r flowjob.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line is not a result event: %q", sc.Text())
		}
		name := r.JobID[:strings.LastIndex(r.JobID, "-")]
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected result for %s", r.JobID)
			continue
		}
		seen++
		code := ""
		if r.Error != nil {
			code = r.Error.Code
		}
		if r.Status != w.status || r.Directive.Type != w.directive || code != w.code {
			t.Errorf("%s: %s %s %q, want %s %s %q", name, r.Status, r.Directive.Type, code, w.status, w.directive, w.code)
		}
	}
	if seen != len(want) {
		t.Errorf("printed %d result events, want %d; stdout:\n%s", seen, len(want), p.stdout.String())
	}
}

// TestKillNineLosesNoJob: an executor killed with SIGKILL while jobs are in
// flight loses none: the next executor runs them, one result per job.
func TestKillNineLosesNoJob(t *testing.T) {
	const n = 120
	eachBroker(t, func(t *testing.T, url string) {
		env, cfg := names(t, url)
		env["SANDBOX_MAX_PARALLEL"] = "4"
		env["SANDBOX_TIMEOUT_MS"] = "1000"
		env["ACK_WAIT"] = "2s" // jobs of the killed executor come back quickly
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		first := startBinary(t, env)
		client := newClient(t, nc, cfg)
		waitFor(t, 30*time.Second, "the streams", func() bool {
			_, err := js.Stream(context.Background(), cfg.ResultsStream)
			return err == nil
		})
		for i := range n {
			if _, err := client.Publish(context.Background(), slowJob(fmt.Sprintf("kill-%03d", i), 40), ""); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, 60*time.Second, "the first results", func() bool { return streamState(t, js, cfg.ResultsStream).Msgs >= 20 })
		if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		first.wait(t, 10*time.Second)
		if got := streamState(t, js, cfg.ResultsStream).Msgs; got >= n {
			t.Fatalf("all %d jobs finished before the kill; make them slower", got)
		}
		startBinary(t, env)
		waitFor(t, 90*time.Second, "every result", func() bool { return streamState(t, js, cfg.ResultsStream).Msgs >= n })
		waitFor(t, 15*time.Second, "JOBS to empty", func() bool { return streamState(t, js, cfg.JobsStream).Msgs == 0 })
		counts := resultCounts(t, js, cfg)
		for i := range n {
			id := fmt.Sprintf("kill-%03d", i)
			if counts[id] != 1 {
				t.Errorf("job %s has %d results, want 1", id, counts[id])
			}
		}
	})
}

// TestSIGTERMFinishesInFlightJobs: SIGTERM with jobs in flight lets them
// finish and acks them; the executor exits 0 and nothing is redelivered.
func TestSIGTERMFinishesInFlightJobs(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		env, cfg := names(t, url)
		env["SANDBOX_MAX_PARALLEL"] = "3"
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		p := startBinary(t, env)
		waitFor(t, 30*time.Second, "the consumer", func() bool {
			_, err := js.Consumer(context.Background(), cfg.JobsStream, cfg.Consumer)
			return err == nil
		})
		client := newClient(t, nc, cfg)
		for i := range 3 {
			if _, err := client.Publish(context.Background(), slowJob(fmt.Sprintf("term-%d", i), 1500), ""); err != nil {
				t.Fatal(err)
			}
		}
		cons, _ := js.Consumer(context.Background(), cfg.JobsStream, cfg.Consumer)
		waitFor(t, 10*time.Second, "3 jobs in flight", func() bool {
			info, err := cons.Info(context.Background())
			return err == nil && info.NumAckPending == 3
		})
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Errorf("exit code %d after SIGTERM, want 0", code)
		}
		if got := streamState(t, js, cfg.ResultsStream).Msgs; got != 3 {
			t.Errorf("%d results after SIGTERM, want 3", got)
		}
		info, err := cons.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending != 0 || info.NumRedelivered != 0 || streamState(t, js, cfg.JobsStream).Msgs != 0 {
			t.Errorf("after SIGTERM: %d pending acks, %d redelivered, want 0 and 0", info.NumAckPending, info.NumRedelivered)
		}
	})
}
