package workerpool

import (
	"context"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// TestNoRunSeesAnother: one worker runs a script that changes everything it
// can reach, then scripts that look for the changes, whatever the runtime
// set up for them (a program that names nothing of the host, one that
// reaches the global object, one with generator functions): each one sees
// a fresh runtime.
func TestNoRunSeesAnother(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1}})
	ctx := context.Background()
	poison := `Object.prototype.polluted = 1; Array.prototype.push = null; String.prototype.trim = null;
globalThis.leak = 1; JSON.parse = null; JSON.stringify = null; RegExp.prototype.test = null;
console.log = null; Object.defineProperty(Object.prototype, "x", {set() { throw new Error("setter") }});
Object.getPrototypeOf(function* () {}).constructor = 1; return "poisoned"`
	for _, look := range []struct{ name, src, want string }{
		{"names nothing of the host", `return [typeof ({}).polluted, typeof [].push, typeof " ".trim, typeof leak, typeof /a/.test].join()`,
			"undefined,function,function,undefined,function"},
		{"parses JSON", `return JSON.parse('{"x":1,"polluted":2}').x + typeof JSON.stringify`, "1function"},
		{"reaches the global object", `return [typeof globalThis.leak, typeof console.log, typeof this.JSON.parse].join()`, "undefined,function,function"},
		{"returns an object", `return {x: 1}`, `{"x":1}`},
		{"has a generator", `function* g() { yield 1 } try { Object.getPrototypeOf(g).constructor("yield 2") } catch (e) { return e.name }`, "EvalError"},
	} {
		if res := p.Run(ctx, sandbox.Request{Source: poison}); res.Output != "poisoned" {
			t.Fatalf("poisoning: %q %v", res.Output, res.Err)
		}
		if res := p.Run(ctx, sandbox.Request{Source: look.src}); res.Output != look.want {
			t.Errorf("%s: got %q (%v), want %q", look.name, res.Output, res.Err, look.want)
		}
	}
}
