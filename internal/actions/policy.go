package actions

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/textcut"
)

// DefaultErrorMessage is sent to the contact on a blocking failure when the
// action has no errorMessage (and Policy.DefaultErrorMessage is unset). The
// platform's contacts speak Portuguese, like the seed's messages.
const DefaultErrorMessage = "Desculpe, ocorreu um erro ao processar sua solicitação."

// Policy turns a job and what happened to it into the job's result event.
// The zero value is ready to use.
type Policy struct {
	// DefaultErrorMessage replaces the package's DefaultErrorMessage when
	// not empty. It is sent as is, not interpolated.
	DefaultErrorMessage string
	// Now stamps CompletedAt; nil means time.Now. Tests set it.
	Now func() time.Time
}

// Mode is the column of the error table (DESIGN.md §4) a job's failure
// falls in.
type Mode string

const (
	// ModeContinue: outputVariable = "", errorVariable = message, go on.
	ModeContinue Mode = "continue"
	// ModeHandoff: freeze the session and hand it off to a human.
	ModeHandoff Mode = "handoff"
	// ModeRedirect: send the message, go to defaultExceptionBlockId.
	ModeRedirect Mode = "redirect"
	// ModeThrow: rethrow to the caller of the Tool.
	ModeThrow Mode = "throw"
)

// ModeOf returns the mode of a failure of job. A job that breaks the rules
// ModeOf reads (unknown onError or context, a redirect with no exception
// block) falls back to ModeThrow in a Tool and ModeHandoff otherwise.
func ModeOf(job *flowjob.Job) Mode { return modeOf(job, anyField) }

// usable reports whether a job's field (a JSON path) can be trusted.
type usable func(field string) bool

func anyField(string) bool { return true }

func modeOf(job *flowjob.Job, ok usable) Mode {
	a := &job.Action
	blocking := a.OnError == flowjob.OnErrorBlocking && ok("action.onError")
	switch {
	case a.OnError == flowjob.OnErrorContinue && ok("action.onError") &&
		a.OutputVariable != "" && ok("action.outputVariable") && ok("action.errorVariable"):
		return ModeContinue
	case job.Context == flowjob.ContextTool && ok("context"):
		return ModeThrow
	case blocking && job.Context == flowjob.ContextFlow && ok("context") &&
		!a.Handoff() && ok("action.errorHandoff") &&
		job.DefaultExceptionBlockID != "" && ok("defaultExceptionBlockId"):
		return ModeRedirect
	default:
		return ModeHandoff
	}
}

// Decide is the one decision on a delivery: the job's result event from
// the report (r.Err nil is success; otherwise the failure's code, message
// and position, with the job's mode deciding the directive), whether there
// is an id to answer under, and whether the job is dead-lettered. job may
// be nil (a message that was not a job) and should otherwise have passed
// Validate; a job that did not is decided with BadInput, and still gets a
// result that never redirects to nowhere (see ModeOf).
func (p Policy) Decide(job *flowjob.Job, r Report, opts ...Option) Verdict {
	var d decision
	for _, opt := range opts {
		opt(&d)
	}
	if job == nil {
		job = &flowjob.Job{}
	}
	ok := anyField
	if d.invalid != nil {
		ok = usableFields(job, d.invalid)
	}
	var fail *flowjob.Error
	if r.Err != nil {
		f := *r.Err
		f.Message, _ = textcut.Cut(f.Message, flowjob.MaxErrorMessageBytes)
		fail = &f
	}
	var res flowjob.Result
	if r.Suspend != nil && fail == nil {
		res = p.suspended(job, r)
	} else {
		res = p.decide(job, r.Output, fail, r.Duration, r.Attempt, ok)
	}
	res.Logs, res.LogsTruncated = r.Logs, r.LogsTruncated
	if d.invalid != nil {
		for field, id := range map[string]*string{"id": &res.JobID, "sessionId": &res.SessionID,
			"flowId": &res.FlowID, "blockId": &res.BlockID, "context": (*string)(&res.Context)} {
			if !ok(field) {
				*id = ""
			}
		}
	}
	if !flowjob.ValidID(res.JobID) && flowjob.ValidID(d.fallbackID) {
		res.JobID = d.fallbackID
	}
	return Verdict{
		Result:     res,
		Answer:     flowjob.ValidID(res.JobID),
		DeadLetter: fail != nil && deadLetterCodes[fail.Code],
	}
}

// usableFields reports which fields of a bad job can be trusted: those that
// neither the decoder (reported) nor the rules (Validate) named. A problem
// of the whole document (not JSON, too large) distrusts every field but
// the ids: the only fields such a job holds are the ids flowjob.Salvage
// read as strings, and Validate still vets their values.
func usableFields(job *flowjob.Job, reported error) usable {
	var decoded, found *flowjob.ValidationError
	errors.As(reported, &decoded)
	errors.As(job.Validate(), &found)
	return func(field string) bool {
		if found != nil && found.Has(field) {
			return false
		}
		if decoded == nil {
			return true
		}
		if !ids[field] {
			return !decoded.Has(field)
		}
		return !names(decoded, field)
	}
}

// names reports whether a problem of e names field or a field inside it
// (a problem of the whole document names none).
func names(e *flowjob.ValidationError, field string) bool {
	for _, fe := range e.Errors {
		if fe.Field == field || strings.HasPrefix(fe.Field, field+".") || strings.HasPrefix(fe.Field, field+"[") {
			return true
		}
	}
	return false
}

// ids are the fields that address a result.
var ids = map[string]bool{"id": true, "sessionId": true, "flowId": true, "blockId": true, "context": true}

// decide is the table of DESIGN.md §4: fail nil is success, otherwise one
// switch over the mode gives the variables and the directive.
func (p Policy) decide(job *flowjob.Job, output string, fail *flowjob.Error, took time.Duration, attempt int, ok usable) flowjob.Result {
	a := &job.Action
	r := p.envelope(job, took, attempt)
	if fail == nil {
		r.Status = flowjob.StatusSucceeded
		set(r.Variables, a.OutputVariable, output)
		r.Directive = flowjob.Directive{Type: flowjob.DirectiveContinue}
		return r
	}
	r.Status, r.Error = flowjob.StatusFailed, fail
	provenance(&r, job, ok)
	errorVariable := a.ErrorVariable
	if !ok("action.errorVariable") {
		errorVariable = ""
	}
	switch modeOf(job, ok) {
	case ModeContinue:
		set(r.Variables, a.OutputVariable, "")
		set(r.Variables, errorVariable, fail.Message)
		r.Directive = flowjob.Directive{Type: flowjob.DirectiveContinue}
	case ModeRedirect:
		set(r.Variables, errorVariable, fail.Message)
		r.Directive = flowjob.Directive{Type: flowjob.DirectiveRedirect, BlockID: job.DefaultExceptionBlockID,
			Message: p.message(job, errorVariable, fail.Message, ok)}
	case ModeThrow:
		r.Directive = flowjob.Directive{Type: flowjob.DirectiveThrow, Message: fail.Message}
	case ModeHandoff:
		set(r.Variables, errorVariable, fail.Message)
		r.Directive = flowjob.Directive{Type: flowjob.DirectiveFreezeHandoff,
			Message: p.message(job, errorVariable, fail.Message, ok)}
	}
	return r
}

// provenance stamps a failed result with what failed: the SHA-256 of the
// source the job carried and the template (and version) it names, each
// only when the job's field is usable.
func provenance(r *flowjob.Result, job *flowjob.Job, ok usable) {
	if job.Action.Source != "" && ok("action.source") {
		r.SourceSHA256 = flowjob.SourceSHA256(job.Action.Source)
	}
	if job.TemplateID != "" && ok("templateId") {
		r.TemplateID = job.TemplateID
		if job.TemplateVersion > 0 && ok("templateVersion") {
			r.TemplateVersion = job.TemplateVersion
		}
	}
}

// suspended is the result of a run that asked for approval: nothing but
// the directive (suspend, with the request) and the continuation is final,
// so no variable is set and the error policy does not apply.
func (p Policy) suspended(job *flowjob.Job, r Report) flowjob.Result {
	res := p.envelope(job, r.Duration, r.Attempt)
	res.Status = flowjob.StatusSuspended
	res.Directive = flowjob.Directive{Type: flowjob.DirectiveSuspend, Request: r.Suspend.Request}
	if len(res.Directive.Request) == 0 {
		res.Directive.Request = json.RawMessage("null")
	}
	res.Continuation = r.Suspend.Continuation
	return res
}

// envelope is a result with the job's ids and the run's facts, no outcome.
func (p Policy) envelope(job *flowjob.Job, took time.Duration, attempt int) flowjob.Result {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	return flowjob.Result{
		Version:     flowjob.ContractVersion,
		JobID:       job.ID,
		SessionID:   job.SessionID,
		FlowID:      job.FlowID,
		BlockID:     job.BlockID,
		Context:     job.Context,
		Variables:   map[string]string{},
		DurationMs:  took.Milliseconds(),
		Attempt:     attempt,
		CompletedAt: now().UTC(),
	}
}

// message is the text a blocking failure sends the contact: errorMessage
// interpolated with errorVariable holding the failure's message, or the
// default when there is none, it is broken, or it comes out blank.
func (p Policy) message(job *flowjob.Job, errorVariable, failure string, ok usable) string {
	if tmpl := job.Action.ErrorMessage; tmpl != "" && ok("action.errorMessage") {
		lookup := func(name string) string {
			if errorVariable != "" && name == errorVariable {
				return failure
			}
			return job.Variables[name]
		}
		if msg, _ := expand(tmpl, lookup, flowjob.MaxErrorMessageBytes); strings.TrimSpace(msg) != "" {
			return msg
		}
	}
	if p.DefaultErrorMessage != "" {
		return p.DefaultErrorMessage
	}
	return DefaultErrorMessage
}

func set(vars map[string]string, name, value string) {
	if name != "" {
		vars[name] = value
	}
}
