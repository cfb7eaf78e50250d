package sandbox

import (
	"strings"
	"testing"

	"github.com/flowscript/flowscript/examples"
)

// The consequences of the seed's "#461" program assembly (DESIGN.md §2).
func TestProgramFormats(t *testing.T) {
	cases := []struct {
		name   string
		source string
		inputs []Input
		want   string
	}{
		{"body with a top-level return", "return a + b", []Input{in("a", "1"), in("b", "2")}, "12"},
		{"body without return writes empty", "const x = a + '!'", []Input{in("a", "1")}, ""},
		{"body recursion through execute", "if (n === '') return 'done'\nreturn execute(n.slice(1))", []Input{in("n", "abc")}, "done"},
		{"body recursion keeps the generated execute", "return n.length ? execute(n.slice(1)) + n[0] : ''", []Input{in("n", "abc")}, "cba"},
		{"full file with helpers, constants and a class", `
const PREFIX = '>'
class Greeter { constructor(p) { this.p = p } greet(n) { return this.p + n } }
function shout(s) { return s.toUpperCase() }
function execute(name) { return new Greeter(PREFIX).greet(shout(name)) }`, []Input{in("name", "ana")}, ">ANA"},
		{"full file: inputs visible inside helpers", `
function helper() { return first + '-' + second }
function execute() { return helper() }`, []Input{in("first", "x"), in("second", "y")}, "x-y"},
		{"full file: arguments by position in inputVariables order", `
function execute(p, q, r) { return [p, q, r].join(',') }`, []Input{in("c", "3"), in("a", "1"), in("b", "2")}, "3,1,2"},
		{"full file: execute declared after its helpers", `
function helper(x) { return x * 2 }
function execute(n) { return helper(Number(n)) }`, []Input{in("n", "21")}, "42"},
		{"function execute in a comment is not the author's", "// function execute() { return 'comment' }\nreturn 'body'", nil, "body"},
		{"function execute in a block comment is not the author's", "/* function execute() { return 'comment' } */", nil, ""},
		{"function execute in a string is not the author's", "const s = 'function execute() { return 1 }'\nreturn s.length", nil, "31"},
		{"function execute in a template literal is not the author's", "const s = `function execute() {}`", nil, ""},
		{"execute nested in a helper is not the author's", `
function helper() { function execute() { return 'inner' } return execute() }
const x = helper()`, nil, ""},
		{"nested execute still usable by its helper", `
function helper() { function execute() { return 'inner' } return execute() }
return helper()`, nil, "inner"},
		{"source ending in a line comment", "return 'ok' // trailing comment", nil, "ok"},
		{"full file ending in a line comment", "function execute() { return 'ok' } // trailing", nil, "ok"},
		{"full file reassigning an input keeps the original argument", `
a = 'changed'
function execute(x) { return x + ':' + a }`, []Input{in("a", "orig")}, "orig:changed"},
		// §2: the tail calls execute when the name no longer refers to the
		// generated function, whether a declaration shadowed it or the
		// body assigned another function to it.
		{"body assigning a function to execute", "execute = function (x) { return 'assigned:' + x }", []Input{in("a", "1")}, "assigned:1"},
		{"strict body assigning an arrow to execute", "'use strict'\nexecute = (x, y) => x + y", []Input{in("a", "1"), in("b", "2")}, "12"},
		{"body assigning execute, then recursing through it", "if (n === '') return 'done'\nexecute = () => 'replaced'\nreturn execute(n.slice(1))", []Input{in("n", "ab")}, "replaced"},
		{"body assigning execute and returning", "execute = () => 'not called'\nreturn 'returned'", nil, "returned"},
		{"the generated function is named execute", "return execute.name + ':' + typeof execute", nil, "execute:function"},
		{"seed cpf example (examples/cpf.js, with its comments)", examples.CPF, []Input{in("cpf", "123.456.789-09")}, "valido"},
		{"seed cpf example, invalid", seedCPF, []Input{in("cpf", "123")}, "invalido"},
		{"seed nome example", seedNome, []Input{in("nome", "  maria da silva ")}, "Maria Da Silva"},
		{"seed legacy vencimento example", `// inputVariables: [{ name: 'vencimento', value: '{{vencimento}}' }]
const diasRestantes = Math.ceil((new Date(vencimento) - Date.now()) / 86400000)
return String(diasRestantes)`, []Input{in("vencimento", "2000-01-01")}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.source, tc.inputs...)
			if tc.name == "seed legacy vencimento example" {
				// The value depends on today; it must be a negative whole number of days.
				if res.Err != nil || !strings.HasPrefix(res.Output, "-") {
					t.Fatalf("want a negative number of days, got %q, %v", res.Output, res.Err)
				}
				return
			}
			wantOutput(t, res, tc.want)
		})
	}
}

// seedCPF is the seed's cpf script.
var seedCPF = examples.CPF

const seedNome = `function execute(nome) {
  return nome.trim().split(' ').map(capitaliza).join(' ')
}

function capitaliza(parte) {
  return parte[0].toUpperCase() + parte.slice(1)
}`

func TestRedeclaringAnInputIsASyntaxError(t *testing.T) {
	for _, src := range []string{"const a = 1\nreturn a", "let a = 1", "\n\nlet a = 2\nfunction execute() {}"} {
		e := wantError(t, run(t, src, in("a", "x")), CodeSyntaxError, "")
		if !strings.Contains(e.Message, "already been declared") || e.Line < 1 {
			t.Errorf("%q: want a redeclaration error with a line, got %+v", src, e)
		}
	}
	// var and function parameters of the same name are allowed, as in JavaScript.
	wantOutput(t, run(t, "var a = a + '!'\nreturn a", in("a", "x")), "x!")
}

func TestSyntaxErrorPositionsAreTheAuthors(t *testing.T) {
	cases := []struct {
		source       string
		line, column int
		// unfinished: the parser ran into the wrapper's tail, whose tokens
		// the author never wrote; the message says the source is unfinished.
		unfinished bool
	}{
		{"return 1 +* 2", 1, 11, false},
		{"const x = 1\n\nreturn x +* 2", 3, 11, false},
		{"function execute() {\n  return {\n}", 3, 2, true}, // unclosed: reported after the last character
		{"return 1\n/* unterminated comment", 2, 24, true},  // the tail cannot be swallowed silently
		{"return (", 1, 9, true},
		{"return (1", 1, 10, true},
		{"return [1, 2", 1, 13, true},
		{"return 1 +", 1, 11, true},
		// An extra '}' (or two): reported at the first one, which closes
		// execute, not after the end of the source.
		{"return 1 }", 1, 10, false},
		{"return 1\n}", 2, 1, false},
		{"return 1\n}}", 2, 1, false},
		{"var a = 1\n}\nreturn a", 2, 1, false},
		{"function execute() { return 1 }}", 1, 32, false},
		{"function execute() {\n  if (x) { return 1 }}\n}", 3, 1, false}, // the brace that closes execute
		{"return 1 }}, function () {}", 1, 28, true},                     // probed, it parses as (f, function () {}): no brace to name
		{"return 1\n}}}", 2, 3, false},                                   // three: the parser's own error
		// An unclosed [ in a regular expression: goja read on to the next /,
		// through the rest of the source and the wrapper's tail.
		{"function execute(cep) {\n  return valid(cep) ? 'ok' : 'no'\n}\nfunction valid(cep) {\n  return /^[0-9{8}$/.test(cep)\n}", 5, 10, false},
		{"const ok = /^[a-z/.test('X')\nreturn ok", 1, 12, false},
	}
	for _, tc := range cases {
		e := wantError(t, run(t, tc.source), CodeSyntaxError, "")
		if e.Line != tc.line || e.Column != tc.column {
			t.Errorf("%q: want line %d column %d, got %+v", tc.source, tc.line, tc.column, e)
		}
		if !strings.HasPrefix(e.Message, "SyntaxError: ") {
			t.Errorf("%q: message %q should start with SyntaxError", tc.source, e.Message)
		}
		if got := e.Message == MsgUnexpectedEnd; got != tc.unfinished {
			t.Errorf("%q: message %q; want the unfinished-source message: %v", tc.source, e.Message, tc.unfinished)
		}
	}
}

func TestCompileRejectsBadInput(t *testing.T) {
	l := Limits{MaxSourceBytes: 64}.WithDefaults()
	cases := []struct {
		name   string
		source string
		names  []string
		want   string
	}{
		{"empty source", "", nil, "source is empty"},
		{"blank source", " \n\t", nil, "source is empty"},
		{"source over the cap", strings.Repeat("x", 65), nil, "over the limit of 64"},
		{"name not an identifier", "return 1", []string{"a-b"}, "inputVariables[0].name"},
		{"empty name", "return 1", []string{"a", ""}, "inputVariables[1].name: must not be empty"},
		{"reserved word", "return 1", []string{"class"}, "reserved word"},
		{"the generated function's own name", "return 1", []string{"execute"}, "reserved"},
		{"duplicated name", "return 1", []string{"a", "b", "a"}, "inputVariables[2].name: \"a\" is already used by inputVariables[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileWithLimits(tc.source, tc.names, l)
			e := AsError(err)
			if e == nil || e.Code != CodeInvalidInput || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("want %s containing %q, got %v", CodeInvalidInput, tc.want, err)
			}
		})
	}
}

func TestCompiledProgramsAreCached(t *testing.T) {
	src := "return 'cached ' + x // " + t.Name()
	p1, err := Compile(src, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Compile(src, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 {
		t.Error("the same source and names compiled twice")
	}
	p3, err := Compile(src, []string{"y"})
	if err != nil {
		t.Fatal(err)
	}
	if p3 == p1 {
		t.Error("different input names must not share a program: they are its parameters")
	}
}

// TestCacheKeysDoNotCollide: a source that ends with what the key put
// between the source and an input name is another program than the shorter
// source with that input (a job could otherwise run with another's program
// and lose its inputs).
func TestCacheKeysDoNotCollide(t *testing.T) {
	victim := "return typeof a + ' ' + execute.length // " + t.Name()
	attacker, err := Compile(victim+"\x00a", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(victim, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if p == attacker {
		t.Fatal("two jobs' programs share a cache entry")
	}
	if res := run(t, victim, Input{Name: "a", Value: "secret"}); res.Err != nil || res.Output != "string 1" {
		t.Errorf("the victim's run: %q, %+v; want string 1", res.Output, res.Err)
	}
	if k1, k2 := cacheKey("ab", []string{"c"}), cacheKey("a", []string{"bc"}); k1 == k2 {
		t.Error("cacheKey(ab, [c]) = cacheKey(a, [bc])")
	}
}

func TestProgramCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newProgramCache(2000)
	a, b, d := cacheKey("a", nil), cacheKey("b", nil), cacheKey("d", nil)
	c.put(a, &Program{cost: 1000})
	c.put(b, &Program{cost: 1000})
	c.get(a) // a is now the most recent
	c.put(d, &Program{cost: 1000})
	if _, ok := c.get(b); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.get(a); !ok {
		t.Error("a should still be cached")
	}
	if c.len() != 2 {
		t.Errorf("cache holds %d programs, want 2", c.len())
	}
}

func TestSourceCannotEscapeTheGeneratedFunction(t *testing.T) {
	// Sources that parse once wrapped: refused, at the brace that closes execute.
	for _, tc := range []struct {
		source       string
		line, column int
	}{
		{"return 1\n}; var x = function () {", 2, 1},
		{"return 1\n}, escaped = function () {", 2, 1},
		{"const a = 1 }; var b = function () {", 1, 13},
		{"return 1\n}\n{", 2, 1},
	} {
		res := run(t, tc.source)
		if res.Err == nil || res.Err.Code != CodeSyntaxError || res.Err.Line != tc.line || res.Err.Column != tc.column {
			t.Errorf("%q: want SCRIPT_SYNTAX_ERROR at %d:%d, got %q %v", tc.source, tc.line, tc.column, res.Output, res.Err)
		}
	}
	// Sources that do not parse once wrapped: an ordinary syntax error.
	for _, src := range []string{
		"return 1 }); (function () {",
		"}; (function () {",
		"}\n;return execute === $flowscript$generated ? void 0 : 1;\n}; $flowscript$generated = function () { return 'hijacked' }; var y = function () {",
	} {
		wantError(t, run(t, src), CodeSyntaxError, "")
	}
	// Balanced braces in strings, comments, templates and regexes are fine.
	wantOutput(t, run(t, "const s = '}'; // }\nconst r = /\\}/; return s + `}` + r.source"), "}}\\}")
}

// The builder's own names ($flowscript$…) are refused in the author's
// source, at the name: declared, read or assigned, a source could forge what
// the wrapper hands back. As property names and in strings they are data.
func TestInternalNamesAreRefused(t *testing.T) {
	for _, tc := range []struct {
		source       string
		line, column int
	}{
		{"const a = 1\nvar $flowscript$generated = 1", 2, 5},
		{"return [$flowscript$marker, function () { return 'forged' }]", 1, 9},
		{"function execute() {\n  let x = 1\n  return $flowscript$marker\n}", 3, 10},
		{"$flowscript$anything = 2; return 1", 1, 1},
	} {
		res := run(t, tc.source)
		if res.Err == nil || res.Err.Code != CodeSyntaxError || res.Err.Line != tc.line || res.Err.Column != tc.column ||
			!strings.Contains(res.Err.Message, "which FlowScript keeps for the code it wraps around the source") {
			t.Errorf("%q: want SCRIPT_SYNTAX_ERROR at %d:%d, got %q %+v", tc.source, tc.line, tc.column, res.Output, res.Err)
		}
	}
	wantOutput(t, run(t, "const o = {$flowscript$x: 1}; return o.$flowscript$x + '$flowscript$'"), "1$flowscript$")
}

// A byte order mark an editor saved at the start of a file counts no
// column, as in the editor.
func TestByteOrderMarkCountsNoColumn(t *testing.T) {
	e := wantError(t, run(t, "\uFEFFthrow new Error('x')"), CodeScriptError, "Error: x")
	if e.Line != 1 || e.Column != 7 {
		t.Errorf("thrown at %d:%d, want 1:7", e.Line, e.Column)
	}
	wantOutput(t, run(t, "\uFEFFfunction execute() { return 'ok' }"), "ok")
	if err := Validate("\uFEFFreturn (", nil, Limits{}.WithDefaults()); err == nil || AsError(err).Column != 9 {
		t.Errorf("syntax error: %v, want it at column 9", err)
	}
}

// TestLastCodePointEscapeCompiles: "\u{10FFFF}", the last code point, in
// every kind of string literal, is a string of two UTF-16 units; goja's
// lexer left its closing brace unread and the parser panicked, which cost
// the worker (goja patch 123). A code point past it is a syntax error.
func TestLastCodePointEscapeCompiles(t *testing.T) {
	wantOutput(t, run(t, "return [\"\\u{10FFFF}\".length, '\\u{10ffff}'.codePointAt(0), `\\u{0010FFFF}`.length, ({'\\u{10FFFF}': 3})['\\u{10FFFF}']].join()"), "2,1114111,2,3")
	for _, src := range []string{`return "\u{110000}"`, "return `\\u{110000}`", `return "\u{10FFFF"`} {
		wantError(t, run(t, src), CodeSyntaxError, "")
	}
}
