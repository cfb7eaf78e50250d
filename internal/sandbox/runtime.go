package sandbox

import (
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/dop251/goja"
)

//go:embed lockdown.js
var lockdownSource string

// lockdown is compiled once and run first in every fresh runtime.
var lockdown = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("lockdown.js", lockdownSource, true)
})

// asyncGeneratorProbe evaluates to an async generator function when the
// engine supports them; its prototype's constructor must be locked too.
var asyncGeneratorProbe = sync.OnceValue(func() *goja.Program {
	p, err := goja.Compile("probe.js", "(async function* () {})", true)
	if err != nil {
		return nil // not supported by this engine: nothing to lock
	}
	return p
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
	// call is Function.prototype.call, stringify JSON.stringify, both taken
	// before the script could replace them.
	call      nativeFunc
	json      *goja.Object
	stringify nativeFunc
	// host is the run's side of the host functions (hostvm.go).
	host *hostState
	// parse is JSON.parse, taken before the script ran.
	parse nativeFunc
	// jsonx serves the sandbox's own JSON.parse (jsonparse_vm.go).
	jsonx *jsonIntrinsics
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
// functions are disabled when the program has such functions, JSON is
// taken (and JSON.parse replaced) before the script when it can name JSON,
// and eval and GoError are deleted when it can name them.
func newVMFor(l Limits, f features) (*vm, error) {
	rt := goja.New()
	rt.SetMaxCallStackSize(l.MaxCallStackSize)
	v := &vm{rt: rt}
	proto := rt.Get("Function").ToObject(rt).Get("prototype").ToObject(rt)
	var ok bool
	if v.call, ok = proto.Get("call").Export().(nativeFunc); !ok {
		return nil, errors.New("Function.prototype.call is not a native function")
	}
	if f.json {
		if err := v.takeJSON(); err != nil {
			return nil, err
		}
	}

	extra := []any{}
	if probe := asyncGeneratorProbe(); probe != nil && f.generators {
		fn, err := rt.RunProgram(probe)
		if err != nil {
			return nil, fmt.Errorf("probing async generators: %w", err)
		}
		extra = append(extra, fn.ToObject(rt).Prototype())
	}
	factory, err := rt.RunProgram(lockdown())
	if err != nil {
		return nil, fmt.Errorf("running lockdown: %w", err)
	}
	if _, err := v.invoke(factory, goja.Undefined(), rt.GlobalObject(), rt.ToValue(f.generators), rt.ToValue(f.globals), rt.NewArray(extra...)); err != nil {
		return nil, fmt.Errorf("running lockdown: %w", err)
	}
	return v, nil
}

// takeJSON takes JSON and JSON.stringify, and installs the sandbox's
// JSON.parse (jsonparse_vm.go). It runs before the script, or, when the
// script cannot reach JSON (see features), when the host first needs it.
func (v *vm) takeJSON() error {
	if v.json != nil {
		return nil
	}
	rt := v.rt
	v.json = rt.Get("JSON").ToObject(rt)
	var ok bool
	if v.stringify, ok = v.json.Get("stringify").Export().(nativeFunc); !ok {
		return errors.New("JSON.stringify is not a native function")
	}
	if err := v.installJSONParse(); err != nil {
		return fmt.Errorf("installing JSON.parse: %w", err)
	}
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
// failed on the script's behalf (BigInt.asUintN(2**53 - 1, -1n) asks it for
// a slice of 2^53 bits). The script caused it, so it is the script's error,
// never the platform's.
type enginePanic struct{ value any }

func (e *enginePanic) Error() string { return fmt.Sprint(e.value) }
