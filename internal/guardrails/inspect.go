package guardrails

import (
	"context"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// Report is the save-time verdict on a source: what the sandbox's program
// builder says of it and what the guardrails found.
type Report struct {
	// Compile is the builder's error: nil when the source compiles; else
	// CodeSyntaxError with the author's line and column, or
	// CodeInvalidInput (an empty or oversized source, a bad input name).
	Compile *sandbox.Error `json:"compile,omitempty"`
	// Findings, sorted by position, at most MaxFindings.
	Findings []Finding `json:"findings"`
	// Parse is the guardrails' own syntax error: nil when they could read
	// the source. Set while Compile is nil, it means the builder accepted
	// what the guardrails' wrapper could not parse (a source that closes
	// the function it runs in and goes on outside it).
	Parse *sandbox.Error `json:"parse,omitempty"`
	// Uses are the capabilities and connectors the source needs granted;
	// empty when the guardrails could not read it.
	Uses Uses `json:"uses"`
}

// Inspect compiles source with the sandbox's builder (sandbox.Validate:
// nothing is cached) and runs Scan on it, with the input names in order
// (nil at save time).
//
// It runs goja's parser in this process. A hostile source can make the
// parser or the compiler take seconds or gigabytes, or end the process with
// a stack overflow that recover cannot catch: call Inspect only inside a
// sandbox worker, which is what workerpool.Pool.Check does, or on trusted
// text (tests, tools). Services use a Checker.
func Inspect(source string, inputNames []string, l sandbox.Limits) Report {
	var r Report
	if err := sandbox.Validate(source, inputNames, l); err != nil {
		r.Compile = sandbox.AsError(err)
	}
	if r.Compile != nil && r.Compile.Code == sandbox.CodeInvalidInput {
		r.Findings = []Finding{}
		r.Uses = uses{}.result()
		return r // nothing to look at: empty, oversized, or bad names
	}
	findings, u, err := Scan(source, inputNames)
	if findings == nil {
		findings = []Finding{}
	}
	r.Findings, r.Uses = findings, u
	r.Parse = sandbox.AsError(err)
	return r
}

// CheckRequest is a source to check without running it.
type CheckRequest struct {
	Source string
	// InputNames are the generated execute's parameters, in order; nil at
	// save time (a template is saved without inputs).
	InputNames []string
}

// CheckResult is the outcome of a check: exactly one of Report (the check
// ran) or Err (it could not finish) is meaningful. Err is a *sandbox.Error:
// SANDBOX_BUSY when no worker was free before the context ended,
// SCRIPT_TIMEOUT or SCRIPT_MEMORY_LIMIT when compiling the source took more
// than the sandbox's limits (the source's doing), SANDBOX_CRASH when the
// worker died for a reason nobody could tell (retryable once).
type CheckResult struct {
	Report   Report
	Err      *sandbox.Error
	Duration time.Duration
}

// A Checker compiles and inspects sources without running them. The worker
// pool (workerpool.Pool) is the one to give a service: it runs Inspect in a
// sandbox worker, under the sandbox's time, memory and stack limits.
type Checker interface {
	Check(ctx context.Context, req CheckRequest) CheckResult
}

// InProcess is a Checker that runs Inspect in this process, at most
// Limits.MaxParallel at a time: for tests and tools, on trusted text only
// (see Inspect).
type InProcess struct {
	limits sandbox.Limits
	slots  chan struct{}
}

// NewInProcess returns an in-process checker with l's limits (defaults
// applied).
func NewInProcess(l sandbox.Limits) *InProcess {
	l = l.WithDefaults()
	return &InProcess{limits: l, slots: make(chan struct{}, l.MaxParallel)}
}

// Check waits for a slot until ctx ends (SANDBOX_BUSY), then inspects.
func (c *InProcess) Check(ctx context.Context, req CheckRequest) CheckResult {
	start := time.Now()
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return CheckResult{Err: &sandbox.Error{Code: sandbox.CodeBusy, Message: sandbox.BusyMessage(c.limits.MaxParallel)},
			Duration: time.Since(start)}
	}
	defer func() { <-c.slots }()
	return CheckResult{Report: Inspect(req.Source, req.InputNames, c.limits), Duration: time.Since(start)}
}

var _ Checker = (*InProcess)(nil)
