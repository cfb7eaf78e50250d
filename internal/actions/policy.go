package actions

import (
	"strings"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
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

// Decide returns the result event of a job the sandbox ran (or refused):
// out.Err nil is success; otherwise the failure's code, message and
// position are copied and the job's mode decides the directive. attempt is
// the delivery that ran it (1 for the first). job should have passed
// Validate; a job that did not still gets a result that never redirects to
// nowhere (see ModeOf).
//
// A caller that failed a job without running it (deadline passed,
// deliveries exhausted) passes an out whose Err carries its own code, such
// as sandbox.Code(flowjob.CodeDeadlineExceeded). INVALID_SCRIPT_INPUT from
// the sandbox (inputs or source over this executor's caps) is reported as
// INVALID_JOB.
func (p Policy) Decide(job *flowjob.Job, out sandbox.Result, attempt int) flowjob.Result {
	if job == nil {
		job = &flowjob.Job{}
	}
	var fail *flowjob.Error
	if out.Err != nil {
		msg, _ := cut(out.Err.Message, flowjob.MaxErrorMessageBytes)
		fail = &flowjob.Error{Code: codeOf(out.Err.Code), Message: msg, Line: out.Err.Line, Column: out.Err.Column}
	}
	return p.decide(job, out.Output, fail, out.Duration, attempt, anyField)
}

func codeOf(c sandbox.Code) string {
	if c == sandbox.CodeInvalidInput {
		return flowjob.CodeInvalidJob
	}
	return string(c)
}

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
