package actions

import (
	"encoding/json"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Report is what one delivery of a job came to, whatever the branch that
// ended it (bad input, a passed deadline, the sandbox's run, deliveries
// exhausted): the script's output, or a failure with its code, message and
// position. Decide turns it into the job's result event.
type Report struct {
	// Output is the script's serialized result when Err is nil.
	Output string
	// Err is why the job failed; nil when the script succeeded.
	Err *flowjob.Error
	// Duration is how long the script ran; 0 when it did not run.
	Duration time.Duration
	// Attempt is the delivery that produced the report (1 for the first).
	Attempt int
	// Logs are the script's console lines (success or not); LogsTruncated
	// says some were left out.
	Logs          []flowjob.LogEntry
	LogsTruncated bool
	// Suspend is set when the script asked for approval (DESIGN.md §10)
	// and its journal is stored: the result is suspended, not final.
	Suspend *Suspend
}

// Suspend is a run stopped by approval.request, ready to resume.
type Suspend struct {
	// Request is what the script asked ({message, data}, or null).
	Request json.RawMessage
	// Continuation is the signed token a resume job carries.
	Continuation string
}

// Ran is the report of a sandbox run. A sandbox refusal of the request
// itself (INVALID_SCRIPT_INPUT: a source or inputs over this executor's
// caps) is reported as INVALID_JOB: the job broke the contract.
func Ran(res sandbox.Result, attempt int) Report {
	r := Report{Output: res.Output, Duration: res.Duration, Attempt: attempt, LogsTruncated: res.LogsTruncated}
	if e := res.Err; e != nil {
		code := string(e.Code)
		if e.Code == sandbox.CodeInvalidInput {
			code = flowjob.CodeInvalidJob
		}
		r.Output = ""
		r.Err = &flowjob.Error{Code: code, Message: e.Message, Line: e.Line, Column: e.Column, Reason: e.Reason}
	}
	r.Logs = LogsOf(res.Logs)
	return r
}

// LogsOf is a run's console lines as a result event carries them (nil for
// none).
func LogsOf(logs []sandbox.LogEntry) []flowjob.LogEntry {
	if len(logs) == 0 {
		return nil
	}
	out := make([]flowjob.LogEntry, len(logs))
	for i, l := range logs {
		out[i] = flowjob.LogEntry{Level: flowjob.LogLevel(l.Level), Message: l.Message, Line: l.Line}
	}
	return out
}

// Failed is the report of a job that failed for a reason that is not its
// script's: bad input (flowjob.CodeInvalidJob), a passed deadline
// (flowjob.CodeDeadlineExceeded), deliveries exhausted
// (flowjob.CodeDeliveryExhausted).
func Failed(code, message string, attempt int) Report {
	return Report{Err: &flowjob.Error{Code: code, Message: message}, Attempt: attempt}
}
