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

// TestWorkersFormatDatesInAnyZone: a worker has no environment and maybe
// no zoneinfo files, and a script may still name a zone for
// toLocaleString (goja patch 25): the worker's embedded zones serve it.
func TestWorkersFormatDatesInAnyZone(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1}})
	res := p.Run(context.Background(), sandbox.Request{Source: "const d = new Date(Date.UTC(2020, 11, 25, 1, 14, 59))\n" +
		"return [d.toLocaleString('pt-BR', {timeZone: 'America/Sao_Paulo'}), d.toLocaleDateString('pt-BR'), (1234.5).toLocaleString('pt-BR')].join(' | ')"})
	if want := "24/12/2020, 22:14:59 | 25/12/2020 | 1.234,5"; res.Err != nil || res.Output != want {
		t.Errorf("got %q, %v; want %q", res.Output, res.Err, want)
	}
}
