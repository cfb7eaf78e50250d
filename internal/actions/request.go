package actions

import (
	"math"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Request builds the sandbox request of a validated job: the source, the
// inputs in the order of action.inputVariables with their values
// interpolated from the job's variables, and the time limit. The limit is
// maxTimeout (the executor's SANDBOX_TIMEOUT_MS), or the job's timeoutMs
// when that is positive and lower: a job can shorten its limit, never raise
// it. Validate bounds the interpolated size, so a validated job cannot make
// Request build huge strings.
func Request(job *flowjob.Job, maxTimeout time.Duration) sandbox.Request {
	req := sandbox.Request{Timeout: maxTimeout}
	if job == nil {
		return req
	}
	req.Source = job.Action.Source
	if n := len(job.Action.InputVariables); n > 0 {
		req.Inputs = make([]sandbox.Input, n)
		for i, in := range job.Action.InputVariables {
			req.Inputs[i] = sandbox.Input{Name: in.Name, Value: Interpolate(in.Value, job.Variables)}
		}
	}
	if ms := int64(job.TimeoutMs); ms > 0 && (maxTimeout <= 0 || ms < maxTimeout.Milliseconds()) {
		req.Timeout = time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
	}
	return req
}
