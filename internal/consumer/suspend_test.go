package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// countingHosts grants every job what it asks for and answers each api
// call with its number.
type countingHosts struct{ calls atomic.Int64 }

func (h *countingHosts) HostFor(job *flowjob.Job) ([]string, sandbox.Host) {
	return job.Capabilities, h
}

func (h *countingHosts) Call(_ context.Context, c sandbox.HostCall) sandbox.HostReply {
	return sandbox.HostReply{Value: json.RawMessage(fmt.Sprintf(`{"n":%d}`, h.calls.Add(1)))}
}

var testKey = []byte("a-continuation-key-for-the-tests-0123456789")

const approvalSource = `
const t = Date.now()
const first = api.post('crm', '/refunds', {amount: 10})
const answer = approval.request({message: 'Refund 10?', data: {amount: 10}})
const second = api.post('crm', '/refunds/confirm', {ok: answer.ok})
return [t, first.n, answer.ok, second.n].join('|')`

func approvalJob(id string) *flowjob.Job {
	j := newJob(id, approvalSource)
	j.SessionID, j.TenantID = "session-approval", "acme"
	j.Capabilities = []string{flowjob.CapabilityAPI, flowjob.CapabilityApproval}
	return j
}

// resumeOf is the resume job of suspended: a new id, the same step.
func resumeOf(suspended *flowjob.Job, id, token string, resolution string) *flowjob.Job {
	j := *suspended
	j.ID = id
	j.Resume = &flowjob.Resume{Token: token, Resolution: json.RawMessage(resolution)}
	return &j
}

func TestSuspendAndResumeOnAnotherExecutor(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		signer, err := continuation.NewSigner(testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		hosts := &countingHosts{}
		opts := Options{Runner: newRunner(4), Hosts: hosts, Continuations: signer}

		first := startExecutorWith(t, nc, cfg, opts)
		job := approvalJob("suspends")
		publish(t, js, cfg, job)
		r := results(t, js, cfg, 1, 20*time.Second)[job.ID]
		if r.Status != flowjob.StatusSuspended || r.Directive.Type != flowjob.DirectiveSuspend || r.Continuation == "" {
			t.Fatalf("first run: status %s, directive %+v, continuation %q, error %+v", r.Status, r.Directive, r.Continuation, r.Error)
		}
		if string(r.Directive.Request) != `{"message":"Refund 10?","data":{"amount":10}}` || len(r.Variables) != 0 {
			t.Errorf("suspended result: request %s, variables %v", r.Directive.Request, r.Variables)
		}
		first.stop(t) // the replica that suspended is gone

		startExecutorWith(t, connect(t, url), cfg, opts)
		publish(t, js, cfg, resumeOf(job, "resumes", r.Continuation, `{"ok":true}`))
		done := results(t, js, cfg, 2, 20*time.Second)["resumes"]
		if done.Status != flowjob.StatusSucceeded || done.Continuation != "" {
			t.Fatalf("resume: %s %+v", done.Status, done.Error)
		}
		parts := strings.Split(done.Variables["out"], "|")
		if len(parts) != 4 || parts[1] != "1" || parts[2] != "true" || parts[3] != "2" {
			t.Errorf("resumed output %q: want the recorded first call (1), the resolution, then the second call (2)", done.Variables["out"])
		}
		if n := hosts.calls.Load(); n != 2 {
			t.Errorf("%d host calls in all, want 2 (the first one is not repeated)", n)
		}

		// The continuation is used: another resume job gets CONTINUATION_USED.
		publish(t, js, cfg, resumeOf(job, "resumes-again", r.Continuation, `{"ok":false}`))
		again := results(t, js, cfg, 3, 20*time.Second)["resumes-again"]
		if again.Error == nil || again.Error.Code != flowjob.CodeContinuationUsed {
			t.Errorf("second resume: %s %+v, want CONTINUATION_USED", again.Status, again.Error)
		}
		if again.Directive.Type != flowjob.DirectiveContinue || again.Variables["err"] == "" {
			t.Errorf("the error policy applies: directive %+v, variables %v", again.Directive, again.Variables)
		}
	})
}

func TestResumeRefusals(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		signer, err := continuation.NewSigner(testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		startExecutorWith(t, nc, cfg, Options{Runner: newRunner(4), Hosts: &countingHosts{}, Continuations: signer})
		job := approvalJob("to-refuse")
		publish(t, js, cfg, job)
		token := results(t, js, cfg, 1, 20*time.Second)[job.ID].Continuation
		claims, err := signer.Verify(token, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		expired := claims
		expired.Expires = time.Now().Add(-time.Second).Unix()

		cases := map[string]struct {
			job  *flowjob.Job
			code string
		}{
			"tampered":       {resumeOf(job, "tampered", strings.Replace(token, ".", ".-", 1), `true`), flowjob.CodeInvalidContinuation},
			"expired":        {resumeOf(job, "expired", signer.Sign(expired), `true`), flowjob.CodeInvalidContinuation},
			"other session":  {func() *flowjob.Job { j := resumeOf(job, "other-session", token, `true`); j.SessionID = "s-2"; return j }(), flowjob.CodeInvalidContinuation},
			"changed source": {func() *flowjob.Job { j := resumeOf(job, "changed", token, `true`); j.Action.Source += ";"; return j }(), flowjob.CodeContinuationSourceChange},
			"other inputs": {func() *flowjob.Job {
				j := resumeOf(job, "other-inputs", token, `true`)
				j.Variables = map[string]string{"cpf": "999.999.999-99"}
				return j
			}(), flowjob.CodeInvalidContinuation},
			// Failures the resumed run could not escape leave the
			// continuation unused too.
			"approval not asked for": {func() *flowjob.Job {
				j := resumeOf(job, "no-approval", token, `true`)
				j.Capabilities = []string{flowjob.CapabilityAPI}
				return j
			}(), flowjob.CodeCapabilityDenied},
			// A replay granted other capabilities than the suspended run
			// would find its recorded api call refused after the claim.
			"other grants": {func() *flowjob.Job {
				j := resumeOf(job, "other-grants", token, `true`)
				j.Capabilities = []string{flowjob.CapabilityApproval}
				return j
			}(), flowjob.CodeCapabilityDenied},
			"more grants": {func() *flowjob.Job {
				j := resumeOf(job, "more-grants", token, `true`)
				j.Capabilities = []string{flowjob.CapabilityAPI, flowjob.CapabilityApproval, flowjob.CapabilityKV}
				return j
			}(), flowjob.CodeCapabilityDenied},
			"resolution too deep": {resumeOf(job, "too-deep", token, strings.Repeat("[", sandbox.MaxJSONNesting+1)+strings.Repeat("]", sandbox.MaxJSONNesting+1)), flowjob.CodeInvalidJob},
		}
		for _, c := range cases {
			publish(t, js, cfg, c.job)
		}
		got := results(t, js, cfg, 1+len(cases), 30*time.Second)
		for name, c := range cases {
			r := got[c.job.ID]
			if r.Error == nil || r.Error.Code != c.code {
				t.Errorf("%s: %s %+v, want %s", name, r.Status, r.Error, c.code)
			}
		}
		// None of them used the continuation.
		publish(t, js, cfg, resumeOf(job, "finally", token, `{"ok":true}`))
		if r := results(t, js, cfg, 2+len(cases), 20*time.Second)["finally"]; r.Status != flowjob.StatusSucceeded {
			t.Errorf("the untouched continuation: %s %+v", r.Status, r.Error)
		}
	})
}

// Without a key the approval capability is not granted: the script's
// approval.request throws CAPABILITY_DENIED, and resume jobs fail.
func TestNoKeyNoApproval(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutorWith(t, nc, cfg, Options{Runner: newRunner(4), Hosts: &countingHosts{}})
		job := approvalJob("no-key")
		publish(t, js, cfg, job)
		publish(t, js, cfg, resumeOf(job, "no-key-resume", "x.y", `true`))
		got := results(t, js, cfg, 2, 20*time.Second)
		if r := got[job.ID]; r.Error == nil || r.Error.Code != flowjob.CodeCapabilityDenied {
			t.Errorf("approval without a key: %s %+v, want CAPABILITY_DENIED", r.Status, r.Error)
		}
		if r := got["no-key-resume"]; r.Error == nil || r.Error.Code != flowjob.CodeInvalidContinuation ||
			!strings.Contains(r.Error.Message, "CONTINUATION_KEY") {
			t.Errorf("a resume without a key: %s %+v, want INVALID_CONTINUATION naming CONTINUATION_KEY", r.Status, r.Error)
		}
	})
}
