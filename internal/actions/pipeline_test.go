package actions

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The executor's path with the real sandbox: decode, request, run, decide.
func TestPipelineWithTheSandbox(t *testing.T) {
	runner := sandbox.NewInProcess(sandbox.Limits{})
	run := func(t *testing.T, wireJob string) (*flowjob.Job, flowjob.Result) {
		t.Helper()
		job, err := flowjob.Decode([]byte(wireJob))
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		out := runner.Run(context.Background(), Request(job, runner.Limits().Timeout))
		return job, testPolicy().Decide(job, Ran(out, 1)).Result
	}
	job := func(source, onError, extra string) string {
		return `{"id":"j1","sessionId":"s1","flowId":"f1","blockId":"b1","context":"flow",` + extra +
			`"action":{"type":"executeScript","source":` + quoteJSON(source) + `,` +
			`"inputVariables":[{"name":"nome","value":"{{ contact.name }}"}],"outputVariable":"out","errorVariable":"erro",` +
			`"onError":"` + onError + `","errorMessage":"Erro com {{contact.name}}: {{erro}}"},` +
			`"variables":{"contact.name":"ana"}}`
	}

	t.Run("success", func(t *testing.T) {
		_, r := run(t, job("function execute(nome) { return nome.toUpperCase() }", "blocking", ""))
		if r.Status != flowjob.StatusSucceeded || r.Variables["out"] != "ANA" || r.Directive.Type != flowjob.DirectiveContinue {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("exception, blocking: handoff with the interpolated message", func(t *testing.T) {
		_, r := run(t, job("function execute(nome) {\n  throw new Error('sem CPF para ' + nome)\n}", "blocking", ""))
		if r.Error == nil || r.Error.Code != flowjob.CodeScriptError || !strings.Contains(r.Error.Message, "sem CPF para ana") || r.Error.Line != 2 {
			t.Fatalf("error = %+v", r.Error)
		}
		if r.Variables["erro"] != r.Error.Message || r.Directive.Type != flowjob.DirectiveFreezeHandoff ||
			r.Directive.Message != "Erro com ana: "+r.Error.Message {
			t.Fatalf("variables %q, directive %+v", r.Variables, r.Directive)
		}
	})
	t.Run("timeout, continue", func(t *testing.T) {
		_, r := run(t, job("while (true) {}", "continue", `"timeoutMs":50,`))
		if r.Error == nil || r.Error.Code != flowjob.CodeTimeout || r.Variables["erro"] != sandbox.MsgTimeout ||
			r.Variables["out"] != "" || r.Directive.Type != flowjob.DirectiveContinue {
			t.Fatalf("result = %+v, error %+v", r, r.Error)
		}
		if r.DurationMs >= runner.Limits().Timeout.Milliseconds() {
			t.Fatalf("took %d ms: the job's shorter timeout was not applied", r.DurationMs)
		}
	})
	t.Run("an injected value is data", func(t *testing.T) {
		in := strings.Replace(job("return nome", "blocking", ""), `"contact.name":"ana"`, `"contact.name":"'); throw new Error('x'); ('"`, 1)
		_, r := run(t, in)
		if r.Status != flowjob.StatusSucceeded || r.Variables["out"] != `'); throw new Error('x'); ('` {
			t.Fatalf("result = %+v", r)
		}
	})
}

// The seed's concurrency-limit row, with the real limit.
func TestPipelineBusy(t *testing.T) {
	runner := sandbox.NewInProcess(sandbox.Limits{MaxParallel: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.Run(ctx, sandbox.Request{Source: "while (true) {}"})
	}()
	defer func() { cancel(); <-done }()

	job := baseJob()
	job.Action.OnError = flowjob.OnErrorContinue
	var out sandbox.Result
	for deadline := time.Now().Add(5 * time.Second); ; {
		out = runner.TryRun(context.Background(), Request(job, time.Second))
		if out.Err != nil && out.Err.Code == sandbox.CodeBusy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runner never became busy: last result %+v", out)
		}
		time.Sleep(time.Millisecond) // polling the slot, bounded by the deadline
	}
	r := testPolicy().Decide(job, Ran(out, 1)).Result
	if r.Error.Code != flowjob.CodeBusy || r.Variables["erro"] != sandbox.BusyMessage(1) || r.Directive.Type != flowjob.DirectiveContinue {
		t.Fatalf("result = %+v", r)
	}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
