package guardrails

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// at is a finding's code and position, what the table pins down.
type at struct {
	code      Code
	line, col int
}

func (a at) String() string { return fmt.Sprintf("%s@%d:%d", a.code, a.line, a.col) }

func positions(fs []Finding) []at {
	out := make([]at, 0, len(fs))
	for _, f := range fs {
		out = append(out, at{f.Code, f.Line, f.Column})
	}
	return out
}

func TestCheckFindsFreeReferencesOnly(t *testing.T) {
	tests := []struct {
		name   string
		source string
		inputs []string
		want   []at
	}{
		{"require call", "return require('fs')", nil, []at{{CodeRequire, 1, 8}}},
		{"local process shadows", "const process = {env: 1}\nreturn process.env", nil, nil},
		{"parameter shadows", "function execute(process) { return process }", nil, nil},
		{"input name shadows", "return process", []string{"process"}, nil},
		{"property names are not references", "var o = {}\nreturn [o.process, {process: 1}, o['fetch']]", nil, nil},
		{"shorthand property reads the variable", "return {process}", nil, []at{{CodeProcess, 1, 9}}},
		{"typeof guard is a feature test", "if (typeof process !== 'undefined') return 1", nil, nil},
		{"typeof of a member still reads the name", "return typeof process.env", nil, []at{{CodeProcess, 1, 15}}},
		{"process in execute", "function execute() {\n  process.exit('x')\n  return 1\n}", nil, []at{{CodeProcess, 2, 3}}},
		{"console is the sandbox's", "function execute() {\n  console.log('x')\n  console.error(globalThis.console)\n  return 1\n}", nil, nil},
		{"console methods it lacks", "console.clear()\nconsole['profile']('t')\nconsole.log.bind(console)\nreturn 1", nil, []at{{CodeConsole, 1, 9}, {CodeConsole, 2, 9}}},
		{"Node's console methods it has", "console.table([{a: 1}])\nconsole.time('t'); console.timeEnd('t')\nconsole.group(); console.dir(1); console.groupEnd()\nconsole.assert(true); console.count(); console.trace('x')\nreturn 1", nil, nil},
		{"a console of the author's", "const console = {table() {}}\nconsole.table([1])", nil, nil},
		{"capability globals are the sandbox's", "if (capabilities.includes('kv')) kv.set('a', 1)\nreturn [approval.request({}), globalThis.capabilities]", nil, nil},
		{"timers", "setTimeout(f, 1)\nclearInterval(1)", nil, []at{{CodeTimer, 1, 1}, {CodeTimer, 2, 1}}},
		{"eval", "return eval('1')", nil, []at{{CodeEval, 1, 8}}},
		{"Buffer", "return Buffer.from('x')", nil, []at{{CodeBuffer, 1, 8}}},
		{"fetch", "const r = fetch('http://x')", nil, []at{{CodeNetwork, 1, 11}}},
		{"global and module", "global.x = 1\nmodule.exports = 2", nil, []at{{CodeHostObject, 1, 1}, {CodeModule, 2, 1}}},
		{"optional chain still throws", "return process?.env", nil, []at{{CodeProcess, 1, 8}}},
		{"new Function", "return new Function('return 1')()", nil, []at{{CodeFunctionConstructor, 1, 12}}},
		{"Function call", "return Function('return 1')()", nil, []at{{CodeFunctionConstructor, 1, 8}}},
		{"Function.call", "return Function.call(null, 'x')", nil, []at{{CodeFunctionConstructor, 1, 8}}},
		{"constructor.constructor", "return ({}).constructor.constructor('return this')()", nil, []at{{CodeFunctionConstructor, 1, 25}}},
		{"function literal constructor", "return (function(){}).constructor('x')", nil, []at{{CodeFunctionConstructor, 1, 23}}},
		{"bracket constructor", "return (() => 1)['constructor']('x')", nil, []at{{CodeFunctionConstructor, 1, 18}}},
		{"declared function's constructor", "function h(){}; return h.constructor('return 1')()", nil, []at{{CodeFunctionConstructor, 1, 26}}},
		{"execute's constructor", "return execute.constructor('x')", nil, []at{{CodeFunctionConstructor, 1, 16}}},
		{"a built-in method's constructor", "return Math.max.constructor('x')", nil, []at{{CodeFunctionConstructor, 1, 17}}},
		{"generator's constructor", "function* g(){}; return g.constructor('yield 1')", nil, []at{{CodeFunctionConstructor, 1, 27}}},
		{"globalThis.Function", "return globalThis.Function('x')", nil, []at{{CodeFunctionConstructor, 1, 19}}},
		{"Function handed to a call", "return Reflect.construct(Function, ['x'])", nil, []at{{CodeFunctionConstructor, 1, 26}}},
		{"Function.prototype.constructor", "return Function.prototype.constructor('x')", nil, []at{{CodeFunctionConstructor, 1, 27}}},
		{"this.constructor in a class", "class A { clone() { return new this.constructor() } }\nreturn new A().clone()", nil, nil},
		{"a variable's constructor", "var h = {}; function k() {}\nreturn h.constructor(1)", nil, nil},
		{"Function as a value", "return [x instanceof Function, Function.prototype]", nil, nil},
		{"local Function", "function Function(a) { return a }\nreturn Function(1)", nil, nil},
		{"async execute (at the async keyword)", "async function execute() { return 1 }", nil, []at{{CodeAsyncExecute, 1, 1}}},
		{"async execute arrow", "const execute = async () => 1", nil, []at{{CodeAsyncExecute, 1, 17}}},
		{"async helper warns", "async function helper() {}\nfunction execute() { return 1 }", nil, []at{{CodeAsyncFunction, 1, 1}}},
		{"nested async execute is a helper", "function outer() { async function execute() {} }", nil, []at{{CodeAsyncFunction, 1, 20}}},
		{"var hoisting", "return fetch\nvar fetch = 1", nil, nil},
		{"function hoisting", "return f()\nfunction f() { var console = 1; return console }", nil, nil},
		{"block scope ends", "{ let fetch = 1 }\nreturn fetch()", nil, []at{{CodeNetwork, 2, 8}}},
		{"annex B block function", "if (true) { function fetch() {} }\nreturn fetch()", nil, nil},
		{"catch parameter", "try { x() } catch (console) { console.x }", nil, nil},
		{"catch destructured parameter", "try { x() } catch ({process}) { process.x }", nil, nil},
		{"destructuring default", "const {a = require('x')} = {}", nil, []at{{CodeRequire, 1, 12}}},
		{"destructuring binds", "const {process, b: [fetch]} = {}\nreturn process + fetch", nil, nil},
		{"destructuring assignment writes a global", "let a\n;({process: a} = {});\n({fetch} = {})", nil, []at{{CodeNetwork, 3, 3}}},
		{"arrow parameter", "const f = (console) => console.log(1)", nil, nil},
		{"arrow default parameter", "const f = (a = process) => a", nil, []at{{CodeProcess, 1, 16}}},
		{"named function expression", "const f = function fetch() { return fetch }\nreturn fetch", nil, []at{{CodeNetwork, 2, 8}}},
		{"method does not bind its name", "var o = { process() { return process } }", nil, []at{{CodeProcess, 1, 30}}},
		{"class body", "class A { m() { return Buffer } static x = fetch }", nil, []at{{CodeBuffer, 1, 24}, {CodeNetwork, 1, 44}}},
		{"class name binds", "class process {}\nreturn process", nil, nil},
		{"labels are not references", "process: for (;;) { break process }", nil, nil},
		{"for of with const", "for (const console of [1]) console.x", nil, nil},
		{"for loop let", "for (let require = 0; require < 1; require++) {}", nil, nil},
		{"switch lexical scope", "switch (1) { case 1: let fetch = 1; return fetch }", nil, nil},
		{"comments and strings", "// require('fs')\n/* process.env */\nreturn 'console.log(fetch)' + `${'eval'}`", nil, nil},
		{"template expression", "return `${process.env.X}`", nil, []at{{CodeProcess, 1, 11}}},
		{"globalThis member warns", "return [globalThis.process, globalThis['fetch'], globalThis.Math]", nil, []at{{CodeGlobalThisHost, 1, 20}, {CodeGlobalThisHost, 1, 40}}},
		{"arguments is bound", "return arguments.length", nil, nil},
		{"execute recursion", "if (n > 0) return execute(n - 1)\nreturn 0", []string{"n"}, nil},
		// Columns count UTF-16 units, as editors do: ç and ã one each, 😀 two.
		{"columns count characters on the line", "const s = 'ção'; return fetch", nil, []at{{CodeNetwork, 1, 25}}},
		{"an emoji counts two columns", "const s = '😀'\nconst t = 'é😀'; return fetch", nil, []at{{CodeNetwork, 2, 25}}},
		{"windows line ends", "var a = 1\r\nreturn process", nil, []at{{CodeProcess, 2, 8}}},
		{"closing the wrapper", "}; var x = function() {", nil, []at{{CodeWrapperEscape, 1, 1}}},
		{"closing the wrapper as a declaration", "return 1\n}\nfunction x() {", nil, []at{{CodeWrapperEscape, 2, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(tt.source, tt.inputs)
			if err != nil {
				t.Fatalf("Check(%q): unexpected error %v", tt.source, err)
			}
			if fmt.Sprint(positions(got)) != fmt.Sprint(tt.want) {
				t.Errorf("Check(%q)\n got %v\nwant %v", tt.source, positions(got), tt.want)
			}
			for _, f := range got {
				if f.Message == "" || f.Name == "" || f.Severity == "" {
					t.Errorf("finding %+v has an empty field", f)
				}
			}
		})
	}
}

func TestCheckSeverities(t *testing.T) {
	tests := []struct {
		source    string
		wantError bool
	}{
		{"return require('x')", true},
		{"console.log(1)", false},
		{"setTimeout(f, 1)", true},
		{"async function execute() {}", true},
		{"async function h() {}", false},
		{"return globalThis.process", false},
		{"return 1", false},
	}
	for _, tt := range tests {
		got, err := Check(tt.source, nil)
		if err != nil {
			t.Fatalf("Check(%q): %v", tt.source, err)
		}
		if HasErrors(got) != tt.wantError {
			t.Errorf("HasErrors(Check(%q)) = %v, want %v (findings %v)", tt.source, !tt.wantError, tt.wantError, got)
		}
	}
}

// Checked without its inputs (a template at save time), a body-form
// source that reads a host global's name may be reading an input of that
// name: the error stays, and says how to declare the input. With the
// inputs known (a test run, a job), an input of that name is no finding.
func TestCheckWithoutInputsSaysHowToDeclareOne(t *testing.T) {
	const source = "return document.replace(/\\D/g, '')"
	got, err := Check(source, nil)
	if err != nil || len(got) != 1 || got[0].Severity != SeverityError ||
		!strings.HasSuffix(got[0].Message, "; if a job gives the script an input named document, declare the job's inputs as execute's parameters, in the job's order: function execute(document) { … } for that input alone") {
		t.Errorf("saved without inputs: %v, %v", got, err)
	}
	if got, _ := Check(source, []string{}); len(got) != 1 || strings.Contains(got[0].Message, "input named") {
		t.Errorf("with no inputs: %v", got)
	}
	if got, _ := Check(source, []string{"document"}); len(got) != 0 {
		t.Errorf("with an input named document: %v", got)
	}
	if got, _ := Check("function execute(document) { return document.trim() }", nil); len(got) != 0 {
		t.Errorf("declared as execute's parameter: %v", got)
	}
}

func TestCheckImportIsASyntaxErrorWithAFinding(t *testing.T) {
	tests := []struct {
		source    string
		line, col int
	}{
		{"import fs from 'fs'\nreturn 1", 1, 1},
		{"const x = 1\nconst m = import('fs')", 2, 11},
		{"return import.meta", 1, 8},
	}
	for _, tt := range tests {
		got, err := Check(tt.source, nil)
		se := sandbox.AsError(err)
		if se == nil || se.Code != sandbox.CodeSyntaxError {
			t.Fatalf("Check(%q) error = %v, want a %s", tt.source, err, sandbox.CodeSyntaxError)
		}
		want := []at{{CodeImport, tt.line, tt.col}}
		if fmt.Sprint(positions(got)) != fmt.Sprint(want) {
			t.Errorf("Check(%q) = %v, want %v", tt.source, positions(got), want)
		}
	}
}

func TestCheckSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		source    string
		line, col int
	}{
		{"var = 1", 1, 5},
		{"return 1\n})(); (function() {", 2, 2}, // the builder refuses it too
		{"return 1\nlet x = (", 2, 10},          // end of input: clamped to the source's end
		{"function f() {", 1, 15},               // unclosed: clamped to the source's end
		{"const important = 1\nreturn important +", 2, 19},
	}
	for _, tt := range tests {
		got, err := Check(tt.source, nil)
		se := sandbox.AsError(err)
		if se == nil || se.Code != sandbox.CodeSyntaxError {
			t.Fatalf("Check(%q) error = %v, want a %s", tt.source, err, sandbox.CodeSyntaxError)
		}
		if se.Line != tt.line || se.Column != tt.col {
			t.Errorf("Check(%q) error at %d:%d (%s), want %d:%d", tt.source, se.Line, se.Column, se.Message, tt.line, tt.col)
		}
		if len(got) != 0 {
			t.Errorf("Check(%q) findings = %v, want none", tt.source, got)
		}
	}
}

func TestCheckCapsFindings(t *testing.T) {
	src := strings.Repeat("process.exit(1)\n", MaxFindings+50)
	got, err := Check(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxFindings {
		t.Errorf("got %d findings, want the cap %d", len(got), MaxFindings)
	}
}

func TestCheckIgnoresSourceMapComments(t *testing.T) {
	// goja's parser reads the file a sourceMappingURL names unless told not
	// to: a save must never touch the disk on the author's say.
	src := "return process\n//# sourceMappingURL=/dev/zero"
	got, err := Check(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []at{{CodeProcess, 1, 8}}; fmt.Sprint(positions(got)) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", positions(got), want)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"return require('x')", "function execute(a) { return a }", "}); (function(){",
		"import x from 'y'", "const {a = process} = {}", "class A { static { console } }", "api.get(x, '/a'); kv.set(k)",
		"return `${fetch}`", "label: { break label }", "\u2028return console",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		findings, _ := Check(src, []string{"a"})
		lines := len(lineStarts(src))
		for _, fd := range findings {
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Fatalf("finding %v outside the source (%d lines): %q", fd, lines, src)
			}
		}
	})
}

// FuzzInspect: the save-time verdict never panics, whatever the source —
// deeply nested, pathological or plain — and it is consistent: findings
// are never nil, positions are in the source, an error is a syntax error or
// an input problem, and a source the builder refuses for its depth is
// refused with a line.
func FuzzInspect(f *testing.F) {
	for _, s := range []string{
		"return require('x')", "return " + strings.Repeat("[", 600), strings.Repeat("{", 600) + strings.Repeat("}", 600),
		"return " + strings.Repeat("!", 2100) + "1", "return 1" + strings.Repeat("+1", 2100), "if (a) {}" + strings.Repeat(" else if (a) {}", 2100),
		"return `" + strings.Repeat("${`", 300), "async function execute() {}", "}); (function(){", "const a = 1\u2028\u2029return process",
		"return /[(/", "'" + strings.Repeat("(", 700) + "'", "return " + strings.Repeat("a?1:", 2100) + "2",
	} {
		f.Add(s)
	}
	l := sandbox.Limits{MaxSourceBytes: 64 << 10}.WithDefaults()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 6<<10 {
			return // see sandbox.FuzzBuilderDeep: the parser's errors grow with the square of some texts
		}
		r := Inspect(src, []string{"a"}, l)
		if r.Findings == nil {
			t.Fatal("nil findings")
		}
		if r.Uses.Capabilities == nil || r.Uses.Connectors == nil || len(r.Uses.Connectors) > MaxConnectors {
			t.Fatalf("uses %+v: nil, or over the cap", r.Uses)
		}
		lines := len(lineStarts(src))
		for _, fd := range r.Findings {
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Fatalf("finding %v outside the source (%d lines): %q", fd, lines, src)
			}
		}
		for _, e := range []*sandbox.Error{r.Compile, r.Parse} {
			if e != nil && e.Code != sandbox.CodeSyntaxError && e.Code != sandbox.CodeInvalidInput {
				t.Fatalf("error %v is neither a syntax error nor an input problem", e)
			}
			if e != nil && strings.Contains(e.Message, "levels deep") && e.Line == 0 {
				t.Fatalf("a depth error without a line: %v", e)
			}
		}
	})
}

// TestCheckWarnsOfBidirectionalControls: a Trojan Source script (an
// override and isolates inside a string and a comment, CVE-2021-42574)
// saves with a warning at each control, in UTF-16 columns; the warnings
// stop at maxBidiFindings, and a marker of direction (U+200F) is no
// finding.
func TestCheckWarnsOfBidirectionalControls(t *testing.T) {
	src := "var access = 'user';\nif (access !== 'user\u202e \u2066// Check if admin\u2069 \u2066') { return 'admin' }\nreturn 'é\u200f'"
	got, err := Check(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name      string
		line, col int
	}{{"U+202E", 2, 21}, {"U+2066", 2, 23}, {"U+2069", 2, 41}, {"U+2066", 2, 43}}
	if len(got) != len(want) || HasErrors(got) {
		t.Fatalf("findings %v, want %d warnings", got, len(want))
	}
	for i, w := range want {
		f := got[i]
		if f.Code != CodeBidiControl || f.Severity != SeverityWarning || f.Name != w.name || f.Line != w.line || f.Column != w.col ||
			!strings.Contains(f.Message, "display otherwise than it runs") {
			t.Errorf("finding %d: %v, want %s at %d:%d", i, f, w.name, w.line, w.col)
		}
	}
	many, err := Check("// "+strings.Repeat("\u202e", 20)+"\nreturn 1", nil)
	if err != nil || len(many) != maxBidiFindings {
		t.Errorf("%d findings (%v), want %d", len(many), err, maxBidiFindings)
	}
}
