package actions

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// A job as an engine sends it; the cases edit it as text, the way bad
// input arrives.
const wire = `{"id":"job-9","sessionId":"session-9","flowId":"flow-9","blockId":"block-9","context":"flow",
"action":{"type":"executeScript","source":"return 1","inputVariables":[{"name":"nome","value":"{{nome}}"}],
"outputVariable":"out","errorVariable":"erro","onError":"blocking","errorMessage":"Falhou para {{nome}}"},
"variables":{"nome":"Ana"}}`

func TestBadInput(t *testing.T) {
	// More problems than a ValidationError lists (flowjob.MaxFieldErrors).
	manyBadInputs := `[` + strings.Repeat(`{"name":"1nome","value":""},`, 60) + `{"name":"nome","value":""}]`
	for _, tc := range []struct {
		name      string
		edits     []string // old, new, old, new...
		vars      map[string]string
		directive flowjob.Directive
		flowID    string
	}{
		{"flow blocking: handoff with the custom message",
			[]string{`"source":"return 1"`, `"source":""`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"flow blocking redirect: redirect",
			[]string{`"type":"executeScript"`, `"type":"runScript"`, `"onError":"blocking"`, `"onError":"blocking","errorHandoff":false`, `"context":"flow"`, `"context":"flow","defaultExceptionBlockId":"exc"`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveRedirect, BlockID: "exc", Message: "Falhou para Ana"}, "flow-9"},
		{"redirect without an exception block: handoff",
			[]string{`"onError":"blocking"`, `"onError":"blocking","errorHandoff":false`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"continue still continues",
			[]string{`"onError":"blocking"`, `"onError":"continue"`, `"name":"nome"`, `"name":"1nome"`},
			map[string]string{"out": "", "erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveContinue}, "flow-9"},
		{"continue with a broken outputVariable: handoff",
			[]string{`"onError":"blocking"`, `"onError":"continue"`, `"outputVariable":"out"`, `"outputVariable":7`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"continue with a broken errorVariable: handoff, nothing written",
			[]string{`"onError":"blocking"`, `"onError":"continue"`, `"errorVariable":"erro"`, `"errorVariable":["erro"]`},
			map[string]string{}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"unknown onError in a flow: handoff",
			[]string{`"onError":"blocking"`, `"onError":"sometimes"`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"tool: throw",
			[]string{`"context":"flow"`, `"context":"tool"`, `"source":"return 1"`, `"source":5`},
			map[string]string{}, flowjob.Directive{Type: flowjob.DirectiveThrow, Message: "*"}, "flow-9"},
		{"tool with more problems than listed: throw, ids kept",
			[]string{`"context":"flow"`, `"context":"tool"`, `[{"name":"nome","value":"{{nome}}"}]`, manyBadInputs},
			map[string]string{}, flowjob.Directive{Type: flowjob.DirectiveThrow, Message: "*"}, "flow-9"},
		{"unknown onError in a tool: throw",
			[]string{`"context":"flow"`, `"context":"tool"`, `"onError":"blocking"`, `"onError":"never"`},
			map[string]string{}, flowjob.Directive{Type: flowjob.DirectiveThrow, Message: "*"}, "flow-9"},
		{"unknown context: handoff, context left out",
			[]string{`"context":"flow"`, `"context":"agent"`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, "flow-9"},
		{"broken errorMessage: the default",
			[]string{`"errorMessage":"Falhou para {{nome}}"`, `"errorMessage":false`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: DefaultErrorMessage}, "flow-9"},
		{"broken flowId is left out",
			[]string{`"flowId":"flow-9"`, `"flowId":""`},
			map[string]string{"erro": "*"}, flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff, Message: "Falhou para Ana"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := wire
			for i := 0; i < len(tc.edits); i += 2 {
				if !strings.Contains(in, tc.edits[i]) {
					t.Fatalf("edit %q: not in the job", tc.edits[i])
				}
				in = strings.Replace(in, tc.edits[i], tc.edits[i+1], 1)
			}
			job, err := flowjob.Decode([]byte(in))
			if err == nil {
				t.Fatal("the edited job must be invalid")
			}
			got, ok := decideBadInput(testPolicy(), job, err, 1)
			if !ok {
				t.Fatal("Decide refused a bad job with an id and a session id")
			}
			if got.Status != flowjob.StatusFailed || got.Error == nil || got.Error.Code != flowjob.CodeInvalidJob || got.Error.Message != err.Error() {
				t.Fatalf("status %q, error %+v: want failed, INVALID_JOB, %q", got.Status, got.Error, err)
			}
			if got.JobID != "job-9" || got.SessionID != "session-9" || got.FlowID != tc.flowID || got.Attempt != 1 || got.Version != flowjob.ContractVersion {
				t.Errorf("envelope = %+v", got)
			}
			// "*" stands for the error's text.
			wantVars := maps.Clone(tc.vars)
			for k, v := range wantVars {
				if v == "*" {
					wantVars[k] = err.Error()
				}
			}
			if tc.directive.Message == "*" {
				tc.directive.Message = err.Error()
			}
			if !maps.Equal(got.Variables, wantVars) {
				t.Errorf("variables = %q, want %q", got.Variables, wantVars)
			}
			if !reflect.DeepEqual(got.Directive, tc.directive) {
				t.Errorf("directive = %+v, want %+v", got.Directive, tc.directive)
			}
		})
	}
}

func TestBadInputNeedsAnIDToAnswer(t *testing.T) {
	p := testPolicy()
	for _, in := range []string{
		`[]`,
		`{"sessionId":"s"}`,
		`{"id":"a.b","sessionId":"s"}`,
		`{"id":"` + strings.Repeat("j", flowjob.MaxIDBytes+1) + `","sessionId":"s"}`,
	} {
		job, err := flowjob.Decode([]byte(in))
		if _, ok := decideBadInput(p, job, err, 1); ok {
			t.Errorf("%.60s: Decide answered a job it cannot address", in)
		}
	}
	if _, ok := decideBadInput(p, nil, errors.New("x"), 1); ok {
		t.Error("nil job answered")
	}
}

func TestBadInputIsAnsweredUnderItsID(t *testing.T) {
	for _, in := range []string{
		`{"id":"j"}`,
		`{"id":"j","sessionId":7}`,
		`{"id":"j","sessionId":"` + strings.Repeat("s", flowjob.MaxRefBytes+1) + `"}`,
	} {
		job, err := flowjob.Decode([]byte(in))
		got, ok := decideBadInput(testPolicy(), job, err, 1)
		if !ok || got.JobID != "j" || got.SessionID != "" || got.Error.Code != flowjob.CodeInvalidJob {
			t.Errorf("%.60s: answered %v, result %+v: want job j, no session id, INVALID_JOB", in, ok, got)
		}
	}
}

func TestBadInputFallsBackToTheMessageID(t *testing.T) {
	cause := errors.New("not valid JSON")
	v := testPolicy().Decide(nil, Failed(flowjob.CodeInvalidJob, cause.Error(), 1), BadInput(cause), FallbackID("from-header"))
	if !v.Answer || !v.DeadLetter || v.Result.JobID != "from-header" || v.Result.Directive.Type != flowjob.DirectiveFreezeHandoff {
		t.Fatalf("verdict %+v: want an answer under from-header, dead-lettered, freeze_handoff", v)
	}
	job := &flowjob.Job{ID: "from-body", SessionID: "s"}
	v = testPolicy().Decide(job, Failed(flowjob.CodeInvalidJob, "x", 1), BadInput(cause), FallbackID("from-header"))
	if v.Result.JobID != "from-body" {
		t.Fatalf("job id %q: the body's usable id wins over the header's", v.Result.JobID)
	}
	if v := testPolicy().Decide(nil, Failed(flowjob.CodeInvalidJob, "x", 1), FallbackID("a.b")); v.Answer {
		t.Fatal("answered under an id that cannot name a subject")
	}
}

func TestBadInputWithAPlainError(t *testing.T) {
	job := &flowjob.Job{ID: "j", SessionID: "s", Context: flowjob.ContextTool}
	got, ok := decideBadInput(testPolicy(), job, errors.New("inputs over this executor's cap"), 2)
	if !ok || got.Error.Message != "inputs over this executor's cap" || got.Directive.Type != flowjob.DirectiveThrow {
		t.Fatalf("ok %v, result %+v", ok, got)
	}
}

func TestDeadLetterCodes(t *testing.T) {
	for code, want := range map[string]bool{
		flowjob.CodeInvalidJob: true, flowjob.CodeDeliveryExhausted: true, flowjob.CodeSandboxCrash: true,
		flowjob.CodeScriptError: false, flowjob.CodeTimeout: false, flowjob.CodeDeadlineExceeded: false,
	} {
		if got := testPolicy().Decide(baseJob(), Failed(code, "x", 1)).DeadLetter; got != want {
			t.Errorf("%s: DeadLetter = %v, want %v", code, got, want)
		}
	}
	if testPolicy().Decide(baseJob(), Report{Output: "ok", Attempt: 1}).DeadLetter {
		t.Error("a success is dead-lettered")
	}
	// The metrics start a series at 0 for each of these codes.
	if got := slices.Sorted(maps.Keys(deadLetterCodes)); !slices.Equal(got, slices.Sorted(slices.Values(telemetry.DeadLetterReasons))) {
		t.Errorf("dead-letter codes %v, but telemetry.DeadLetterReasons is %v: keep them equal", got, telemetry.DeadLetterReasons)
	}
}

// decideBadInput is Decide for a job that broke the contract with err.
func decideBadInput(p Policy, job *flowjob.Job, err error, attempt int) (flowjob.Result, bool) {
	v := p.Decide(job, Failed(flowjob.CodeInvalidJob, err.Error(), attempt), BadInput(err))
	return v.Result, v.Answer
}
