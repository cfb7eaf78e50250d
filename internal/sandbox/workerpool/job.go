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

// request is what a caller asks of a worker: a job or a check (kind says
// which of job and check is set). Its frame is made once the time limit is
// known (see frame).
type request struct {
	kind  frameKind
	job   *sandbox.Request
	check *checkRequest
}

// frame returns the request's frame with the time limit set.
func (r *request) frame(timeout time.Duration) *frame {
	if r.kind == kindCheck {
		r.check.Timeout = timeout
		return &frame{Kind: kindCheck, Check: r.check}
	}
	r.job.Timeout = timeout
	return &frame{Kind: kindJob, Job: r.job}
}

// timeout is the time limit the request asks for (0: the pool's).
func (r *request) timeout() time.Duration {
	if r.kind == kindJob {
		return r.job.Timeout
	}
	return 0
}

// outcome is how a request ended: the worker's reply, or the error that
// stands for it (the worker died, was killed, or was never reached).
type outcome struct {
	reply *frame
	err   *sandbox.Error
	// logs and truncated: the console lines a job's worker left in its
	// log region when it died without answering.
	logs      []sandbox.LogEntry
	truncated bool
}

// do takes a free worker (see take) and runs req on it. A worker found dead
// on the way is skipped (runOn replaces it) and another is taken. Waiting
// for a worker until ctx ends is reported as waitErr(ctx).
func (p *Pool) do(ctx context.Context, req *request, wait bool, waitErr func(context.Context) *sandbox.Error) outcome {
	for {
		select {
		case <-p.done:
			return outcome{err: errPoolClosed()}
		default:
		}
		if ctx.Err() != nil {
			return outcome{err: waitErr(ctx)}
		}
		proc, err := p.take(ctx, wait, waitErr)
		if err != nil {
			return outcome{err: err}
		}
		if out, ran := p.runOn(ctx, proc, req); ran {
			return out
		}
	}
}

// runOn runs req on proc, which the caller took from the idle set. ran is
// false when proc turned out to have died while idle: it is being replaced
// and the caller should take another.
func (p *Pool) runOn(ctx context.Context, proc *process, req *request) (out outcome, ran bool) {
	if proc.dead() {
		proc.slot.failures.Add(1)
		p.log.Warn("sandbox worker exited while idle", "slot", proc.slot.index, "pid", proc.pid, "exit", proc.exitStatus(),
			"stderr", proc.stderr.text())
		p.replace(proc, "idle-exit")
		return outcome{}, false
	}

	timeout := p.timeoutFor(ctx, req.timeout())
	if timeout <= 0 {
		p.release(proc, false)
		return outcome{err: causeOf(ctx)}, true
	}
	f := req.frame(timeout)
	proc.nextID++
	f.ID = proc.nextID
	size, err := proc.encode(f)
	if err == nil && size > maxJobFrame(p.cfg.Limits) {
		err = p.oversized(size)
	}
	if err != nil {
		p.release(proc, false)
		se := sandbox.AsError(err)
		if se == nil {
			se = &sandbox.Error{Code: sandbox.CodeInvalidInput, Message: err.Error()}
		}
		return outcome{err: se}, true
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
	deadline := time.Now().Add(timeout)
	err = proc.write(time.Now().Add(limit))
	var reply *frame
	if err == nil {
		reply, err = p.await(ctx, proc, req, f, deadline)
	}
	timer.Stop()
	stop()

	lost := func(serr *sandbox.Error) (outcome, bool) {
		return outcome{err: serr, logs: proc.lost.logs, truncated: proc.lost.truncated}, true
	}
	switch end := ending(killedFor.Load()); {
	case err != nil && end != 0:
		return lost(p.finish(ctx, proc, req.kind, end, context.Cause(ctx)))
	case errors.Is(err, errMalformed):
		return lost(p.finish(ctx, proc, req.kind, endProtocol, err))
	case err != nil:
		return lost(p.finish(ctx, proc, req.kind, endDied, err))
	case end != 0:
		// The answer came, but the worker was killed as it arrived: it
		// has its answer, the slot gets a new worker, and the kill is
		// reported for what it was (the deadline, a cancel), not as a
		// crash: a script at its time limit paged the operator's crash
		// alert about once in a hundred such jobs.
		_ = p.finish(ctx, proc, req.kind, end, errors.New("the worker was killed as it answered"))
	case reply.Retiring != retireNone:
		p.retire(proc, reply.Retiring)
	default:
		proc.slot.failures.Store(0)
		p.release(proc, reply.Collecting)
	}
	return outcome{reply: reply}, true
}

// await reads the worker's frames until the reply that ends request f,
// answering the job's host calls on the way: each runs on the request's
// host (metered here, on the trusted side, with the run's caps) under a
// context that ends at the job's deadline, so a call still pending then
// returns and is answered SCRIPT_TIMEOUT — the worker's own deadline then
// ends the script, and the host's late answer is dropped. A frame of
// another request, or of a kind this request does not expect, is a
// protocol error.
func (p *Pool) await(ctx context.Context, proc *process, req *request, f *frame, deadline time.Time) (*frame, error) {
	want := replyKind(f.Kind)
	var host sandbox.Host
	for {
		got, err := proc.read()
		switch {
		case err != nil:
			return nil, err
		case got.ID != f.ID:
			return nil, fmt.Errorf("%w: expected the %s of %s %d, got a %s frame for request %d",
				errMalformed, want, f.Kind, f.ID, got.Kind, got.ID)
		case got.Kind == kindHostCall && f.Kind == kindJob && got.HostCall != nil:
			if host == nil {
				host = sandbox.MeterHost(req.job.Host, p.cfg.Limits)
			}
			reply := p.hostCall(ctx, host, *got.HostCall, deadline)
			proc.buf, err = appendFrame(proc.buf[:0], &frame{Kind: kindHostReply, ID: f.ID, HostReply: &reply})
			if err == nil {
				err = proc.write(deadline.Add(p.cfg.KillMargin))
			}
			if err != nil {
				return nil, err
			}
			continue
		case got.Kind != want:
			return nil, fmt.Errorf("%w: a %s frame in the middle of %s %d", errMalformed, got.Kind, f.Kind, f.ID)
		case got.Result != nil && got.Result.Err != nil && got.Result.Err.Code == "":
			return nil, fmt.Errorf("%w: an error without a code", errMalformed)
		}
		return got, nil
	}
}

// hostCall runs one host call of a job until its deadline. A host that
// does not answer by then is answered SCRIPT_TIMEOUT for it.
func (p *Pool) hostCall(ctx context.Context, host sandbox.Host, call sandbox.HostCall, deadline time.Time) sandbox.HostReply {
	hctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	reply := host.Call(hctx, call)
	if hctx.Err() != nil {
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeTimeout, Name: "TimeoutError", Message: sandbox.MsgTimeout}}
	}
	return reply
}

// timeoutFor is a request's time limit: the pool's, or the request's when
// lower, or what is left of ctx when that is lower still.
func (p *Pool) timeoutFor(ctx context.Context, reqTimeout time.Duration) time.Duration {
	t := p.cfg.Limits.Timeout
	if reqTimeout > 0 && reqTimeout < t {
		t = reqTimeout
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

// finish ends a request whose worker is dead or must die: kill it unless
// it died on its own, read why from its stderr, replace it, and return the
// request's error. Its log line names the job (sandbox.WithJobID) and,
// through ctx, the job's trace.
func (p *Pool) finish(ctx context.Context, proc *process, kind frameKind, end ending, cause error) *sandbox.Error {
	if end != endDied {
		proc.kill()
	} else if !proc.awaitExit(exitWait) {
		proc.kill() // its stdout closed but it lives on: do not trust it
	}
	if !proc.awaitExit(exitWait) {
		p.log.Error("sandbox worker did not exit after SIGKILL", "slot", proc.slot.index, "pid", proc.pid)
	}
	if kind == kindJob {
		proc.lost.logs, proc.lost.truncated = proc.readLogs(p.cfg.Limits)
	}
	serr, reason := p.verdict(proc, kind, end, cause)
	stderr := proc.stderr.text()
	if reason == "crash" || reason == "protocol" {
		// Not the script's limits: a crash loop (a broken binary, a bad
		// host) must slow down, not spin.
		proc.slot.failures.Add(1)
	}
	p.replace(proc, reason)

	attrs := []any{"slot", proc.slot.index, "pid", proc.pid, "request", kind.String(), "reason", reason}
	if id := sandbox.JobIDFrom(ctx); id != "" {
		attrs = append(attrs, "job_id", id)
	}
	switch {
	case reason == "crash" || reason == "protocol":
		p.log.WarnContext(ctx, "sandbox worker crashed; replaced", append(attrs, "code", serr.Code, "cause", cause, "exit", proc.exitStatus(), "stderr", stderr)...)
	case end == endCanceled:
		// The request's error carries a code for a caller that still reads
		// it; nothing timed out, so the line names none.
		p.log.InfoContext(ctx, "sandbox worker stopped: its request was cancelled (a shutdown, or a caller that gave up)", attrs...)
	default:
		p.log.InfoContext(ctx, "sandbox worker ended by a script's limit; replaced", append(attrs, "code", serr.Code)...)
	}
	return serr
}

// retire replaces a worker that answered and exits on purpose: a planned
// retirement, not a crash. It is not killed, its slot's back-off is reset
// (a start right away), and it is reported with the reason "retired"
// ("panic" when the worker's own code failed: a bug to look at, though the
// worker did answer). The caller has its answer already; reaping the old
// worker and starting the new one happen off its path.
func (p *Pool) retire(proc *process, why retireReason) {
	proc.slot.failures.Store(0)
	reason := "retired"
	if why == retirePanic {
		reason = "panic"
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.wg.Add(1)
	}
	p.mu.Unlock()
	if closed {
		proc.stop(time.Second)
		return
	}
	go func() {
		defer p.wg.Done()
		if !proc.awaitExit(exitWait) {
			proc.kill() // it said it would exit: it does not get to stay
			proc.awaitExit(exitWait)
		}
		attrs := []any{"slot", proc.slot.index, "pid", proc.pid, "why", why.String()}
		if why == retirePanic {
			p.log.Error("sandbox worker retired after its own code failed; replaced",
				append(attrs, "exit", proc.exitStatus(), "stderr", proc.stderr.text())...)
		} else {
			p.log.Debug("sandbox worker retired; replaced", attrs...)
		}
		p.replace(proc, reason)
	}()
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

// verdict classifies a request whose worker died. The stderr text wins: a
// worker that ran out of memory is a memory error even when the deadline
// passed too. A stack overflow while compiling (any overflow in a check, or
// one whose deepest frames are goja's parser or compiler) is a syntax
// error: the source is nested too deeply for the builder.
func (p *Pool) verdict(proc *process, kind frameKind, end ending, cause error) (*sandbox.Error, string) {
	text := proc.stderr.text()
	switch {
	case firstLine(text, memoryDeaths...) != "" || threadENOMEM(text) || runtimeFault(text):
		return memoryLimitError(p.cfg.Limits.MemoryMB), "memory"
	case firstLine(text, stackDeaths...) != "" && (kind == kindCheck || overflowedCompiling(text)):
		return &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: "SyntaxError: the source is nested too deeply to compile " +
			"(a very long chain of operators, else-ifs or unary operators): split it into smaller expressions or functions"}, "stack"
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

// compilingFrames are the functions that, on top of an overflowed stack,
// show it grew while compiling the source rather than while running it.
var compilingFrames = []string{
	"github.com/dop251/goja/parser.",
	"github.com/dop251/goja.(*compiler)",
	"github.com/dop251/goja.(*compiled",
	"github.com/flowscript/flowscript/internal/guardrails.",
}

// overflowedCompiling reports whether the goroutine whose stack overflowed
// (the first one Go's fatal error dumps) was compiling: its first frame
// outside the standard library is one of compilingFrames. The parser's own
// leaf calls (strconv, unicode, runtime) can be where the stack runs out,
// depending on a few bytes of frame size anywhere below.
func overflowedCompiling(text string) bool {
	_, rest, ok := strings.Cut(text, "\ngoroutine ")
	if !ok {
		return false
	}
	_, rest, ok = strings.Cut(rest, "\n")
	if !ok {
		return false
	}
	for line := range strings.Lines(rest) {
		if strings.TrimSpace(line) == "" {
			return false // the end of the goroutine's frames
		}
		if strings.HasPrefix(line, "\t") {
			continue // a frame's file and line
		}
		if standardLibrary(line) {
			continue
		}
		for _, prefix := range compilingFrames {
			if strings.HasPrefix(line, prefix) {
				// The parser also compiles a RegExp the script builds
				// (new RegExp): below that, the engine runs the script.
				return !runningScript(rest)
			}
		}
		return false
	}
	return false
}

// runningScript reports whether the goroutine's frames (up to the blank
// line that ends them; Go elides the middle of a deep stack but prints its
// bottom) hold the engine's interpreter loop: the script was running.
func runningScript(frames string) bool {
	for line := range strings.Lines(frames) {
		if strings.TrimSpace(line) == "" {
			return false
		}
		if strings.HasPrefix(line, "github.com/dop251/goja.(*vm).run(") {
			return true
		}
	}
	return false
}

// standardLibrary reports whether a stack frame's function line is the
// standard library's: the first element of its import path has no dot
// (runtime., strconv., internal/strconv., strings.(*Builder)...).
func standardLibrary(frame string) bool {
	name, _, _ := strings.Cut(frame, "(")
	if slash := strings.IndexByte(name, '/'); slash >= 0 {
		return !strings.Contains(name[:slash], ".")
	}
	pkg, _, _ := strings.Cut(name, ".")
	return pkg != "main"
}
