package sandbox

import (
	_ "embed"
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

// vm is one fresh, locked-down runtime.
type vm struct {
	rt          *goja.Runtime
	serialize   goja.Callable
	describe    goja.Callable
	asyncMarker *goja.Object
}

// newVM returns a fresh runtime with only the language built-ins: eval and
// every Function constructor disabled, built-ins frozen, the call stack
// capped. Nothing of the host is reachable from it.
func newVM(l Limits) (*vm, error) {
	rt := goja.New()
	rt.SetMaxCallStackSize(l.MaxCallStackSize)

	extra := []any{}
	if probe := asyncGeneratorProbe(); probe != nil {
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
	build, ok := goja.AssertFunction(factory)
	if !ok {
		return nil, fmt.Errorf("running lockdown: it did not evaluate to a function")
	}
	marker := rt.NewObject()
	helpers, err := build(goja.Undefined(), rt.GlobalObject(), marker, rt.NewArray(extra...))
	if err != nil {
		return nil, fmt.Errorf("running lockdown: %w", err)
	}
	pair := helpers.ToObject(rt)
	serialize, ok1 := goja.AssertFunction(pair.Get("0"))
	describe, ok2 := goja.AssertFunction(pair.Get("1"))
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("running lockdown: it did not return the serializer and the describer")
	}
	return &vm{rt: rt, serialize: serialize, describe: describe, asyncMarker: marker}, nil
}
