package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// errAsync: the script returned a Promise (an async execute).
var errAsync = &Error{Code: CodeAsyncUnsupported, Message: MsgAsyncUnsupported}

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
func Execute(ctx context.Context, l Limits, req Request) Result {
	start := time.Now()
	out, err := execute(ctx, l, req)
	return Result{Output: out, Err: err, Duration: time.Since(start)}
}

func execute(ctx context.Context, l Limits, req Request) (string, *Error) {
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
	return prog.run(ctx, l, values)
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
func (p *Program) run(ctx context.Context, l Limits, values []string) (string, *Error) {
	if ctx.Err() != nil {
		return "", causeOf(ctx)
	}
	v, err := newVM(l)
	if err != nil {
		return "", &Error{Code: CodeCrash, Message: "starting the JavaScript runtime: " + err.Error()}
	}
	stop := context.AfterFunc(ctx, func() { v.rt.Interrupt(errTimedOut) })
	defer stop()

	out, err := p.call(v, values)
	if err != nil {
		return "", p.classify(ctx, v, err)
	}
	return p.checkOutput(out, l)
}

// call runs the assembled program, calls its entry function with the input
// values (primitive strings: nothing of Go is reachable from the VM) and
// serializes the result inside the VM.
func (p *Program) call(v *vm, values []string) (goja.Value, error) {
	entryValue, err := v.rt.RunProgram(p.prog)
	if err != nil {
		return nil, err
	}
	entry, ok := goja.AssertFunction(entryValue)
	if !ok {
		return nil, errors.New("the assembled program did not evaluate to a function")
	}
	args := make([]goja.Value, len(values))
	for i, s := range values {
		args[i] = v.rt.ToValue(s)
	}
	ret, err := entry(goja.Undefined(), args...)
	if err != nil {
		return nil, err
	}
	if obj, ok := ret.(*goja.Object); ok && obj.ClassName() == "Promise" {
		return nil, errAsync
	}
	return v.serialize(goja.Undefined(), ret)
}

func (p *Program) checkOutput(out goja.Value, l Limits) (string, *Error) {
	tooLarge := func(size string) *Error {
		return &Error{Code: CodeOutputTooLarge, Message: fmt.Sprintf(
			"the result is %s, over the limit of %d bytes (SANDBOX_MAX_OUTPUT_BYTES): return less data", size, l.MaxOutputBytes)}
	}
	// Check the length in UTF-16 units before copying the string out of the
	// VM: a string of N units is at least N bytes of UTF-8.
	if s, ok := out.(goja.String); ok && s.Length() > l.MaxOutputBytes {
		return "", tooLarge(fmt.Sprintf("%d characters", s.Length()))
	}
	str := out.String()
	if len(str) > l.MaxOutputBytes {
		return "", tooLarge(fmt.Sprintf("%d bytes", len(str)))
	}
	return str, nil
}

// classify turns what the VM returned into a coded error.
func (p *Program) classify(ctx context.Context, v *vm, err error) *Error {
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.Is(err, errAsync):
		return copyOf(errAsync)
	case errors.As(err, &interrupted):
		return causeOf(ctx)
	case errors.As(err, &overflow):
		e := &Error{Code: CodeScriptError, Message: "RangeError: Maximum call stack size exceeded"}
		e.Line, e.Column = p.position(overflow.Stack())
		return e
	case errors.As(err, &ex):
		if ex.Value() == v.asyncMarker {
			return copyOf(errAsync)
		}
		msg, ok := p.describe(ctx, v, ex)
		if !ok {
			return causeOf(ctx)
		}
		e := &Error{Code: CodeScriptError, Message: msg}
		e.Line, e.Column = p.position(ex.Stack())
		return e
	default:
		return &Error{Code: CodeScriptError, Message: err.Error()}
	}
}

// describe reads the thrown value's message inside the VM, under the
// script's deadline (a hostile getter or toString is interrupted too). It
// reports false when the deadline ended the reading.
func (p *Program) describe(ctx context.Context, v *vm, ex *goja.Exception) (string, bool) {
	msg, err := v.describe(goja.Undefined(), ex.Value())
	if err != nil || ctx.Err() != nil {
		return "", false
	}
	return msg.String(), true
}

// position returns the author's line and column of the innermost stack
// frame in the script (not in a built-in or the lockdown code).
func (p *Program) position(stack []goja.StackFrame) (int, int) {
	for _, f := range stack {
		if f.SrcName() == programName {
			pos := f.Position()
			return p.mapPosition(pos.Line, pos.Column)
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
