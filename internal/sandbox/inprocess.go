package sandbox

import (
	"context"
	"time"
)

// InProcess runs scripts in this process, at most Limits.MaxParallel at a
// time. It is the trusted-code path — unit tests, tools, the builder's own
// checks — and never a boundary for hostile scripts: see Execute.
type InProcess struct {
	limits Limits
	slots  chan struct{}
}

// NewInProcess returns an in-process runner with l's limits (defaults
// applied).
func NewInProcess(l Limits) *InProcess {
	l = l.WithDefaults()
	return &InProcess{limits: l, slots: make(chan struct{}, l.MaxParallel)}
}

// Limits returns the runner's limits.
func (p *InProcess) Limits() Limits { return p.limits }

// Run waits for a free slot (or the end of ctx, reported as CodeTimeout) and
// runs req.
func (p *InProcess) Run(ctx context.Context, req Request) Result {
	start := time.Now()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return Result{Err: causeOf(ctx), Duration: time.Since(start)}
	}
	defer func() { <-p.slots }()
	return Execute(ctx, p.limits, req)
}

// TryRun runs req only if a slot is free now; otherwise it fails at once
// with CodeBusy and the seed's message.
func (p *InProcess) TryRun(ctx context.Context, req Request) Result {
	select {
	case p.slots <- struct{}{}:
	default:
		return Result{Err: &Error{Code: CodeBusy, Message: BusyMessage(p.limits.MaxParallel)}}
	}
	defer func() { <-p.slots }()
	return Execute(ctx, p.limits, req)
}
