package flowjob_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/flowscript/flowscript/flowjob"
)

// An engine builds a job for an executeScript block, validates it before
// publishing, and applies the directive of the result event it gets back.
func Example() {
	handoff := false
	job := &flowjob.Job{
		ID:        "01J9Z3Q4W5E6R7T8Y9U0I1O2P3",
		SessionID: "session-42",
		FlowID:    "flow-onboarding",
		BlockID:   "block-cpf",
		Context:   flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         "function execute(cpf) { return digitos(cpf).length === 11 ? 'valido' : 'invalido' }",
			InputVariables: []flowjob.InputVariable{{Name: "cpf", Value: "{{cpf}}"}},
			OutputVariable: "cpfStatus",
			ErrorVariable:  "cpfErro",
			OnError:        flowjob.OnErrorBlocking,
			ErrorMessage:   "Não consegui validar o CPF {{cpf}}.",
			ErrorHandoff:   &handoff,
		},
		Variables: map[string]string{"cpf": "123.456.789-09"},
	}

	// Validate lists every broken rule, by field.
	var invalid *flowjob.ValidationError
	if err := job.Validate(); errors.As(err, &invalid) {
		for _, fe := range invalid.Errors {
			fmt.Println("fix:", fe.Field, "-", fe.Message)
		}
	}
	job.DefaultExceptionBlockID = "block-exception"
	fmt.Println("valid:", job.Validate() == nil)

	// ... publish on flowjob.JobsSubject, then read the result event from
	// flowjob.ResultSubject(job.ID):
	event := []byte(`{"version":1,"jobId":"01J9Z3Q4W5E6R7T8Y9U0I1O2P3","sessionId":"session-42",
		"flowId":"flow-onboarding","blockId":"block-cpf","context":"flow","status":"failed",
		"variables":{"cpfErro":"digitos is not defined"},
		"error":{"code":"SCRIPT_ERROR","message":"digitos is not defined","line":1,"column":34},
		"directive":{"type":"redirect","blockId":"block-exception","message":"Não consegui validar o CPF 123.456.789-09."},
		"durationMs":3,"attempt":1,"completedAt":"2026-03-01T12:00:00Z"}`)
	var res flowjob.Result
	if err := json.Unmarshal(event, &res); err != nil {
		panic(err)
	}
	for name, value := range res.Variables {
		fmt.Printf("set %s = %q\n", name, value)
	}
	switch d := res.Directive; d.Type {
	case flowjob.DirectiveContinue:
		fmt.Println("go on with the flow")
	case flowjob.DirectiveFreezeHandoff:
		fmt.Printf("freeze the session, hand it to a human, with %q\n", d.Message)
	case flowjob.DirectiveRedirect:
		fmt.Printf("send %q to the contact, go to %s\n", d.Message, d.BlockID)
	case flowjob.DirectiveThrow:
		fmt.Printf("throw %q to the caller of the Tool\n", d.Message)
	}
	// Output:
	// fix: defaultExceptionBlockId - required when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there
	// valid: true
	// set cpfErro = "digitos is not defined"
	// send "Não consegui validar o CPF 123.456.789-09." to the contact, go to block-exception
}
