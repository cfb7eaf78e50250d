package schema_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Every result the executor's policy can write validates: each valid job
// of testdata (and each of them as a flow, a Tool, blocking and continue)
// under success and under every failure code, and the INVALID_JOB results
// of broken jobs, including one whose context is unusable (the result then
// carries context "").
func TestPolicyResultsValidate(t *testing.T) {
	_, result := schemas(t)
	policy := actions.Policy{Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }}
	outcomes := []sandbox.Result{{Output: "ok", Duration: 3 * time.Millisecond}}
	for _, code := range []sandbox.Code{
		sandbox.CodeScriptError, sandbox.CodeSyntaxError, sandbox.CodeTimeout, sandbox.CodeMemoryLimit,
		sandbox.CodeAsyncUnsupported, sandbox.CodeBusy, sandbox.CodeOutputTooLarge, sandbox.CodeInvalidInput,
		sandbox.CodeCrash,
	} {
		outcomes = append(outcomes, sandbox.Result{Err: &sandbox.Error{Code: code, Message: "boom", Line: 2, Column: 5}})
	}
	outcomes = append(outcomes, sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: ""}})

	files := testdata(t, "jobs/valid_*.json")
	n := 0
	for _, name := range slices.Sorted(maps.Keys(files)) {
		base, err := flowjob.Decode(files[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ctx := range []flowjob.Context{flowjob.ContextFlow, flowjob.ContextTool} {
			for _, onError := range []flowjob.OnError{flowjob.OnErrorBlocking, flowjob.OnErrorContinue} {
				job := *base
				job.Context, job.Action.OnError = ctx, onError
				if job.Validate() != nil {
					continue // a redirect without its block: not a job the executor runs
				}
				for _, out := range outcomes {
					n++
					r := policy.Decide(&job, actions.Ran(out, 1)).Result
					checkResult(t, result, name+" as "+string(ctx)+"/"+string(onError), r)
				}
				for _, code := range []string{flowjob.CodeInvalidContinuation, flowjob.CodeContinuationUsed,
					flowjob.CodeContinuationSourceChange, flowjob.CodeContinuationDiverged} {
					n++
					r := policy.Decide(&job, actions.Failed(code, "refused", 1)).Result
					checkResult(t, result, name+" "+code, r)
				}
				for _, request := range []string{`{"message":"ok?","data":{"n":1}}`, `null`, ``} {
					n++
					suspended := actions.Ran(sandbox.Result{Duration: time.Millisecond}, 1)
					suspended.Suspend = &actions.Suspend{Request: json.RawMessage(request), Continuation: "payload.mac"}
					r := policy.Decide(&job, suspended).Result
					if r.Status != flowjob.StatusSuspended || r.Directive.Type != flowjob.DirectiveSuspend {
						t.Errorf("%s: a suspended report gave %s %s", name, r.Status, r.Directive.Type)
					}
					checkResult(t, result, name+" suspended", r)
				}
			}
		}
	}

	broken := map[string][]byte{
		"bad context": []byte(`{"id":"j1","sessionId":"s1","flowId":"f","blockId":"b","context":"bot","action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"o","onError":"blocking"}}`),
		"bad action":  []byte(`{"id":"j2","sessionId":"s2","context":"tool","action":{"type":"x"}}`),
	}
	maps.Copy(broken, testdata(t, "jobs/invalid_*.json"))
	answered := 0
	for name, data := range broken {
		job, err := flowjob.Decode(data)
		if err == nil {
			t.Fatalf("%s: Decode accepts it", name)
		}
		v := policy.Decide(job, actions.Failed(flowjob.CodeInvalidJob, err.Error(), 2), actions.BadInput(err))
		if !v.Answer {
			continue
		}
		r := v.Result
		answered++
		checkResult(t, result, name+" (INVALID_JOB)", r)
	}
	if answered < 3 {
		t.Errorf("only %d broken jobs were answered; the test wants at least 3", answered)
	}
	t.Logf("%d policy results and %d INVALID_JOB results validate", n, answered)
}

func checkResult(t *testing.T, s *jsonschema.Schema, desc string, r flowjob.Result) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(s, data); err != nil {
		t.Errorf("%s: the result schema refuses %s:\n%v", desc, data, err)
	}
}
