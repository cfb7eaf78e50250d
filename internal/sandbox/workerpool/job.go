package workerpool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// ending is how the parent stopped waiting for a job's answer.
type ending int

const (
	endDied     ending = iota + 1 // stdout closed: the worker exited on its own (or was killed by Close)
	endDeadline                   // the deadline plus KillMargin passed: killed
	endCanceled                   // the caller's context was cancelled: killed
	endProtocol                   // a malformed or unexpected frame: killed
)

// exitWait bounds how long the parent waits for a dead or killed worker to
// be reaped and its stderr read before it reports the job anyway.
const exitWait = 2 * time.Second

// runOn runs req on proc, which the caller took from the idle set. ran is
// false when proc turned out to have died while idle: it is being replaced
// and the caller should take another.
func (p *Pool) runOn(ctx context.Context, proc *process, req sandbox.Request, start time.Time) (res sandbox.Result, ran bool) {
	if proc.dead() {
		proc.slot.failures.Add(1)
		p.log.Warn("sandbox worker exited while idle", "slot", proc.slot.index, "pid", proc.pid, "exit", proc.exitStatus(),
			"stderr", proc.stderr.text())
		p.replace(proc, "idle-exit")
		return sandbox.Result{}, false
	}

	timeout := p.timeoutFor(ctx, req)
	if timeout <= 0 {
		p.release(proc)
		return sandbox.Result{Err: causeOf(ctx), Duration: time.Since(start)}, true
	}
	req.Timeout = timeout
	proc.nextID++
	job := &frame{Kind: kindJob, ID: proc.nextID, Job: &req}
	size, err := proc.encode(job)
	if err == nil && size > maxJobFrame(p.cfg.Limits) {
		err = p.oversized(size)
	}
	if err != nil {
		p.release(proc)
		se := sandbox.AsError(err)
		if se == nil {
			se = &sandbox.Error{Code: sandbox.CodeInvalidInput, Message: err.Error()}
		}
		return sandbox.Result{Err: se, Duration: time.Since(start)}, true
	}

	proc.stderr.reset()
	proc.busy.Store(true)
	// The hard limit: kill the worker KillMargin after the deadline, or at
	// once when the caller cancels. The kill also ends the blocking read.
	// A ctx deadline needs no kill of its own: the timeout was shortened to
	// it, so the timer already covers it with the same margin.
	var killedFor atomic.Int32
	killFor := func(end ending) {
		if killedFor.CompareAndSwap(0, int32(end)) {
			proc.kill()
		}
	}
	limit := timeout + p.cfg.KillMargin
	timer := time.AfterFunc(limit, func() { killFor(endDeadline) })
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			killFor(endCanceled)
		}
	})
	err = proc.write(time.Now().Add(limit))
	var f *frame
	if err == nil {
		f, err = proc.read()
	}
	timer.Stop()
	stop()

	switch end := ending(killedFor.Load()); {
	case err != nil && end != 0:
		return p.finish(proc, end, context.Cause(ctx), start), true
	case errors.Is(err, errMalformed):
		return p.finish(proc, endProtocol, err, start), true
	case err != nil:
		return p.finish(proc, endDied, err, start), true
	case f.Kind != kindResult || f.ID != job.ID || f.Result == nil:
		err := fmt.Errorf("%w: expected the result of job %d, got a %q frame for job %d", errMalformed, job.ID, f.Kind, f.ID)
		return p.finish(proc, endProtocol, err, start), true
	case f.Result.Err != nil && f.Result.Err.Code == "":
		return p.finish(proc, endProtocol, fmt.Errorf("%w: an error without a code", errMalformed), start), true
	case end != 0 || f.Exiting:
		// The answer came, but the worker is going away: killed as the
		// answer arrived, or exiting after a recovered panic. The job has
		// its result, the slot gets a new worker.
		p.finish(proc, endDied, errors.New("the worker ended after answering"), start)
		return *f.Result, true
	}
	proc.slot.failures.Store(0)
	p.release(proc)
	return *f.Result, true
}

// timeoutFor is the job's time limit: the pool's, or the request's when
// lower, or what is left of ctx when that is lower still.
func (p *Pool) timeoutFor(ctx context.Context, req sandbox.Request) time.Duration {
	t := p.cfg.Limits.Timeout
	if req.Timeout > 0 && req.Timeout < t {
		t = req.Timeout
	}
	if dl, ok := ctx.Deadline(); ok {
		t = min(t, time.Until(dl))
	}
	return t
}

// oversized is the error for a request too big to send: the worker would
// refuse the frame. Requests within the caps always fit; the worker reports
// caps exceeded by less with its usual message.
func (p *Pool) oversized(size int) error {
	l := p.cfg.Limits
	return &sandbox.Error{Code: sandbox.CodeInvalidInput, Message: fmt.Sprintf(
		"the source and input variables take %d bytes, far over SANDBOX_MAX_SOURCE_BYTES (%d) and SANDBOX_MAX_INPUT_BYTES (%d)",
		size, l.MaxSourceBytes, l.MaxInputBytes)}
}

// finish ends a job whose worker is dead or must die: kill it unless it
// died on its own, read why from its stderr, report the job, replace it.
func (p *Pool) finish(proc *process, end ending, cause error, start time.Time) sandbox.Result {
	if end != endDied {
		proc.kill()
	} else if !proc.awaitExit(exitWait) {
		proc.kill() // its stdout closed but it lives on: do not trust it
	}
	if !proc.awaitExit(exitWait) {
		p.log.Error("sandbox worker did not exit after SIGKILL", "slot", proc.slot.index, "pid", proc.pid)
	}
	serr, reason := p.verdict(proc, end, cause)
	stderr := proc.stderr.text()
	if reason == "crash" || reason == "protocol" {
		// Not the script's limits: a crash loop (a broken binary, a bad
		// host) must slow down, not spin.
		proc.slot.failures.Add(1)
	}
	p.replace(proc, reason)

	attrs := []any{"slot", proc.slot.index, "pid", proc.pid, "reason", reason, "code", serr.Code}
	if reason == "crash" || reason == "protocol" {
		p.log.Warn("sandbox worker crashed; replaced", append(attrs, "cause", cause, "exit", proc.exitStatus(), "stderr", stderr)...)
	} else {
		p.log.Info("sandbox worker ended by a script's limit; replaced", attrs...)
	}
	return sandbox.Result{Err: serr, Duration: time.Since(start)}
}

// Stderr lines (prefixes) that name why a worker died.
var (
	memoryDeaths = []string{
		"fatal error: runtime: out of memory",
		"fatal error: out of memory",
		"runtime: out of memory",
		"fatal error: runtime: cannot allocate memory",
		stderrMemoryTrip,
		stderrMemoryHard,
	}
	stackDeaths = []string{
		"runtime: goroutine stack exceeds",
		"fatal error: stack overflow",
	}
	crashLines = []string{"fatal error:", "panic:", "flowscript-worker:", "runtime:"}
)

// verdict classifies a job whose worker died. The stderr text wins: a worker
// that ran out of memory is a memory error even when the deadline passed
// too.
func (p *Pool) verdict(proc *process, end ending, cause error) (*sandbox.Error, string) {
	text := proc.stderr.text()
	switch {
	case firstLine(text, memoryDeaths...) != "" || threadENOMEM(text) || runtimeFault(text):
		return memoryLimitError(p.cfg.Limits.MemoryMB), "memory"
	case firstLine(text, stackDeaths...) != "":
		return &sandbox.Error{Code: sandbox.CodeScriptError, Message: "RangeError: Maximum call stack size exceeded"}, "stack"
	case end == endDeadline:
		return &sandbox.Error{Code: sandbox.CodeTimeout, Message: sandbox.MsgTimeout}, "timeout"
	case end == endCanceled:
		if se := sandbox.AsError(cause); se != nil {
			c := *se
			return &c, "canceled"
		}
		return &sandbox.Error{Code: sandbox.CodeTimeout, Message: sandbox.MsgTimeout}, "canceled"
	case p.isClosed():
		return errPoolClosed(), "closed"
	case end == endProtocol:
		return &sandbox.Error{Code: sandbox.CodeCrash,
			Message: "the sandbox worker sent a malformed reply and was replaced: retry the script"}, "protocol"
	}
	why := firstLine(text, crashLines...)
	if why == "" {
		why = fmt.Sprint(cause)
	}
	return &sandbox.Error{Code: sandbox.CodeCrash,
		Message: fmt.Sprintf("the sandbox worker exited unexpectedly (%s) and was replaced: retry the script", why)}, "crash"
}

// threadENOMEM: the runtime could not create a thread for lack of memory.
func threadENOMEM(text string) bool {
	line := firstLine(text, "runtime: failed to create new OS thread")
	return line != "" && strings.Contains(line, "errno=12")
}

// runtimeFault reports a fatal signal inside the Go runtime itself (not a
// panic: a nil dereference in Go code is a "panic:" that the worker
// recovers). A pure-Go worker faults there when an allocation the runtime
// does not check fails at the OS memory limit: Go 1.26's green-tea GC maps
// its span queues with an unchecked sysAlloc (runtime/mgcmark_greenteagc.go,
// newSpanSPMC) and then writes through the nil pointer.
func runtimeFault(text string) bool {
	if !strings.HasPrefix(text, "SIGSEGV: segmentation violation") && !strings.HasPrefix(text, "SIGBUS: bus error") {
		return false
	}
	// The first frame follows the first "goroutine N ...:" line.
	_, rest, ok := strings.Cut(text, "\ngoroutine ")
	if !ok {
		return false
	}
	_, rest, ok = strings.Cut(rest, "\n")
	return ok && strings.HasPrefix(rest, "runtime.")
}
