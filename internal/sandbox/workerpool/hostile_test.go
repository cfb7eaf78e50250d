package workerpool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// testTimeout is the script time limit of the hostile tests: short, so the
// suite stays fast; the acceptance bound is this plus one second. goja runs
// 5 to 30 times slower under the race detector (building a 20,000-deep
// array: 30 ms, 940 ms with -race). Three seconds in every build: on a
// machine whose page faults were slow (a zeroed gigabyte took 3 s to
// allocate), string doubling beside 7 busy workers needed 1.3 s to reach
// the memory limit, and on a day the same machine ran at a third of its
// speed 0.9–1.8 s, once 2.3 s (a CI run stopped by a 2 s limit).
var testTimeout = 3 * time.Second

// The seed's cpf example (examples/cpf.js), one of the ordinary scripts
// that run beside every hostile one.
var cpfScript = examples.CPF

// The seed's nome example ("Guia de sintaxe").
const nomeScript = `function execute(nome) {
  return nome.trim().split(' ').map(capitaliza).join(' ')
}

function capitaliza(parte) {
  return parte[0].toUpperCase() + parte.slice(1)
}`

// ordinary is a script that must succeed with want.
type ordinary struct {
	req  sandbox.Request
	want string
}

var ordinaries = []ordinary{
	{sandbox.Request{Source: cpfScript, Inputs: []sandbox.Input{{Name: "cpf", Value: "123.456.789-09"}}}, "valido"},
	{sandbox.Request{Source: nomeScript, Inputs: []sandbox.Input{{Name: "nome", Value: " maria da silva "}}}, "Maria Da Silva"},
	{sandbox.Request{Source: cpfScript, Inputs: []sandbox.Input{{Name: "cpf", Value: "12.3"}}}, "invalido"},
	{sandbox.Request{Source: "let s = 0; for (let i = 0; i < 1e4; i++) s += i; return s"}, "49995000"},
	{sandbox.Request{Source: "return {a: [1, 'b'], when: new Date(0).toISOString()}"}, `{"a":[1,"b"],"when":"1970-01-01T00:00:00.000Z"}`},
	{sandbox.Request{Source: "return /^(\\w+)@(\\w+)\\.com$/.exec(x)[2]", Inputs: []sandbox.Input{{Name: "x", Value: "ana@example.com"}}}, "example"},
	{sandbox.Request{Source: "return [3, 1, 2].sort().join('-')"}, "1-2-3"},
}

// afterDeadline wraps a native operation so that it starts just before the
// deadline (the script busy-waits until then): the operation runs on past
// the deadline, where Runtime.Interrupt cannot stop it.
func afterDeadline(setup, op string) sandbox.Request {
	src := fmt.Sprintf(`const until = Date.now() + Number(ms) - 30
%s
if (Date.now() >= until) throw new Error('the setup took the whole time limit: make it smaller')
while (Date.now() < until) {}
%s
return 'finished'`, setup, op)
	return sandbox.Request{Source: src, Inputs: []sandbox.Input{{Name: "ms", Value: fmt.Sprint(testTimeout.Milliseconds())}}}
}

func src(s string) sandbox.Request { return sandbox.Request{Source: s} }

// hostileCases are the classes of issue 3, each with the codes that are
// right for it and a piece of the message.
var hostileCases = []struct {
	name  string
	req   sandbox.Request
	codes []sandbox.Code
	msg   string
}{
	{"infinite loop", src("for (;;) {}"), timeout, sandbox.MsgTimeout},

	{"huge string repeat", src("return 'x'.repeat(4e8).length"), memoryLimit, "32 MB"},
	// Past V8's maximum string length: V8's RangeError, before any
	// allocation (goja patch 71).
	{"string repeat 2**40", src("return 'x'.repeat(2 ** 40).length"), scriptError, "RangeError: Invalid string length"},
	// Array(1e8).fill(0) is slow and big at once: whichever limit it reaches
	// first is right (measured: memory on a quiet machine, time under -race).
	{"array fill 1e8", src("return new Array(1e8).fill(0).length"), append(memoryLimit, timeout...), ""},
	{"typed array 1e9 bytes", src("return new Uint8Array(1e9).length"), gigabyteCodes, gigabyteMsg},
	{"typed array 100 MB returned at once", src("return new Uint8Array(1e8).length"), memoryLimit, "32 MB"},
	{"float64 array", src("return new Float64Array(2e8).length"), gigabyteCodes, gigabyteMsg},
	{"array buffer 2 GB", src("return new ArrayBuffer(2 ** 31).byteLength"), gigabyteCodes, gigabyteMsg},

	{"steady growth", src("const a = []; for (;;) a.push(new ArrayBuffer(1e6))"), memoryLimit, "32 MB"},
	{"steady growth of objects", src("const a = []; for (let i = 0; ; i++) a.push({i, s: 'item ' + i})"), append(memoryLimit, timeout...), ""},
	{"string doubling", src("let s = 'x'; for (;;) s += s"), gigabyteCodes, gigabyteMsg},

	{"join after the deadline", afterDeadline(
		"const a = new Array(2e5).fill(1.5); const b = [a, a, a, a, a, a, a, a, a, a]",
		"b.join()"), timeout, sandbox.MsgTimeout},
	// The setup must stay cheap beside the operation: built by a script
	// loop (Array.from with a callback, 0.8 s under -race) it once took the
	// whole 3 s beside 7 busy workers in CI. Built natively and sorted by
	// their string forms, half this many pairs took 5–9 ms to set up and
	// 0.28 s to sort (31–38 ms and 1.4 s with -race).
	{"sort without comparator after the deadline", afterDeadline(
		"const x = Array(20).fill(7919), y = Array(20).fill(1583); const a = Array(2e4).fill([x, y]).flat()",
		"a.sort()"), timeout, sandbox.MsgTimeout},
	{"stringify of a big value after the deadline", afterDeadline(
		"const a = Array.from({length: 2e4}, (_, i) => ({i, s: 'abc'}))",
		"JSON.stringify(Array(10).fill(a))"), timeout, sandbox.MsgTimeout},
	// Nested past the call stack's limit, JSON.stringify ends at once with
	// RangeError (goja patch 29) where it used to run past the deadline in
	// a quadratic cycle check; either end is right when it starts late.
	{"stringify of a nested value after the deadline", afterDeadline(
		"let o = {}; for (let i = 0; i < 1e4; i++) o = {o}",
		"JSON.stringify(o)"), append(scriptError, timeout...), ""},
	{"JSON.parse of text nested a million deep", src(
		"return JSON.parse('['.repeat(1e6) + ']'.repeat(1e6))"), scriptError, "more than 500 levels deep"},
	{"JSON.parse of a huge text", src(
		"const t = '[' + '{\"a\":[1,2,3],\"b\":\"xyz\"},'.repeat(2e6) + '0]'; return JSON.parse(t).length"), append(memoryLimit, timeout...), ""},
	// It must end within the deadline's bound; the values the parse builds
	// (some 40 MB) may pass the memory limit before the deadline stops it.
	{"JSON.parse of a big text after the deadline", afterDeadline(
		"const t = '[' + '{\"a\":[1,2,3],\"b\":\"xyz\"},'.repeat(1e5) + '0]'",
		"JSON.parse(t)"), append(timeout, memoryLimit...), ""},
	// The nesting passes the call stack (a RangeError, as in V8) unless the
	// deadline comes first on a slow or busy machine.
	{"stringify of a deeply nested value", src(
		"let o = {}; for (let i = 0; i < 3e4; i++) o = {o}; return JSON.stringify(o).length"), append(timeout, scriptError...), ""},
	// A gigabyte of JSON: its buffer passes the memory limit, unless the
	// deadline comes first on a slow (race-detector) build.
	{"stringify of a huge value", src(
		"return JSON.stringify(new Array(1e5).fill('x'.repeat(1e4))).length"), append(memoryLimit, timeout...), ""},

	{"regex backreference", src("return /(a+)+\\1c/.test('a'.repeat(34))"), timeout, sandbox.MsgTimeout},
	{"regex lookahead", src("return /^(?=a)(a|aa)+$/.test('a'.repeat(45) + 'b')"), timeout, sandbox.MsgTimeout},
	{"regex sticky with lastIndex", src(
		"const r = /(?=a)(a|aa)+c/y; r.lastIndex = 1; return r.test('b' + 'a'.repeat(45))"), timeout, sandbox.MsgTimeout},

	{"recursion", src("function f() { return f() } return f()"), scriptError, "Maximum call stack size exceeded"},
	{"recursion through a built-in", src("function f() { return [0].map(f) } return f()"), scriptError, "Maximum call stack size exceeded"},
	{"recursion through a getter", src("const o = { get x() { return this.x } }; return o.x"), scriptError, "Maximum call stack size exceeded"},
	{"recursion through toString", src("const o = { toString() { return '' + o } }; return String(o)"), scriptError, "Maximum call stack size exceeded"},
	// The recursion is in Go: goja patch 30 counts it against the call
	// stack's limit (it overflowed the worker's Go stack and ended it).
	{"String of a deeply nested array", src(
		"let a = []; for (let i = 0; i < 2e4; i++) a = [a]; return String(a)"), scriptError, "Maximum call stack size exceeded"},
	// console.log writes it 20 levels deep (as Node, past its depth); the
	// stringify after it overflows.
	{"JSON.stringify of a deeply nested object, logged first", src(
		"let o = {}; for (let i = 0; i < 2e4; i++) o = {c: o}; console.log(o); return JSON.stringify(o)"), scriptError, "Maximum call stack size exceeded"},
	{"flat of a deeply nested array", src(
		"let a = []; for (let i = 0; i < 3e4; i++) a = [a]; return a.flat(Infinity).length"), scriptError, "Maximum call stack size exceeded"},

	{"toJSON that loops", src("return { toJSON() { for (;;) {} } }"), timeout, sandbox.MsgTimeout},
	{"Proxy whose ownKeys loops", src("return new Proxy({}, { ownKeys() { for (;;) {} } })"), timeout, sandbox.MsgTimeout},
	{"Proxy whose get throws", src("return new Proxy({a: 1}, { get() { throw new Error('boom') } })"), scriptError, "boom"},
	{"toJSON that throws", src("return { toJSON() { throw new Error('no json') } }"), scriptError, "no json"},
	{"circular result", src("const a = {}; a.a = a; return a"), scriptError, "circular"},
}

var (
	timeout     = []sandbox.Code{sandbox.CodeTimeout}
	memoryLimit = []sandbox.Code{sandbox.CodeMemoryLimit}
	scriptError = []sandbox.Code{sandbox.CodeScriptError}
)

// gigabyteCodes and gigabyteMsg are what a script that allocates or copies
// hundreds of megabytes to gigabytes in one native call gets: SCRIPT_MEMORY_LIMIT, from the OS limit or the
// watchdog. Race builds set no OS limit, and the race runtime marks the
// shadow of a big allocation or copy in one call the worker's only P cannot
// leave, so the watchdog may not run before the parent kills the job at its
// deadline: there SCRIPT_TIMEOUT is right too (seen on a machine with slow
// page faults). The non-race run in .ci/run keeps the strict expectation.
var gigabyteCodes, gigabyteMsg = orTimeoutUnderRace(memoryLimit, "32 MB")

// orTimeoutUnderRace is codes and msg, or, in a race build, codes or
// SCRIPT_TIMEOUT with any message.
func orTimeoutUnderRace(codes []sandbox.Code, msg string) ([]sandbox.Code, string) {
	if raceEnabled {
		return append(slices.Clone(codes), timeout...), ""
	}
	return codes, msg
}

// TestHostileScripts runs each hostile class through the pool while 7
// ordinary scripts keep running beside it: the hostile one ends with the
// right code within the timeout plus one second, and every ordinary run
// succeeds within its own limit.
func TestHostileScripts(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: testTimeout, MaxParallel: 8}})
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var runs [7]atomic.Int64
			failures := make(chan string, 64)
			for i := range 7 {
				wg.Go(func() {
					for k := i; ; k++ {
						select {
						case <-stop:
							return
						default:
						}
						o := ordinaries[k%len(ordinaries)]
						start := time.Now()
						res := p.Run(context.Background(), o.req)
						if !res.OK() || res.Output != o.want {
							select {
							case failures <- fmt.Sprintf("ordinary script %d: output %q, error %v, after %v (want %q)",
								k%len(ordinaries), res.Output, res.Err, time.Since(start), o.want):
							default:
							}
						}
						runs[i].Add(1)
					}
				})
			}

			// The hostile script starts once every ordinary runner is going.
			waitFor(t, 10*time.Second, "every ordinary runner to complete a script", func() bool {
				for i := range runs {
					if runs[i].Load() == 0 {
						return false
					}
				}
				return true
			})
			before := sum(runs[:])
			start := time.Now()
			res := p.Run(context.Background(), tc.req)
			elapsed := time.Since(start)
			close(stop)
			wg.Wait()
			close(failures)

			if res.OK() {
				t.Fatalf("the hostile script succeeded with %.80q; want %v", res.Output, tc.codes)
			}
			if !slices.Contains(tc.codes, res.Err.Code) || !strings.Contains(res.Err.Message, tc.msg) {
				t.Errorf("got %v; want one of %v with a message containing %q", res.Err, tc.codes, tc.msg)
			}
			// The parent kills the worker KillMargin (250 ms) after the
			// deadline; a race build's worker, torn down and reaped on a CI
			// machine busy with other packages' tests, once took 0.77 s more
			// (4.02 s in all). The bound is the guarantee: bounded, not prompt.
			if bound := testTimeout + 2*time.Second; elapsed > bound {
				t.Errorf("the hostile script ended after %v; want at most %v", elapsed, bound)
			}
			for f := range failures {
				t.Error(f)
			}
			t.Logf("%v after %v; ordinary runs beside it: %d", res.Err.Code, elapsed.Round(time.Millisecond), sum(runs[:])-before)
		})
	}
}

func sum(xs []atomic.Int64) int64 {
	var n int64
	for i := range xs {
		n += xs[i].Load()
	}
	return n
}

// newTestPool starts a pool of real workers (this test binary re-executed)
// and closes it when the test ends.
func newTestPool(t testing.TB, cfg Config) *Pool {
	t.Helper()
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting the pool: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBufferDroppedAtOnceIsOverTheLimit allocates a buffer over the
// script's share and drops it in the same statement, from 8 callers at
// once: every run fails for memory, and ordinary scripts between them, on
// the workers that take the retired ones' places, succeed.
//
// A GC running under the memory limit can free such a buffer between the
// watchdog's samples and before the job ends; the heap's address space,
// which never shrinks, still shows it. That race showed in
// TestParentMemoryStaysFlat under -race on a slow machine (a 100 MB typed
// array succeeded, 2 runs of 2) before the worker checked the address
// space; this test does not reproduce it on demand. Since goja patch 93
// each of these buffers is refused before it is made, which the test
// holds to as well: whatever ends them, the answer is the memory limit.
func TestBufferDroppedAtOnceIsOverTheLimit(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: testTimeout, MaxParallel: 8}})
	scripts := []string{
		"return new ArrayBuffer(6e7).byteLength",
		"return new Uint8Array(1e8).length",
		"return new Float64Array(1e7).length",
	}
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for i := c; i < 160; i += 8 {
				src := scripts[i%len(scripts)]
				res := p.Run(context.Background(), sandbox.Request{Source: src})
				if res.OK() || res.Err.Code != sandbox.CodeMemoryLimit {
					t.Errorf("run %d of %q: got output %q, error %v; want SCRIPT_MEMORY_LIMIT", i, src, res.Output, res.Err)
				}
				o := ordinaries[i%len(ordinaries)]
				if res := p.Run(context.Background(), o.req); !res.OK() || res.Output != o.want {
					t.Errorf("an ordinary script after run %d: output %q, error %v; want %q", i, res.Output, res.Err, o.want)
				}
			}
		})
	}
	wg.Wait()
}

// TestReplacerFunctionsKeepNoMatches: a global replace with a function
// over 2 MB of text (300,000 words) fits in 32 MB, as in Node, on Go's
// regexp and on regexp2: each match is replaced as it is found (goja patch
// 103). Collecting the matches first, with their captures and positions,
// took it past the limit.
func TestReplacerFunctionsKeepNoMatches(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: 30 * time.Second, MaxParallel: 1}})
	for _, tc := range []struct{ text, want string }{
		{"'palavra outra coisa '.repeat(100000)", "2000000"},
		// An emoji takes the search off Go's regexp, to regexp2.
		{"'palavra outra coisa '.repeat(100000) + '😀'", "2000002"},
	} {
		res := p.Run(context.Background(), sandbox.Request{Source: `
			const text = ` + tc.text + `;
			return text.replace(/(\w)(\w*)/g, (w, first, rest) => first.toUpperCase() + rest).length`})
		if !res.OK() || res.Output != tc.want {
			t.Errorf("%s: got output %q, error %v; want %s", tc.text, res.Output, res.Err, tc.want)
		}
	}
}

// TestFirstJobsHaveTheirWholeShare: a worker's first job may churn as a
// later one may. Its heap's address space was measured from the few
// megabytes the warm-up left, not from the heap the worker's garbage spans
// anyway (the GC's first target), so a first job that kept 15 MB and built
// and dropped 5 MB strings beside it, well within 32 MB, was failed for
// memory in 25 runs of 40; each worker's first job here is such a job.
func TestFirstJobsHaveTheirWholeShare(t *testing.T) {
	const workers = 4
	const script = `
		const keep = [];
		for (let i = 0; i < 15; i++) keep.push('k'.repeat(1e6) + i);
		function build(ch, n) { let s = ''; for (let i = 0; i < n; i++) s += ch.repeat(1000); return s.length }
		let n = 0; for (let k = 0; k < 5; k++) n += build('x', 5000);
		return n + keep.length`
	for range 2 {
		p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: 60 * time.Second, MaxParallel: workers}})
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				if res := p.Run(context.Background(), sandbox.Request{Source: script}); !res.OK() || res.Output != "25000015" {
					t.Errorf("got output %q, error %v; want 25000015", res.Output, res.Err)
				}
			})
		}
		wg.Wait()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDroppedStringsFreeTheirMemory: strings a script builds with += and
// drops do not count against its memory limit (goja patch 74: the
// appender holds its arrays weakly). Five 5 MB strings built and dropped
// in turn fit in 32 MB, as in Node; held strongly, four of them stayed.
func TestDroppedStringsFreeTheirMemory(t *testing.T) {
	// A time limit of its own: the test is about memory, and under -race on
	// a busy machine the five builds took longer than testTimeout.
	p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: 30 * time.Second, MaxParallel: 1}})
	res := p.Run(context.Background(), sandbox.Request{Source: `
		function build(ch, n) { let s = ''; for (let i = 0; i < n; i++) s += ch.repeat(1000); return s.length }
		let n = 0; for (let k = 0; k < 5; k++) n += build('x', 5000); return n`})
	if !res.OK() || res.Output != "25000000" {
		t.Errorf("got output %q, error %v; want 25000000", res.Output, res.Err)
	}
}
