package actions

import (
	"errors"

	"github.com/flowscript/flowscript/flowjob"
)

// InvalidJobResult is the result event of a job that broke the contract
// (err, usually from flowjob.Decode, which returns the job as far as it
// decoded): status failed, code INVALID_JOB, err's text as the message. It
// reports false when there is no one to answer: the job has no usable id
// (one that names a result subject) or no usable session id.
//
// The directive is the policy's, using only fields that broke no rule; when
// the action cannot be applied faithfully the directive is throw in a Tool
// and freeze_handoff otherwise (see the package doc). Ids that broke a rule
// are left out of the result.
func (p Policy) InvalidJobResult(job *flowjob.Job, err error, attempt int) (flowjob.Result, bool) {
	if job == nil || !flowjob.ValidID(job.ID) || job.SessionID == "" || len(job.SessionID) > flowjob.MaxRefBytes {
		return flowjob.Result{}, false
	}
	var reported, found *flowjob.ValidationError
	errors.As(err, &reported)
	errors.As(job.Validate(), &found)
	ok := func(field string) bool {
		return (reported == nil || !reported.Has(field)) && (found == nil || !found.Has(field))
	}

	text := "invalid job"
	if err != nil {
		text = err.Error()
	}
	text, _ = cut(text, flowjob.MaxErrorMessageBytes)
	fail := &flowjob.Error{Code: flowjob.CodeInvalidJob, Message: text}

	r := p.decide(job, "", fail, 0, attempt, ok)
	for field, id := range map[string]*string{"flowId": &r.FlowID, "blockId": &r.BlockID, "context": (*string)(&r.Context)} {
		if !ok(field) {
			*id = ""
		}
	}
	return r, true
}
