package sandbox

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/dop251/goja"
)

//go:embed lockdown.js
var lockdownSource string

// lockdown is compiled once and run first in every fresh runtime.
var lockdown = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("lockdown.js", lockdownSource, true)
})

// generatorKinds evaluates to a generator and an async function, and to an
// async generator function when the engine supports them: the prototypes
// of their kinds hold constructors that compile strings.
var generatorKinds = sync.OnceValue(func() *goja.Program {
	if p, err := goja.Compile("kinds.js", "[function* () {}, async function () {}, async function* () {}]", true); err == nil {
		return p
	}
	return goja.MustCompile("kinds.js", "[function* () {}, async function () {}]", true) // no async generators in this engine
})

// nativeFunc is how Go calls a native built-in directly.
type nativeFunc = func(goja.FunctionCall) goja.Value

// vm is one fresh, locked-down runtime.
//
// Every call into the script goes through invoke: Function.prototype.call,
// called from Go inside Runtime.Try. Unlike goja.AssertFunction, that path
// never drains the promise job queue when the call returns, so no promise
// callback of the script ever runs (see run), and the call adds no frame of
// its own to the script's stack traces.
type vm struct {
	rt *goja.Runtime
	// call is Function.prototype.call, taken before the script could
	// replace it.
	call nativeFunc
	// host is the run's side of the host functions (hostvm.go).
	host *hostState
	// jsonx is the state of the sandbox's own JSON.parse (jsonparse_vm.go),
	// made at its first call and reused by the next.
	jsonx *jsonParse
	// logDepth is how deep console is inside Maps and Sets it writes, and
	// logPath the objects it is writing, outermost first.
	logDepth int
	logPath  []*goja.Object
	// maxOutput is the cap on the result's text (SANDBOX_MAX_OUTPUT_BYTES):
	// serialize stops writing past it.
	maxOutput int
}

// newVM returns a fresh runtime with only the language built-ins: eval and
// every Function constructor disabled, the call stack capped. Nothing of the
// host is reachable from it. It is newVMFor a program that may have every
// feature.
func newVM(l Limits) (*vm, error) {
	return newVMFor(l, allFeatures)
}

// newVMFor returns a fresh runtime for a program with the features f: it
// sets up only what the program can reach (see features). What it leaves
// out the program cannot observe: the constructors of generator and async
// functions are disabled when the program has such functions; eval and
// GoError are removed from every runtime, and JSON.parse is the sandbox's
// own in every runtime.
func newVMFor(l Limits, f features) (*vm, error) {
	rt := goja.New()
	rt.SetMaxCallStackSize(l.MaxCallStackSize)
	v := &vm{rt: rt, maxOutput: l.MaxOutputBytes}
	proto := rt.FunctionPrototype() // the Function constructor is never made (see lockDown)
	var ok bool
	if v.call, ok = proto.Get("call").Export().(nativeFunc); !ok {
		return nil, errors.New("the function prototype's call is not a native function")
	}
	// The sandbox's JSON.parse is the built-in: the JSON object and each of
	// its methods are made when a script first reads them (goja patch 26).
	rt.SetJSONParse(v.jsonParse)
	// A string or buffer over the script's whole memory share, its size
	// known before it is made, ends the run unmade (goja patch 93): the
	// worker keeps its heap, and the machine is spared the pages.
	rt.SetAllocationCeiling(int64(l.MemoryMB)<<20, func(n int64) any { return &oversized{bytes: n} })

	if err := v.lockDown(proto, f); err != nil {
		return nil, fmt.Errorf("locking the runtime down: %w", err)
	}
	return v, nil
}

// lockDown removes the ways to generate code from strings and the engine's
// one host global, touching as few built-ins as it can (each one touched is
// made in every runtime, at a cost paid per job):
//   - every path to the Function constructor — Function.prototype's
//     constructor, the global Function — leads to the thrower of
//     lockdown.js, and so do the constructors of the generator and async
//     kinds when the program has such functions (nothing else reaches them).
//     The thrower takes the two built-in places before anything reads
//     them (goja's ReplaceBuiltin), so the Function constructor itself is
//     never made;
//   - eval and GoError (goja's wrapper for Go errors: a host type, not a
//     language built-in) are removed from every runtime, without making
//     them (goja's RemoveGlobals): a script can reach the global object
//     without naming it (see features).
//
// The serializer and the error describer are Go code (serialize.go): they
// hold their own references to the built-ins they use, taken before the
// script runs.
func (v *vm) lockDown(fnProto *goja.Object, f features) error {
	rt := v.rt
	tv, err := rt.RunProgram(lockdown())
	if err != nil {
		return err
	}
	thrower := tv.ToObject(rt)
	if err := thrower.DefineDataProperty("prototype", fnProto, goja.FLAG_FALSE, goja.FLAG_NOT_SET, goja.FLAG_NOT_SET); err != nil {
		return err
	}
	lock := func(proto *goja.Object) error {
		return proto.ReplaceBuiltin("constructor", thrower, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
	if err := lock(fnProto); err != nil {
		return err
	}
	if f.generators {
		kinds, err := rt.RunProgram(generatorKinds())
		if err != nil {
			return err
		}
		arr := kinds.ToObject(rt)
		for i := range arr.Get("length").ToInteger() {
			if err := lock(arr.Get(strconv.FormatInt(i, 10)).ToObject(rt).Prototype()); err != nil {
				return err
			}
		}
	}
	global := rt.GlobalObject()
	if err := global.ReplaceBuiltin("Function", thrower, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
		return err
	}
	// Always: a script can reach the global object without naming it (an
	// accessor on Object.prototype whose getter is Object.prototype.valueOf
	// hands it the global object for any undeclared name).
	rt.RemoveGlobals("eval", "GoError")
	return nil
}

// invoke calls fn with this and args. The error is a *goja.Exception (the
// script threw), a *goja.InterruptedError, a *goja.StackOverflowError, or
// an *enginePanic.
func (v *vm) invoke(fn, this goja.Value, args ...goja.Value) (goja.Value, error) {
	var ret goja.Value
	err := v.try(func() {
		ret = v.call(goja.FunctionCall{This: fn, Arguments: append([]goja.Value{this}, args...)})
	})
	return ret, err
}

// try runs f, which calls into the script, and turns what it throws or
// panics with into an error.
func (v *vm) try(f func()) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = recovered(x)
		}
	}()
	if ex := v.rt.Try(f); ex != nil {
		return ex
	}
	return nil
}

// recovered turns a panic out of goja into an error: the engine's own
// uncatchable errors as they are, anything else as an *enginePanic.
func recovered(x any) error {
	switch e := x.(type) {
	case *goja.InterruptedError:
		return e
	case *goja.StackOverflowError:
		return e
	case *goja.Exception:
		return e
	}
	return &enginePanic{value: x}
}

// enginePanic is a Go panic inside goja while it ran the script: goja
// failed on the script's behalf (before goja patch 126, 1n << (2n ** 53n)
// asked math/big for a slice of 2^53 bits). The script caused it, so it is
// the script's error, never the platform's.
type enginePanic struct{ value any }

func (e *enginePanic) Error() string { return fmt.Sprint(e.value) }
