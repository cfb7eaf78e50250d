package actions

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("BRT", -3*3600))

func testPolicy() Policy { return Policy{Now: func() time.Time { return fixedNow }} }

// baseJob is a valid flow job; the mode cases below change what they need.
func baseJob() *flowjob.Job {
	return &flowjob.Job{
		ID: "job-1", SessionID: "session-1", FlowID: "flow-1", BlockID: "block-1",
		Context: flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         "function execute(nome) { return 'valido' }",
			InputVariables: []flowjob.InputVariable{{Name: "nome", Value: "{{nome}}"}},
			OutputVariable: "out",
			ErrorVariable:  "erro",
			OnError:        flowjob.OnErrorBlocking,
			ErrorMessage:   "Não deu certo para {{ nome }}: {{erro}}",
		},
		Variables: map[string]string{"nome": "Ana", "erro": "stale"},
	}
}

func ptr[T any](v T) *T { return &v }

type want struct {
	vars      map[string]string
	directive flowjob.Directive
}

// TestErrorTable walks the seed's "Tratamento de erros" table: every
// situation in every mode.
func TestErrorTable(t *testing.T) {
	situations := []struct {
		name string
		out  sandbox.Result
	}{
		{"script throws", sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: "nome is not defined", Line: 2, Column: 9}, Duration: 3 * time.Millisecond}},
		{"timeout", sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeTimeout, Message: sandbox.MsgTimeout}, Duration: 5 * time.Second}},
		{"concurrency limit", sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeBusy, Message: sandbox.BusyMessage(8)}}},
		{"memory", sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeMemoryLimit, Message: "Script exceeded the 32 MB memory limit"}, Duration: 40 * time.Millisecond}},
		{"success", sandbox.Result{Output: `{"ok":true}`, Duration: time.Millisecond}},
	}
	modes := []struct {
		name  string
		setup func(*flowjob.Job)
		fail  func(msg string) want // what a failure with message msg must give
	}{
		{"flow blocking handoff", func(*flowjob.Job) {}, func(msg string) want {
			return want{map[string]string{"erro": msg},
				flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Não deu certo para Ana: " + msg}}
		}},
		{"flow blocking redirect", func(j *flowjob.Job) {
			j.Action.ErrorHandoff = ptr(false)
			j.DefaultExceptionBlockID = "block-exception"
		}, func(msg string) want {
			return want{map[string]string{"erro": msg},
				flowjob.Directive{Type: flowjob.DirectiveRedirect, BlockID: "block-exception", Message: "Não deu certo para Ana: " + msg}}
		}},
		{"flow continue", func(j *flowjob.Job) { j.Action.OnError = flowjob.OnErrorContinue }, func(msg string) want {
			return want{map[string]string{"out": "", "erro": msg}, flowjob.Directive{Type: flowjob.DirectiveContinue}}
		}},
		{"tool blocking", func(j *flowjob.Job) { j.Context = flowjob.ContextTool }, func(msg string) want {
			return want{map[string]string{}, flowjob.Directive{Type: flowjob.DirectiveThrow, Message: msg}}
		}},
		{"tool continue", func(j *flowjob.Job) {
			j.Context = flowjob.ContextTool
			j.Action.OnError = flowjob.OnErrorContinue
		}, func(msg string) want {
			return want{map[string]string{"out": "", "erro": msg}, flowjob.Directive{Type: flowjob.DirectiveContinue}}
		}},
	}
	for _, m := range modes {
		for _, s := range situations {
			t.Run(m.name+"/"+s.name, func(t *testing.T) {
				job := baseJob()
				m.setup(job)
				if err := job.Validate(); err != nil {
					t.Fatalf("test job invalid: %v", err)
				}
				got := testPolicy().Decide(job, Ran(s.out, 2)).Result

				if got.Version != flowjob.ContractVersion || got.JobID != "job-1" || got.SessionID != "session-1" ||
					got.FlowID != "flow-1" || got.BlockID != "block-1" || got.Context != job.Context {
					t.Errorf("envelope = %+v: want the job's ids and version", got)
				}
				if got.Attempt != 2 || got.DurationMs != s.out.Duration.Milliseconds() || !got.CompletedAt.Equal(fixedNow) || got.CompletedAt.Location() != time.UTC {
					t.Errorf("attempt %d, duration %d, completedAt %v", got.Attempt, got.DurationMs, got.CompletedAt)
				}

				var w want
				if s.out.Err == nil {
					if got.Status != flowjob.StatusSucceeded || got.Error != nil {
						t.Errorf("status %q, error %+v: want succeeded, no error", got.Status, got.Error)
					}
					w = want{map[string]string{"out": `{"ok":true}`}, flowjob.Directive{Type: flowjob.DirectiveContinue}}
				} else {
					e := s.out.Err
					wantErr := flowjob.Error{Code: string(e.Code), Message: e.Message, Line: e.Line, Column: e.Column}
					if got.Status != flowjob.StatusFailed || got.Error == nil || *got.Error != wantErr {
						t.Errorf("status %q, error %+v: want failed, %+v", got.Status, got.Error, wantErr)
					}
					w = m.fail(e.Message)
				}
				if !maps.Equal(got.Variables, w.vars) {
					t.Errorf("variables = %q, want %q", got.Variables, w.vars)
				}
				if !reflect.DeepEqual(got.Directive, w.directive) {
					t.Errorf("directive = %+v, want %+v", got.Directive, w.directive)
				}
			})
		}
	}
}

func TestDecideMessage(t *testing.T) {
	boom := sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: "boom"}}
	redirect := func(j *flowjob.Job) { j.Action.ErrorHandoff = ptr(false); j.DefaultExceptionBlockID = "exc" }
	for _, tc := range []struct {
		name   string
		policy Policy
		setup  func(*flowjob.Job)
		want   string
	}{
		{"no errorMessage: the default", Policy{}, func(j *flowjob.Job) { j.Action.ErrorMessage = "" }, DefaultErrorMessage},
		{"no errorMessage, redirect: the default", Policy{}, func(j *flowjob.Job) { redirect(j); j.Action.ErrorMessage = "" }, DefaultErrorMessage},
		{"configured default", Policy{DefaultErrorMessage: "Ops! {{nome}}"}, func(j *flowjob.Job) { j.Action.ErrorMessage = "" }, "Ops! {{nome}}"},
		{"blank after interpolation: the default", Policy{}, func(j *flowjob.Job) { j.Action.ErrorMessage = " {{vazio}} " }, DefaultErrorMessage},
		{"no errorVariable: {{erro}} is the session's", Policy{}, func(j *flowjob.Job) { j.Action.ErrorVariable = "" }, "Não deu certo para Ana: stale"},
		{"errorVariable overlays the session's", Policy{}, func(*flowjob.Job) {}, "Não deu certo para Ana: boom"},
		{"one pass: a value holding a reference stays literal", Policy{}, func(j *flowjob.Job) { j.Variables["nome"] = "{{erro}}" }, "Não deu certo para {{erro}}: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := baseJob()
			tc.setup(job)
			got := tc.policy.Decide(job, Ran(boom, 1)).Result
			if got.Directive.Message != tc.want {
				t.Fatalf("message = %q, want %q", got.Directive.Message, tc.want)
			}
		})
	}
}

func TestDecideCutsLongMessages(t *testing.T) {
	job := baseJob()
	job.Variables["big"] = strings.Repeat("ç", 1<<19)
	job.Action.ErrorMessage = strings.Repeat("{{big}}", 500) // would expand to 500 MiB
	long := strings.Repeat("é", flowjob.MaxErrorMessageBytes)
	got := testPolicy().Decide(job, Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: long}}, 1)).Result
	for name, s := range map[string]string{"directive": got.Directive.Message, "error": got.Error.Message, "errorVariable": got.Variables["erro"]} {
		if len(s) > flowjob.MaxErrorMessageBytes || !strings.HasSuffix(s, "…") || !utf8.ValidString(s) {
			t.Errorf("%s message: %d bytes, valid UTF-8 %v, ends %q: want at most %d bytes ending in …",
				name, len(s), utf8.ValidString(s), s[max(0, len(s)-6):], flowjob.MaxErrorMessageBytes)
		}
	}
}

func TestDecideSpecialCases(t *testing.T) {
	t.Run("error and output variable are the same: the message wins", func(t *testing.T) {
		job := baseJob()
		job.Action.OnError = flowjob.OnErrorContinue
		job.Action.ErrorVariable = "out"
		got := testPolicy().Decide(job, Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeTimeout, Message: sandbox.MsgTimeout}}, 1)).Result
		if !maps.Equal(got.Variables, map[string]string{"out": sandbox.MsgTimeout}) {
			t.Fatalf("variables = %q", got.Variables)
		}
	})
	t.Run("success leaves errorVariable alone", func(t *testing.T) {
		got := testPolicy().Decide(baseJob(), Ran(sandbox.Result{Output: ""}, 1)).Result
		if !maps.Equal(got.Variables, map[string]string{"out": ""}) || got.Status != flowjob.StatusSucceeded {
			t.Fatalf("result = %+v", got)
		}
	})
	t.Run("sandbox input refusal is INVALID_JOB", func(t *testing.T) {
		got := testPolicy().Decide(baseJob(), Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeInvalidInput, Message: "source is 300000 bytes"}}, 1)).Result
		if got.Error.Code != flowjob.CodeInvalidJob || got.Directive.Type != flowjob.DirectiveFreezeHandoff {
			t.Fatalf("result = %+v, %+v", got.Error, got.Directive)
		}
	})
	t.Run("caller codes pass through", func(t *testing.T) {
		got := testPolicy().Decide(baseJob(), Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.Code(flowjob.CodeDeadlineExceeded), Message: "too late"}}, 3)).Result
		if got.Error.Code != flowjob.CodeDeadlineExceeded || got.Attempt != 3 {
			t.Fatalf("result = %+v", got)
		}
	})
	t.Run("nil job does not panic", func(t *testing.T) {
		got := testPolicy().Decide(nil, Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: "x"}}, 1)).Result
		if got.Directive.Type != flowjob.DirectiveFreezeHandoff {
			t.Fatalf("directive = %+v", got.Directive)
		}
	})
	t.Run("no variables encode as {}", func(t *testing.T) {
		job := baseJob()
		job.Context = flowjob.ContextTool
		b, err := json.Marshal(testPolicy().Decide(job, Ran(sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: "x"}}, 1)).Result)
		if err != nil || !strings.Contains(string(b), `"variables":{}`) {
			t.Fatalf("%s, %v", b, err)
		}
	})
}

func TestModeOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*flowjob.Job)
		want  Mode
	}{
		{"flow blocking", func(*flowjob.Job) {}, ModeHandoff},
		{"flow blocking handoff true", func(j *flowjob.Job) { j.Action.ErrorHandoff = ptr(true); j.DefaultExceptionBlockID = "x" }, ModeHandoff},
		{"flow blocking redirect", func(j *flowjob.Job) { j.Action.ErrorHandoff = ptr(false); j.DefaultExceptionBlockID = "x" }, ModeRedirect},
		{"redirect with nowhere to go", func(j *flowjob.Job) { j.Action.ErrorHandoff = ptr(false) }, ModeHandoff},
		{"continue", func(j *flowjob.Job) { j.Action.OnError = flowjob.OnErrorContinue }, ModeContinue},
		{"continue with handoff false", func(j *flowjob.Job) { j.Action.OnError = flowjob.OnErrorContinue; j.Action.ErrorHandoff = ptr(false) }, ModeContinue},
		{"continue without outputVariable", func(j *flowjob.Job) { j.Action.OnError = flowjob.OnErrorContinue; j.Action.OutputVariable = "" }, ModeHandoff},
		{"tool blocking", func(j *flowjob.Job) { j.Context = flowjob.ContextTool }, ModeThrow},
		{"tool blocking handoff false", func(j *flowjob.Job) {
			j.Context = flowjob.ContextTool
			j.Action.ErrorHandoff = ptr(false)
			j.DefaultExceptionBlockID = "x"
		}, ModeThrow},
		{"tool continue", func(j *flowjob.Job) { j.Context = flowjob.ContextTool; j.Action.OnError = flowjob.OnErrorContinue }, ModeContinue},
		{"unknown onError in a flow", func(j *flowjob.Job) { j.Action.OnError = "retry" }, ModeHandoff},
		{"unknown onError in a tool", func(j *flowjob.Job) { j.Context = flowjob.ContextTool; j.Action.OnError = "" }, ModeThrow},
		{"unknown context", func(j *flowjob.Job) {
			j.Context = "agent"
			j.Action.ErrorHandoff = ptr(false)
			j.DefaultExceptionBlockID = "x"
		}, ModeHandoff},
	} {
		job := baseJob()
		tc.setup(job)
		if got := ModeOf(job); got != tc.want {
			t.Errorf("%s: ModeOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDecideCarriesLogsAndTheAuthorsReason(t *testing.T) {
	res := sandbox.Result{
		Err:           &sandbox.Error{Code: sandbox.CodeScriptError, Message: "customer_id is required", Reason: "VALIDATION_ERROR"},
		Logs:          []sandbox.LogEntry{{Level: "warn", Message: "sem cpf", Line: 3}},
		LogsTruncated: true,
	}
	job := baseJob()
	job.Action.OnError = flowjob.OnErrorContinue
	got := testPolicy().Decide(job, Ran(res, 1)).Result
	if got.Error == nil || got.Error.Reason != "VALIDATION_ERROR" || got.Error.Code != flowjob.CodeScriptError {
		t.Errorf("error %+v, want SCRIPT_ERROR with the author's reason", got.Error)
	}
	if len(got.Logs) != 1 || got.Logs[0] != (flowjob.LogEntry{Level: flowjob.LogWarn, Message: "sem cpf", Line: 3}) || !got.LogsTruncated {
		t.Errorf("logs %+v (truncated %v)", got.Logs, got.LogsTruncated)
	}
	// The policy applies as for a throw: continue writes the message.
	if got.Variables["erro"] != "customer_id is required" || got.Directive.Type != flowjob.DirectiveContinue {
		t.Errorf("variables %v, directive %+v", got.Variables, got.Directive)
	}
	ok := testPolicy().Decide(baseJob(), Ran(sandbox.Result{Output: "x", Logs: []sandbox.LogEntry{{Level: "log", Message: "hi"}}}, 1)).Result
	if ok.Status != flowjob.StatusSucceeded || len(ok.Logs) != 1 {
		t.Errorf("a success keeps its logs: %+v", ok)
	}
}
