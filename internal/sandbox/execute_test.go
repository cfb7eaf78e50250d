package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestResultSerialization(t *testing.T) {
	cases := map[string]string{
		"return 'text'":                      "text",
		"return ''":                          "",
		"return {a: 1, b: [true, null]}":     `{"a":1,"b":[true,null]}`,
		"return [1, 'two']":                  `[1,"two"]`,
		"return 42":                          "42",
		"return 1.5":                         "1.5",
		"return NaN":                         "NaN",
		"return false":                       "false",
		"return 10n ** 20n":                  "100000000000000000000",
		"return undefined":                   "",
		"return null":                        "",
		"return":                             "",
		"return Symbol('s')":                 "Symbol(s)",
		"return function f() {}":             "",
		"return {toJSON() { return 'j' }}":   `"j"`,
		"return new Date(0)":                 `"1970-01-01T00:00:00.000Z"`,
		"return new Map([[1, 2]])":           "{}",
		"return {u: undefined, f() {}}":      "{}",
		"return 'ação ✓'":                    "ação ✓",
		"return {s: 'quote \" and \\n'}":     `{"s":"quote \" and \n"}`,
		"function execute() { return [] }":   "[]",
		"function execute() { return 0 }":    "0",
		"function execute() {}":              "",
		"function execute() { return null }": "",
	}
	for src, want := range cases {
		t.Run(src, func(t *testing.T) { wantOutput(t, run(t, src), want) })
	}
}

func TestAsyncIsRefused(t *testing.T) {
	for _, src := range []string{
		"async function execute() { return 'x' }",
		"async function execute() { throw new Error('inside') }",
		"return Promise.resolve(1)",
		"return new Promise(() => {})",
		"return (async () => 1)()",
		"return {then() {}}",
		"return {then: function (resolve) { resolve(1) }}",
		"const execute = async () => 1",
		// inside the result, where JSON.stringify would write {}
		"return [1, 2].map(async x => x * 2)",
		"return {ok: 1, pending: Promise.resolve(), n: 2}",
		"return {deep: [{deeper: new Promise(() => {})}]}",
		// a native Promise whose then the script deleted is still one
		"const p = Promise.resolve(1); delete Promise.prototype.then; return p",
		"const p = Promise.resolve(1); delete Promise.prototype.then; return {p}",
		"return {ok: 'ação', p: Promise.resolve()}", // an output that is not ASCII
		// what a toJSON returns is what JSON.stringify writes
		"return {toJSON() { return [1, 2].map(async x => x) }}",
		"return {toJSON() { return Promise.resolve(1) }}",
		"return [{toJSON() { return {later: Promise.resolve()} }}]",
		"return {get p() { return Promise.resolve() }}",
		// an async generator, which this engine cannot compile
		"async function* execute() { yield 1 }",
		"const g = async function* () { yield 1 }\nreturn 1",
		"const o = { async *m() {} }\nreturn 5", // goja patch 59
	} {
		t.Run(src, func(t *testing.T) {
			wantError(t, run(t, src), CodeAsyncUnsupported, "Script assíncrono não é suportado")
		})
	}
	// A declared async execute is refused before it is called: none of its
	// body runs, not a line it logs, not a loop that would time it out, not
	// a host call (found by a probe: the body ran up to its first await).
	for _, src := range []string{
		"async function execute() { console.log('ran'); while (true) {} }",
		"console.log('top level runs')\nexecute = async () => { console.log('ran'); while (true) {} }",
		"const execute = (async function () { console.log('ran'); while (true) {} }).bind(null)",
		"var execute = new Proxy(async () => { console.log('ran'); while (true) {} }, {})",
		"class K { static async execute() { console.log('ran'); while (true) {} } }\nvar execute = K.execute",
		// its prototype changed, or a Proxy's trap lying about it (a review)
		"async function execute() { console.log('ran'); while (true) {} }\nObject.setPrototypeOf(execute, Function.prototype)",
		"var execute = new Proxy(async () => { console.log('ran'); while (true) {} }, {getPrototypeOf() { return Function.prototype }})",
	} {
		t.Run(src, func(t *testing.T) {
			res := run(t, src)
			wantError(t, res, CodeAsyncUnsupported, "Script assíncrono não é suportado")
			for _, l := range res.Logs {
				if l.Message == "ran" {
					t.Errorf("the async execute ran: %+v", res.Logs)
				}
			}
		})
	}
	// Empty objects and "{}" text are data.
	wantOutput(t, run(t, "return {a: {}, b: [{}], c: '{}', d: {toJSON() { return {} }, p: Promise.resolve()}}"),
		`{"a":{},"b":[{}],"c":"{}","d":{}}`)
	// Inside the result, an object with a then method is data, as in Node
	// (found by a probe: it was refused); only the result itself is
	// awaited as a thenable.
	wantOutput(t, run(t, "return {data: {then() {}, n: 1}, list: [{then: 'x'}]}"), `{"data":{"n":1},"list":[{"then":"x"}]}`)
}

// The result is read once, by its serialization, as JSON.stringify reads
// it: a getter, a Proxy's trap or an array's accessor runs once, whatever
// the output holds.
func TestResultIsReadOnce(t *testing.T) {
	for src, want := range map[string]string{
		"var n = 0; return {a: {}, get b() { if (n++) throw new Error('read twice'); return 1 }}":                 `{"a":{},"b":1}`,
		"var n = 0; var a = [0]; Object.defineProperty(a, 0, {get() { return ++n }, enumerable: true}); return a": `[1]`,
		"var n = 0; return new Proxy({a: 1, b: 0, c: {}}, {get(t, k) { return k === 'b' ? ++n : t[k] }})":         `{"a":1,"b":1,"c":{}}`,
		"var n = 0; function execute() { return {e: {}, get x() { return ++n }} }":                                `{"e":{},"x":1}`,
	} {
		wantOutput(t, run(t, src), want)
	}
}

func TestThrownErrorsReportTheAuthorsPosition(t *testing.T) {
	src := "const a = 1\nconst b = 2\nthrow new Error('on line 3')"
	e := wantError(t, run(t, src), CodeScriptError, "Error: on line 3")
	if e.Line != 3 {
		t.Fatalf("want line 3, got %+v", e)
	}
	// Full-file format: the error is inside the author's execute.
	src = "function execute(x) {\n  return x.missing.deep\n}"
	e = wantError(t, run(t, src, in("x", "v")), CodeScriptError, "")
	if e.Line != 2 || !strings.HasPrefix(e.Message, "TypeError: ") {
		t.Fatalf("want a TypeError on line 2, got %+v", e)
	}
	// A native built-in throwing reports the author's calling line.
	src = "\n\nreturn JSON.parse('{bad')"
	e = wantError(t, run(t, src), CodeScriptError, "")
	if e.Line != 3 || !strings.HasPrefix(e.Message, "SyntaxError") {
		t.Fatalf("want JSON.parse's SyntaxError on line 3, got %+v", e)
	}
	// A method of a literal null and a destructuring of null, first or not
	// (goja patch 33: line 0, or the line before).
	for src, line := range map[string]int{
		"null.f()": 1, "const a = 1\nconst b = 2\n\nnull.f()": 4, "const [a] = null\nreturn a": 1,
		"function execute() {\n  const x = 1\n  const {a} = null\n}": 3,
	} {
		e = wantErrorContaining(t, run(t, src), CodeScriptError, "TypeError")
		if e.Line != line {
			t.Errorf("%q: want line %d, got %+v", src, line, e)
		}
	}
}

func TestThrownValuesOfAnyKind(t *testing.T) {
	cases := map[string]string{
		"throw 'plain string'": "plain string",
		"throw 42":             "42",
		"throw {message: 'shaped', name: 'Custom'}": "Custom: shaped",
		// seed 001's failure shape, thrown: the message alone
		"throw {code: 'NOT_FOUND', message: 'cliente não encontrado'}": "cliente não encontrado",
		"throw {message: 'no name', name: null}":                       "no name",
		"const e = new Error('nameless'); e.name = ''; throw e":        "nameless",
		"throw {message: undefined, name: 'OnlyName'}":                 "[object Object]",
		"throw new Error()":                 "Error",
		"throw null":                        "null",
		"throw {get message() { throw 1 }}": "Uncaught exception (its message could not be read)",
		// a blank message still says that something failed
		`throw ""`:                           "Uncaught exception (its message is empty)",
		`throw "  "`:                         "Uncaught exception (its message is empty)",
		`throw {code: 'EMPTY', message: ''}`: "Uncaught exception (its message is empty)",
		`const e = new Error(''); e.name = ''; throw e`:                                               "Uncaught exception (its message is empty)",
		"class E extends Error { constructor(m) { super(m); this.name = 'E' } }\nthrow new E('mine')": "E: mine",
	}
	for src, want := range cases {
		t.Run(src, func(t *testing.T) { wantError(t, run(t, src), CodeScriptError, want) })
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	l := Limits{Timeout: 100 * time.Millisecond}.WithDefaults()
	for _, src := range []string{
		"while (true) {}",
		"for (;;) { [1, 2, 3].map(x => x * 2) }",
		"throw {get message() { for (;;) {} }}", // a hostile message getter
		"return {toJSON() { for (;;) {} }}",     // serialization that loops
	} {
		t.Run(src, func(t *testing.T) {
			res := Execute(context.Background(), l, Request{Source: src})
			wantError(t, res, CodeTimeout, "Script execution timed out")
			if res.Duration > 2*time.Second {
				t.Fatalf("took %v", res.Duration)
			}
		})
	}
	t.Run("request timeout only shortens", func(t *testing.T) {
		res := Execute(context.Background(), Limits{Timeout: 50 * time.Millisecond}.WithDefaults(),
			Request{Source: "while (true) {}", Timeout: time.Hour})
		wantError(t, res, CodeTimeout, MsgTimeout)
	})
	t.Run("cancelled context interrupts", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res := Execute(ctx, Limits{Timeout: time.Hour}.WithDefaults(), Request{Source: "while (true) {}"})
		wantError(t, res, CodeTimeout, MsgTimeout)
	})
	t.Run("a cause on the context is the result", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(20*time.Millisecond, func() {
			cancel(&Error{Code: CodeMemoryLimit, Message: "over 32 MB"})
		})
		res := Execute(ctx, Limits{Timeout: time.Hour}.WithDefaults(), Request{Source: "while (true) {}"})
		wantError(t, res, CodeMemoryLimit, "over 32 MB")
	})
	t.Run("an ended context does not start the script", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		wantError(t, Execute(ctx, testLimits(), Request{Source: "return 1"}), CodeTimeout, MsgTimeout)
	})
}

func TestCallStackDepthIsCapped(t *testing.T) {
	l := Limits{MaxCallStackSize: 50}.WithDefaults()
	res := Execute(context.Background(), l, Request{Source: "function f(n) { return n === 0 ? 0 : 1 + f(n - 1) }\nreturn f(40)"})
	wantOutput(t, res, "40")
	res = Execute(context.Background(), l, Request{Source: "function f(n) { return n === 0 ? 0 : 1 + f(n - 1) }\nreturn f(60)"})
	e := wantError(t, res, CodeScriptError, "RangeError: Maximum call stack size exceeded")
	if e.Line != 1 {
		t.Fatalf("want the recursion's line, got %+v", e)
	}
	// Recursion through a getter and through a built-in callback.
	for _, src := range []string{
		"const o = { get x() { return this.x } }; return o.x",
		"function f() { return [1].map(f) } return f()",
	} {
		wantError(t, run(t, src), CodeScriptError, "RangeError: Maximum call stack size exceeded")
	}
}

// TestResultNestedTooDeeply: a result whose arrays or objects nest past the
// call-stack cap is a SCRIPT_ERROR that says the result is what nests too
// deeply (it read only "Maximum call stack size exceeded", at line 0); an
// overflow in the script's own toJSON keeps its position.
func TestResultNestedTooDeeply(t *testing.T) {
	l := Limits{MaxCallStackSize: 100}.WithDefaults()
	for _, src := range []string{
		"let o = 1; for (let i = 0; i < 150; i++) o = [o]; return o",
		"const o = {}; let c = o; for (let i = 0; i < 150; i++) { c.a = {}; c = c.a } return o",
	} {
		e := wantError(t, Execute(context.Background(), l, Request{Source: src}), CodeScriptError, "")
		if !strings.Contains(e.Message, "while writing the result") || !strings.Contains(e.Message, "100 levels") ||
			!strings.Contains(e.Message, "SANDBOX_MAX_CALL_STACK") {
			t.Errorf("%s: message %q, want it to say the result nests past 100 levels (SANDBOX_MAX_CALL_STACK)", src, e.Message)
		}
	}
	wantOutput(t, Execute(context.Background(), l, Request{Source: "let o = 1; for (let i = 0; i < 50; i++) o = [o]; return o"}),
		strings.Repeat("[", 50)+"1"+strings.Repeat("]", 50))
	e := wantError(t, Execute(context.Background(), l, Request{Source: "const f = () => f()\nreturn {toJSON() { return f() }}"}),
		CodeScriptError, "RangeError: Maximum call stack size exceeded")
	if e.Line != 1 {
		t.Errorf("an overflow in toJSON: %+v, want line 1", e)
	}
}

func TestCapsOnInputsAndOutput(t *testing.T) {
	l := Limits{MaxInputBytes: 10, MaxOutputBytes: 8}.WithDefaults()
	res := Execute(context.Background(), l, Request{Source: "return a", Inputs: []Input{in("a", "0123456789")}})
	e := wantError(t, res, CodeInvalidInput, "")
	if !strings.Contains(e.Message, "SANDBOX_MAX_INPUT_BYTES") {
		t.Errorf("message should name the limit: %q", e.Message)
	}
	res = Execute(context.Background(), l, Request{Source: "return '123456789'"})
	e = wantError(t, res, CodeOutputTooLarge, "")
	if !strings.Contains(e.Message, "SANDBOX_MAX_OUTPUT_BYTES") {
		t.Errorf("message should name the limit: %q", e.Message)
	}
	res = Execute(context.Background(), l, Request{Source: "return 'ççççç'"}) // 5 characters, 10 bytes
	wantError(t, res, CodeOutputTooLarge, "")
	wantOutput(t, Execute(context.Background(), l, Request{Source: "return '12345678'"}), "12345678")
	// An object's serialization, copied out of the VM once for the
	// structured-failure check and the cap alike: exact sizes either way.
	e = wantError(t, Execute(context.Background(), l, Request{Source: "return {a: 'çç'}"}), CodeOutputTooLarge, "") // {"a":"çç"}: 12 bytes
	if !strings.Contains(e.Message, "is 12 bytes") {
		t.Errorf("message should give the exact size: %q", e.Message)
	}
	wantOutput(t, Execute(context.Background(), l, Request{Source: "return {'ç': 1}"}), `{"ç":1}`) // 8 bytes
	// A failure the script reports is its failure, whatever its size.
	res = Execute(context.Background(), l, Request{Source: "return {success: false, error: {code: 'E1', message: 'ç'.repeat(50)}}"})
	if e = wantError(t, res, CodeScriptError, ""); e.Reason != "E1" {
		t.Errorf("reason = %q, want E1", e.Reason)
	}
}

func TestDateUsesTheConfiguredZone(t *testing.T) {
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	saoPaulo, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatalf("loading zone: %v", err)
	}
	time.Local = saoPaulo // as if the host ran in São Paulo
	UseTimeZone(nil)      // the default: UTC
	wantOutput(t, run(t, "return new Date(0).getHours() + ' ' + new Date(0).getTimezoneOffset()"), "0 0")
	wantOutput(t, run(t, "return new Date(Date.UTC(2020, 11, 25, 15, 14, 59)).toLocaleString('pt-BR')"), "25/12/2020, 15:14:59")
	UseTimeZone(saoPaulo)
	wantOutput(t, run(t, "return String(new Date(0).getHours())"), "21")
	// toLocale*String in the configured zone, in the locale's form (goja patch 25).
	wantOutput(t, run(t, "const d = new Date(Date.UTC(2020, 11, 25, 15, 14, 59)); return [d.toLocaleString('pt-BR'), d.toLocaleDateString('en-US'), d.toLocaleTimeString()].join(' | ')"),
		"25/12/2020, 12:14:59 | 12/25/2020 | 12:14:59 PM")
}

func TestErrorValues(t *testing.T) {
	e := &Error{Code: CodeScriptError, Message: "boom", Line: 3, Column: 7}
	if got := e.Error(); got != "SCRIPT_ERROR: boom (line 3, column 7)" {
		t.Errorf("Error() = %q", got)
	}
	if e.Retryable() || !(&Error{Code: CodeCrash}).Retryable() {
		t.Error("only a crash is retryable")
	}
	wrapped := errors.Join(errors.New("context"), e)
	if AsError(wrapped) != e || AsError(errors.New("x")) != nil {
		t.Error("AsError does not find the *Error in a chain")
	}
	if BusyMessage(8) != "Limite de 8 scripts simultâneos atingido. Tente novamente em instantes." {
		t.Errorf("busy message is not the seed's: %q", BusyMessage(8))
	}
}

// A source that binds execute to something other than a function and does
// not return says so, instead of goja's "Value is not an object".
func TestExecuteBoundToAValue(t *testing.T) {
	for src, kind := range map[string]string{
		"var execute = 'yes'":       "a string",
		"var execute = 5":           "a number",
		"let execute = undefined":   "undefined",
		"const execute = {run: 1}":  "an object",
		"var execute = null; var y": "null",
		"execute = true":            "a boolean",
	} {
		want := "TypeError: execute is not a function (it is " + kind + ")"
		wantErrorContaining(t, run(t, src), CodeScriptError, want)
	}
}

// TestCeilingEndsTheRunWhereverItIsHit: a string over the memory limit
// asked for in the script, or in the message getter of what it threw (read
// after the run, to describe the error), is SCRIPT_MEMORY_LIMIT at the line
// that asked (goja patch 93); from the getter it was reported as a timeout.
func TestCeilingEndsTheRunWhereverItIsHit(t *testing.T) {
	for _, src := range []string{
		"return 'x'.repeat(2**29 - 100)",
		"throw { get message() { return 'x'.repeat(2**29 - 100) } }",
		"try { 'ab'.repeat(1e8) } finally { return 1 }",
	} {
		res := run(t, src)
		if res.Err == nil || res.Err.Code != CodeMemoryLimit || res.Err.Line != 1 || !strings.Contains(res.Err.Message, "one string, buffer or array of") {
			t.Errorf("%s: %q, %+v; want SCRIPT_MEMORY_LIMIT at line 1", src, res.Output, res.Err)
		}
	}
}

// TestOutputCapStopsTheSerialization: a result whose text is far larger
// than its values is refused for its size once its text passes the cap,
// not run into the memory limit or the deadline (the hostile probe's
// cases: 300 references to one 100 KB string, 30 MB of JSON, were
// SCRIPT_MEMORY_LIMIT; a sparse array of 2e7 nulls ran to the deadline). A
// reported failure is still read whole.
func TestOutputCapStopsTheSerialization(t *testing.T) {
	l := Limits{MaxOutputBytes: 10_000}.WithDefaults()
	for _, src := range []string{
		`const s = 'x'.repeat(100000); return new Array(300).fill(s)`,
		`const a = []; a.length = 2e7; return a`,
		`return {rows: Array.from({length: 1e5}, (_, i) => ({i}))}`,
		`const o = {}; let cur = o; for (let i = 0; i < 400; i++) cur = cur.next = {pad: 'y'.repeat(100)}; return o`,
	} {
		e := wantError(t, Execute(context.Background(), l, Request{Source: src}), CodeOutputTooLarge, "")
		if !strings.Contains(e.Message, "more than 10000 bytes") || !strings.Contains(e.Message, "SANDBOX_MAX_OUTPUT_BYTES") {
			t.Errorf("%s: message %q should say it passed the limit and name it", src, e.Message)
		}
	}
	res := Execute(context.Background(), l, Request{Source: `return {success: false, error: {code: 'E2', message: 'no'}, rows: new Array(1e5).fill('z'.repeat(10))}`})
	if e := wantError(t, res, CodeScriptError, ""); e.Reason != "E2" {
		t.Errorf("a large reported failure: reason %q, want E2", e.Reason)
	}
	wantOutput(t, Execute(context.Background(), l, Request{Source: `return new Array(1000).fill(1)`}), "["+strings.Repeat("1,", 999)+"1]")
}
