package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// errAsync: the script returned a Promise (an async execute).
var errAsync = &Error{Code: CodeAsyncUnsupported, Message: MsgAsyncUnsupported}

// divergedNext ends the message of a resumed run that did not replay its
// journal with what it means and what to do.
const divergedNext = ". The continuation is used: run the step again from the start, and keep the script the same up to its last approval.request " +
	"(the same host calls with the same arguments, and Date and Math.random read as often)"

// errTimedOut is the cause of a context that ended at the script's deadline.
var errTimedOut = &Error{Code: CodeTimeout, Message: MsgTimeout}

// Execute runs one request in a fresh runtime of this process, with no
// concurrency limit: it is what a worker process calls for each job, and
// what tools use for trusted code.
//
// It is NOT a security boundary for hostile code. Runtime.Interrupt is only
// seen between bytecode instructions, so native built-ins (a huge repeat, a
// sort, a backtracking regex) run on past the deadline, and some one-line
// scripts end the whole Go process. Untrusted scripts go through the worker
// pool (internal/sandbox/workerpool), which runs Execute in a killable
// process with an OS memory limit.
//
// The time limit is l.Timeout, or req.Timeout when lower. When ctx ends
// first the script is interrupted; if ctx was cancelled with a *Error cause
// (context.WithCancelCause), that error is the result — a worker's heap
// watchdog reports CodeMemoryLimit this way. Any other end of ctx reports
// CodeTimeout.
//
// The run's host calls go to MeterHost(req.Host, l): a caller that answers
// host calls itself (the worker pool's parent) meters them again on its
// side. Its console lines come back in the result, success or not.
func Execute(ctx context.Context, l Limits, req Request) Result {
	start := time.Now()
	var h *hostState
	out, err := execute(ctx, l, req, &h)
	res := Result{Output: out, Err: err, Duration: time.Since(start)}
	if h != nil {
		res.Logs, res.LogsTruncated = h.logs.kept()
		if h.journal != nil && h.journal.suspended != nil && err == nil {
			res.Output, res.Suspended = "", h.journal.suspended
		}
	}
	return res
}

func execute(ctx context.Context, l Limits, req Request, hp **hostState) (string, *Error) {
	if err := checkInputs(req.Inputs, l); err != nil {
		return "", err
	}
	names := make([]string, len(req.Inputs))
	values := make([]string, len(req.Inputs))
	for i, in := range req.Inputs {
		names[i], values[i] = in.Name, in.Value
	}
	prog, err := CompileWithLimits(req.Source, names, l)
	if err != nil {
		return "", AsError(err)
	}
	timeout := l.Timeout
	if req.Timeout > 0 && req.Timeout < timeout {
		timeout = req.Timeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer cancel()
	var host Host
	if req.Host != nil {
		host = MeterHost(req.Host, l)
	}
	h := &hostState{ctx: ctx, host: host, grants: req.Capabilities,
		logs: logBook{maxEntries: l.MaxLogEntries, maxBytes: l.MaxLogBytes, mirror: req.Logs}}
	h.position = prog.position
	if slices.Contains(req.Capabilities, "approval") || len(req.Journal) > 0 {
		replay, jerr := decodeJournal(req.Journal)
		if jerr != nil {
			return "", &Error{Code: CodeContinuationDiverged, Message: jerr.Error()}
		}
		h.journal = &recorder{replay: replay, resolution: req.Resolution}
		h.logs.replaying = len(replay) > 0
	}
	*hp = h
	return prog.run(ctx, l, values, h)
}

func checkInputs(inputs []Input, l Limits) *Error {
	total := 0
	for _, in := range inputs {
		total += len(in.Name) + len(in.Value)
	}
	if total > l.MaxInputBytes {
		return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf(
			"input variables total %d bytes, over the limit of %d (SANDBOX_MAX_INPUT_BYTES)", total, l.MaxInputBytes)}
	}
	return nil
}

// run executes the program in a fresh runtime until it returns or ctx ends.
//
// The result is taken when the script's execute returns, and serialized at
// once: nothing of the script runs after that. Promise callbacks the script
// queued never run (the runtime's job queue is never drained: see vm), and
// a result that is only ready after the deadline is a timeout, whatever it
// is — a native built-in that gave up at a limit of its own (a regular
// expression engine's, say) cannot turn into a wrong answer that way.
func (p *Program) run(ctx context.Context, l Limits, values []string, h *hostState) (string, *Error) {
	if ctx.Err() != nil {
		return "", causeOf(ctx)
	}
	v, err := newVMFor(l, p.features)
	if err == nil {
		err = v.installHost(h, p.features.host)
	}
	if err != nil {
		return "", &Error{Code: CodeCrash, Message: "starting the JavaScript runtime: " + err.Error()}
	}
	stop := context.AfterFunc(ctx, func() { v.rt.Interrupt(errTimedOut) })
	defer stop()

	out, err := p.call(v, values)
	var stopped *goja.InterruptedError
	if errors.As(err, &stopped) {
		if e, ok := h.journalStop(stopped); ok {
			return "", e
		}
	}
	if err != nil {
		e := h.locate(p.classify(ctx, v, l, err))
		if e == errSuspended {
			return "", nil
		}
		if e.Code == CodeScriptError && h.journal != nil && h.journal.pos < len(h.journal.replay) {
			// The suspended run went past this point without throwing: the
			// replay took another way.
			return "", &Error{Code: CodeContinuationDiverged, Message: fmt.Sprintf(
				"the resumed run threw %s at line %d after %d of the %d events of its journal, where the suspended run went on: the replay took another way%s",
				e.Message, e.Line, h.journal.pos, len(h.journal.replay), divergedNext), Line: e.Line, Column: e.Column}
		}
		return "", e
	}
	if h.journal != nil && h.journal.pos < len(h.journal.replay) {
		return "", &Error{Code: CodeContinuationDiverged, Message: fmt.Sprintf(
			"the resumed run ended after %d of the %d events of its journal%s", h.journal.pos, len(h.journal.replay), divergedNext)}
	}
	if ctx.Err() != nil {
		return "", h.locate(causeOf(ctx))
	}
	return p.checkOutput(out, l)
}

// call runs the assembled program, calls the generated execute with the
// input values (primitive strings: nothing of Go is reachable from the VM),
// then the author's own execute when the tail hands it back, and
// serializes the result inside the VM. Go makes every call, so the script's
// stack traces hold its own frames only.
func (p *Program) call(v *vm, values []string) (*output, error) {
	var factory goja.Value
	if err := v.try(func() {
		var err error
		if factory, err = v.rt.RunProgram(p.prog); err != nil {
			panic(err)
		}
	}); err != nil {
		return nil, err
	}
	marker := v.rt.CreateObject(nil) // no prototype: the tail's assignment meets no setter
	gen, err := v.invoke(factory, goja.Undefined(), marker)
	if err != nil {
		return nil, err
	}
	args := make([]goja.Value, len(values))
	for i, s := range values {
		args[i] = v.rt.ToValue(s)
	}
	ret, err := v.invoke(gen, goja.Undefined(), args...)
	if err != nil {
		return nil, err
	}
	if own, ok := v.shadowingExecute(ret, marker); ok {
		if _, callable := goja.AssertFunction(own); !callable {
			return nil, v.notCallable(own)
		}
		// An async execute is refused before it is called, so that none
		// of its body runs (DESIGN §3): called, it ran up to its first
		// await, host calls and approvals included, before the Promise it
		// returned was refused. goja tells the function's kind (an arrow, a
		// method, a bound function or a Proxy of one too), whatever
		// prototype the script gave it.
		if goja.IsAsyncFunction(own) {
			return nil, errAsync
		}
		if ret, err = v.invoke(own, goja.Undefined(), args...); err != nil {
			return nil, err
		}
	}
	root, _ := ret.(*goja.Object)
	if root != nil {
		var async bool
		if err := v.try(func() { async = isAsync(root) }); err != nil {
			return nil, err
		}
		if async {
			return nil, errAsync
		}
	}
	js, err := v.serialize(ret)
	if err != nil {
		return nil, err
	}
	out := &output{js: js}
	if root != nil {
		if fail := structuredFailure(out.text()); fail != nil {
			return nil, fail
		}
	}
	return out, nil
}

// output is a result's serialization: the VM's string and, once made, its
// Go copy, made at most once (a result with accents costs a conversion
// from UTF-16). An object's is made before the output cap is checked, for
// structuredFailure, so it is bounded by the memory limit, not the cap.
type output struct {
	js     goja.Value
	copied bool
	s      string
}

func (o *output) text() string {
	if !o.copied {
		o.s, o.copied = o.js.String(), true
	}
	return o.s
}

// notCallable is the TypeError of a source that binds execute to something
// other than a function (var execute = 'x', execute = 5) and does not
// return: there is no execute to call.
func (v *vm) notCallable(own goja.Value) error {
	kind := "an object"
	switch {
	case own == nil || goja.IsUndefined(own):
		kind = "undefined"
	case goja.IsNull(own):
		kind = "null"
	case goja.IsString(own):
		kind = "a string"
	case goja.IsNumber(own):
		kind = "a number"
	case goja.IsBigInt(own):
		kind = "a BigInt"
	}
	if _, isSymbol := own.(*goja.Symbol); isSymbol {
		kind = "a symbol"
	} else if _, isBool := own.Export().(bool); isBool {
		kind = "a boolean"
	}
	return v.typeError(fmt.Sprintf("execute is not a function (it is %s): a source that does not return has its execute called; return a value, or declare function execute(...)", kind))
}

// typeError is a TypeError with message, thrown as if by the script's
// engine: it reaches the author as SCRIPT_ERROR "TypeError: message".
func (v *vm) typeError(message string) error {
	return v.try(func() { panic(v.rt.NewTypeError("%s", message)) })
}

// shadowingExecute recognizes what the tail returns when the source declared
// its own execute: this run's marker, holding that execute. It reads nothing
// of any other value, so the author's result (a getter, a Proxy) is read
// once, by its serialization.
func (v *vm) shadowingExecute(ret goja.Value, marker *goja.Object) (goja.Value, bool) {
	if obj, ok := ret.(*goja.Object); !ok || obj != marker {
		return nil, false
	}
	// A plain data property of an object without a prototype: reading it
	// runs nothing of the script's.
	return marker.Get("execute"), true
}

// outputTooLarge is the error of a result of size (its text's) over the
// cap of limit bytes.
func outputTooLarge(size string, limit int) *Error {
	return &Error{Code: CodeOutputTooLarge, Message: fmt.Sprintf(
		"the result is %s, over the limit of %d bytes (SANDBOX_MAX_OUTPUT_BYTES): return less data", size, limit)}
}

func (p *Program) checkOutput(out *output, l Limits) (string, *Error) {
	tooLarge := func(size string) *Error { return outputTooLarge(size, l.MaxOutputBytes) }
	// Check the length in UTF-16 units before copying the string out of the
	// VM: a string of N units is at least N bytes of UTF-8.
	if s, ok := out.js.(goja.String); ok && !out.copied && s.Length() > l.MaxOutputBytes {
		return "", tooLarge(fmt.Sprintf("at least %d bytes", s.Length()))
	}
	str := out.text()
	if len(str) > l.MaxOutputBytes {
		return "", tooLarge(fmt.Sprintf("%d bytes", len(str)))
	}
	return str, nil
}

// oversized is the interrupt of a string or buffer over the allocation
// ceiling: its size, asked for and never made.
type oversized struct{ bytes int64 }

// classify turns what the VM returned into a coded error.
func (p *Program) classify(ctx context.Context, v *vm, l Limits, err error) *Error {
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var engine *enginePanic
	var ex *goja.Exception
	switch {
	case errors.Is(err, errAsync):
		return copyOf(errAsync)
	case errors.As(err, new(*structured)):
		var st *structured
		errors.As(err, &st)
		return st.err
	case errors.As(err, &interrupted):
		if e := p.oversizedError(l, interrupted); e != nil {
			return e
		}
		return causeOf(ctx)
	case errors.As(err, &overflow):
		e := &Error{Code: CodeScriptError, Message: "RangeError: Maximum call stack size exceeded"}
		e.Line, e.Column = p.position(overflow.Stack())
		if e.Line == 0 {
			// No frame of the script's: the overflow was writing its
			// result, whose arrays and objects nest too deeply.
			e.Message += fmt.Sprintf(" while writing the result: it nests arrays and objects more than about %d levels deep "+
				"(SANDBOX_MAX_CALL_STACK); return a flatter value", l.MaxCallStackSize)
		}
		return e
	case errors.As(err, &engine):
		if ctx.Err() != nil {
			return causeOf(ctx)
		}
		return engine.classify(l)
	case errors.As(err, &ex):
		if obj, isObj := ex.Value().(*goja.Object); isObj && v.host != nil && v.host.thrown[obj] != nil {
			if ctx.Err() != nil {
				return causeOf(ctx)
			}
			e := copyOf(v.host.thrown[obj])
			if msg := v.hostMessage(obj); msg != "" {
				e.Message = msg
			}
			if ctx.Err() != nil { // its message getter ran out the clock
				return causeOf(ctx)
			}
			e.Line, e.Column = p.position(ex.Stack())
			return e
		}
		msg, ok, stopped := p.describe(ctx, v, ex)
		if !ok {
			if e := p.oversizedError(l, stopped); e != nil { // its message getter asked for too much
				return e
			}
			if e, ok := v.host.journalStop(stopped); ok { // its message getter asked for approval
				return cmp.Or(e, errSuspended)
			}
			return causeOf(ctx)
		}
		e := &Error{Code: CodeScriptError, Message: msg}
		e.Line, e.Column = p.position(ex.Stack())
		return e
	default:
		return &Error{Code: CodeScriptError, Message: err.Error()}
	}
}

// classify says what an engine panic means for the script: a size the
// engine could not allocate is the memory limit; anything else is a script
// error with the engine's message. Never SANDBOX_CRASH: the script caused
// it, and running it again fails the same way.
func (e *enginePanic) classify(l Limits) *Error {
	msg := e.Error()
	for _, size := range []string{"makeslice", "growslice", "makemap", "out of memory", "too large"} {
		if strings.Contains(msg, size) {
			return &Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
				"Script exceeded the memory limit of %d MB (SANDBOX_MEMORY_MB): the engine could not allocate a value that large (%s)",
				l.MemoryMB, msg)}
		}
	}
	return &Error{Code: CodeScriptError, Message: "InternalError: the JavaScript engine failed on this script (" + msg + ")"}
}

// describe reads the thrown value's message inside the VM, under the
// script's deadline (a hostile getter or toString is interrupted too). It
// reports false when the deadline or an interrupt ended the reading, and
// the interrupt, if one did.
func (p *Program) describe(ctx context.Context, v *vm, ex *goja.Exception) (string, bool, *goja.InterruptedError) {
	msg, err := v.describe(ex.Value())
	var interrupted *goja.InterruptedError
	switch {
	case errors.As(err, &interrupted):
		return "", false, interrupted
	case ctx.Err() != nil:
		return "", false, nil //nolint:nilerr // the deadline, not an interrupt, ended the reading
	case err != nil:
		return "Uncaught exception (its message could not be read)", true, nil //nolint:nilerr // described, not an interrupt
	}
	return msg, true, nil
}

// oversizedError is the error of a run interrupted by the allocation
// ceiling (goja patch 93), at the line that asked; nil for any other
// interrupt.
func (p *Program) oversizedError(l Limits, interrupted *goja.InterruptedError) *Error {
	if interrupted == nil {
		return nil
	}
	o, ok := interrupted.Value().(*oversized)
	if !ok {
		return nil
	}
	e := &Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
		"Script exceeded the memory limit of %d MB (SANDBOX_MEMORY_MB): it asked for one string, buffer or array of %d bytes or more",
		l.MemoryMB, o.bytes)}
	e.Line, e.Column = p.position(interrupted.Stack())
	return e
}

// position returns the author's line and column of the innermost stack
// frame in the script (not in a built-in or the lockdown code).
func (p *Program) position(stack []goja.StackFrame) (int, int) {
	for _, f := range stack {
		if f.SrcName() == programName {
			pos := f.Position()
			return p.clamp(pos.Line, pos.Column)
		}
	}
	return 0, 0
}

// causeOf reports why ctx ended: the *Error it was cancelled with, or a
// timeout.
func causeOf(ctx context.Context) *Error {
	if e := AsError(context.Cause(ctx)); e != nil {
		return copyOf(e)
	}
	return copyOf(errTimedOut)
}

// copyOf returns a copy of a shared error value, so that no caller can
// change another's.
func copyOf(e *Error) *Error {
	c := *e
	return &c
}
