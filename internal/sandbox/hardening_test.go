package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNothingRunsAfterTheResultIsTaken: promise callbacks, await
// continuations and thenable jobs the script queued never run — neither
// before the result is serialized (they cannot change it) nor after (they
// cannot turn a success into a timeout).
func TestNothingRunsAfterTheResultIsTaken(t *testing.T) {
	l := Limits{Timeout: 2 * time.Second}.WithDefaults()
	for src, want := range map[string]string{
		"function f() { Promise.resolve().then(f) } f(); return 1":                                 "1",
		"Promise.resolve().then(() => { for (;;) {} }); return 'done'":                             "done",
		"const o = {a: 1}; Promise.resolve().then(() => { o.a = 2 }); return o":                    `{"a":1}`,
		"const o = {n: 0}; (async () => { await null; o.n = 1 })(); return o":                      `{"n":0}`,
		"const o = {v: 'before'}; Promise.resolve({then(r) { o.v = 'after'; r() }}); return o":     `{"v":"before"}`,
		"async function f() { return {then() { for (;;) {} }} } f(); return 'no thenable job ran'": "no thenable job ran",
		"function execute() { Promise.resolve().then(() => { for (;;) {} }); return 'full file' }": "full file",
		"return {toJSON() { Promise.resolve().then(() => { for (;;) {} }); return 'x' }}":          `"x"`,
		"new Promise(r => r()).finally(() => { for (;;) {} }); return 'finally never runs'":        "finally never runs",
	} {
		t.Run(src, func(t *testing.T) {
			start := time.Now()
			res := Execute(context.Background(), l, Request{Source: src})
			wantOutput(t, res, want)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v: something ran after the result", d)
			}
		})
	}
}

// stackFrame is one "\tat …" line of error.stack.
var stackFrame = regexp.MustCompile(`^\tat (?:(\S+) \()?script\.js:(\d+):(\d+)\(\d+\)\)?$`)

// TestErrorStackShowsOnlyTheAuthorsFrames: error.stack, read by the script,
// holds the author's frames with the author's positions — no frame of the
// wrapper, the lockdown or the serializer.
func TestErrorStackShowsOnlyTheAuthorsFrames(t *testing.T) {
	for _, tc := range []struct {
		source string
		frames []string // "name line:column", innermost first
	}{
		{"try { null.x } catch (e) { return e.stack }", []string{"execute 1:12"}},
		{"const a = 1\nreturn new Error('x').stack", []string{"execute 2:8"}},
		{"function execute() { return helper() }\nfunction helper() { return new Error('x').stack }",
			[]string{"helper 2:28", "execute 1:35"}},
		{"return {toJSON() { return new Error('s').stack }}", []string{"toJSON 1:27"}},
		{"return [1].map(function inner() { return new Error('m').stack })[0]", []string{"inner 1:42", "map", "execute 1:15"}},
		{"const a = 1\u2028const b = 2\r\nreturn new Error('x').stack", []string{"execute 3:8"}},
		{"function execute(x) {\r  return new Error(x).stack\r}", []string{"execute 2:10"}},
	} {
		t.Run(tc.source, func(t *testing.T) {
			res := run(t, tc.source, in("x", "m"))
			if !res.OK() {
				t.Fatal(res.Err)
			}
			stack := res.Output
			if strings.HasPrefix(stack, `"`) {
				if err := jsonUnquote(stack, &stack); err != nil {
					t.Fatal(err)
				}
			}
			lines := strings.Split(strings.TrimSuffix(stack, "\n"), "\n")[1:]
			var got []string
			for _, line := range lines {
				if line == "\tat map (native)" {
					got = append(got, "map")
					continue
				}
				m := stackFrame.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("frame %q is not the author's; stack:\n%s", line, stack)
				}
				got = append(got, fmt.Sprintf("%s %s:%s", m[1], m[2], m[3]))
			}
			if strings.Join(got, ", ") != strings.Join(tc.frames, ", ") {
				t.Errorf("frames %q; want %q; stack:\n%s", got, tc.frames, stack)
			}
		})
	}
}

// TestPositionsAfterEveryLineTerminator: a thrown error, a syntax error
// found by the parser and one found by the compiler are on the author's
// line after \n, \r\n, \r, U+2028 and U+2029, the column counted from the
// line's start.
func TestPositionsAfterEveryLineTerminator(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n", "\r", "\u2028", "\u2029"} {
		t.Run(fmt.Sprintf("%q", nl), func(t *testing.T) {
			e := wantErrorContaining(t, run(t, "const a = 1"+nl+"  null.x"), CodeScriptError, "TypeError")
			if e.Line != 2 || e.Column != 8 {
				t.Errorf("thrown: line %d column %d; want 2:8", e.Line, e.Column)
			}
			e = wantErrorContaining(t, run(t, "const a = 1"+nl+nl+"  )"), CodeSyntaxError, "")
			if e.Line != 3 || e.Column != 3 {
				t.Errorf("parser: line %d column %d; want 3:3", e.Line, e.Column)
			}
			e = wantErrorContaining(t, run(t, "const a = 1"+nl+"let a = 2", in("b", "")), CodeSyntaxError, "already been declared")
			if e.Line != 2 || e.Column != 5 {
				t.Errorf("compiler: line %d column %d; want 2:5", e.Line, e.Column)
			}
			e = wantErrorContaining(t, run(t, "const a = 1"+nl+"return "+strings.Repeat("[", MaxNesting+1)), CodeSyntaxError, "levels deep")
			if e.Line != 2 || e.Column != 8+MaxNesting {
				t.Errorf("nesting: line %d column %d; want 2:%d", e.Line, e.Column, 8+MaxNesting)
			}
			// An unclosed construct is reported just after the source's end.
			e = wantErrorContaining(t, run(t, "const a = 1"+nl+"return (1"), CodeSyntaxError, "")
			if e.Line != 2 || e.Column != 10 {
				t.Errorf("unexpected end: line %d column %d; want 2:10", e.Line, e.Column)
			}
		})
	}
}

// TestColumnsCountUTF16Units: every kind of error position counts its
// column as JavaScript engines and editors do, in UTF-16 units: 'ação'
// takes 4 columns (6 bytes), an emoji 2 (4 bytes). Node reports the same
// columns for the thrown error and the parser's.
func TestColumnsCountUTF16Units(t *testing.T) {
	const before = "const s = 'ação 😀'; " // 21 columns, 25 bytes
	e := wantErrorContaining(t, run(t, "\n"+before+"null.x"), CodeScriptError, "TypeError")
	if e.Line != 2 || e.Column != 27 {
		t.Errorf("thrown: line %d column %d; want 2:27", e.Line, e.Column)
	}
	e = wantErrorContaining(t, run(t, before+")"), CodeSyntaxError, "")
	if e.Line != 1 || e.Column != 22 {
		t.Errorf("parser: line %d column %d; want 1:22", e.Line, e.Column)
	}
	e = wantErrorContaining(t, run(t, before+"let s = 2", in("b", "")), CodeSyntaxError, "already been declared")
	if e.Line != 1 || e.Column != 26 {
		t.Errorf("compiler: line %d column %d; want 1:26", e.Line, e.Column)
	}
	e = wantErrorContaining(t, run(t, before+"return "+strings.Repeat("[", MaxNesting+1)), CodeSyntaxError, "levels deep")
	if e.Line != 1 || e.Column != 29+MaxNesting {
		t.Errorf("nesting: line %d column %d; want 1:%d", e.Line, e.Column, 29+MaxNesting)
	}
	e = wantErrorContaining(t, run(t, before+"return (1"), CodeSyntaxError, "")
	if e.Line != 1 || e.Column != 31 {
		t.Errorf("unexpected end: line %d column %d; want 1:31", e.Line, e.Column)
	}
}

func TestColumn(t *testing.T) {
	const src = "aé😀b\r\nçx\u2028y"
	for _, tc := range []struct{ line, byteCol, want int }{
		{1, 1, 1}, {1, 2, 2}, {1, 4, 3}, {1, 8, 5}, {1, 9, 6}, // a, é, 😀, b, the \r
		{1, 12, 9},           // past the line's end: on in bytes
		{2, 1, 1}, {2, 3, 2}, // after \r\n: ç, x
		{3, 1, 1},                       // after U+2028
		{4, 5, 5}, {0, 3, 3}, {1, 0, 0}, // not in the source: as given
	} {
		if got := Column(src, tc.line, tc.byteCol); got != tc.want {
			t.Errorf("Column(line %d, byte column %d) = %d, want %d", tc.line, tc.byteCol, got, tc.want)
		}
	}
}

// TestDeepNestingIsASyntaxError: nesting past the builder's bounds is a
// syntax error at the author's line, whatever nests; the same depth inside
// strings, comments, templates' text and regular expressions does not count.
func TestDeepNestingIsASyntaxError(t *testing.T) {
	over := MaxNesting + 1
	for name, tc := range map[string]struct {
		source       string
		line, column int
	}{
		"arrays":          {"return " + strings.Repeat("[", over) + strings.Repeat("]", over), 1, 8 + MaxNesting},
		"unclosed arrays": {"return " + strings.Repeat("[", 262000), 1, 8 + MaxNesting},
		"blocks":          {"\n" + strings.Repeat("{", 40000) + strings.Repeat("}", 40000), 2, 1 + MaxNesting},
		"parentheses":     {"return " + strings.Repeat("(", over) + "1" + strings.Repeat(")", over), 1, 8 + MaxNesting},
		"calls":           {"return " + strings.Repeat("f(", over) + strings.Repeat(")", over), 1, 9 + 2*MaxNesting},
		"objects":         {"return " + strings.Repeat("{a:", over) + "1" + strings.Repeat("}", over), 1, 8 + 3*MaxNesting},
		"template holes":  {"return " + strings.Repeat("`${", over) + "1" + strings.Repeat("}`", over), 1, 9 + 3*MaxNesting},
		// The 501st function's parameter list is the 501st level.
		"functions":          {strings.Repeat("function f() {", over) + strings.Repeat("}", over), 1, 14*MaxNesting + 11},
		"mixed, line 3":      {"let x\nlet y\nreturn " + strings.Repeat("[{(", 200), 3, 8 + MaxNesting},
		"a chain of sums":    {"return 1" + strings.Repeat(" + 1", MaxSyntaxDepth+10), 1, 8},
		"unary operators":    {"return " + strings.Repeat("!", MaxSyntaxDepth+10) + "1", 1, 0},
		"a chain of members": {"return a" + strings.Repeat(".b", MaxSyntaxDepth+10), 1, 8},
		"else-ifs":           {"if (a) {}" + strings.Repeat("\nelse if (a) {}", MaxSyntaxDepth+10), 0, 0},
	} {
		t.Run(name, func(t *testing.T) {
			e := wantErrorContaining(t, run(t, tc.source, in("a", "")), CodeSyntaxError, "")
			if tc.line != 0 && (e.Line != tc.line || tc.column != 0 && e.Column != tc.column) {
				t.Errorf("at %d:%d; want %d:%d", e.Line, e.Column, tc.line, tc.column)
			}
			if e.Line == 0 {
				t.Errorf("no line: %v", e)
			}
		})
	}
	deep := MaxNesting + 100
	for name, src := range map[string]string{
		"in a string":             "const s = '" + strings.Repeat("[", deep) + "'; return s.length",
		"in a comment":            "// " + strings.Repeat("(", deep) + "\n/* " + strings.Repeat("{", deep) + " */ return 1",
		"in a template's text":    "return `" + strings.Repeat("{", deep) + "${1}" + strings.Repeat("[", deep) + "`.length",
		"in a regex":              "return /[" + strings.Repeat("(", deep) + "]/.source.length",
		"in a regex after return": "return /" + strings.Repeat("\\(", deep) + "/.source.length",
		"balanced, just enough":   "return " + strings.Repeat("[", MaxNesting-2) + strings.Repeat("]", MaxNesting-2) + ".length",
		"a division, not a regex": "const a = 4, b = 2, g = 1; return a / b / g + [1][0]",
	} {
		t.Run(name, func(t *testing.T) {
			if res := run(t, src); !res.OK() {
				t.Errorf("got %v; want the source to run", res.Err)
			}
		})
	}
}

// TestEnginePanicsAreTheScriptsErrors: a Go panic inside goja on the
// script's behalf is the script's error, not the platform's. The BigInts
// that made goja panic (a slice of 2^53 bits) are now V8's RangeError,
// which a script can catch (goja patches 125, 126), and a constant one
// that goja's compiler folds no longer panics at compile time (which cost
// a worker); the panics' classification is checked by their values.
func TestEnginePanicsAreTheScriptsErrors(t *testing.T) {
	for _, src := range []string{
		"return BigInt.asUintN(2**53 - 1, -1n)",
		"function execute() { return [2n].map(x => BigInt.asUintN(2**53 - 1, -x)) }",
		"return 1n << (2n ** 53n)",
		"const n = 53n; return 1n << (2n ** n)",
		"return 2n ** (2n ** 40n)",
	} {
		t.Run(src, func(t *testing.T) {
			wantError(t, run(t, src), CodeScriptError, "RangeError: Maximum BigInt size exceeded")
		})
	}
	wantOutput(t, run(t, "try { return 1n << (2n ** 53n) } catch (e) { return e.name }"), "RangeError")
	wantOutput(t, run(t, "return BigInt.asIntN(2**53 - 1, -3n)"), "-3")
	for value, code := range map[string]Code{
		"runtime error: makeslice: cap out of range":   CodeMemoryLimit,
		"runtime error: growslice: len out of range":   CodeMemoryLimit,
		"runtime: out of memory":                       CodeMemoryLimit,
		"runtime error: index out of range [5] with 3": CodeScriptError,
		"unexpected state":                             CodeScriptError,
	} {
		e := (&enginePanic{value: value}).classify(testLimits())
		if e.Code != code || !strings.Contains(e.Message, value) {
			t.Errorf("%q: %v; want %s with the engine's message", value, e, code)
		}
	}
}

// TestRegexpHasNoLimitOfItsOwn: past regexp2's former backtracking limit
// (about 20,000 characters for this pattern), the answer is still right.
func TestRegexpHasNoLimitOfItsOwn(t *testing.T) {
	for _, n := range []int{10000, 20000, 50000} {
		res := run(t, "return [/^(?:(?!DROP)[\\s\\S])*DROP/.test(s + 'DROP'), /^(?:(?!DROP)[\\s\\S])*DROP/.test(s)].join()",
			in("s", strings.Repeat("a", n)))
		wantOutput(t, res, "true,false")
	}
}

// TestProgramCacheIsBoundedByBytes: the cache keeps programs up to its
// bound in bytes of cost, evicting the least recently used, and does not
// keep a program bigger than the whole bound.
func TestProgramCacheIsBoundedByBytes(t *testing.T) {
	c := newProgramCache(100 << 10)
	for i := range 50 {
		c.put(cacheKey(fmt.Sprint(i), nil), &Program{cost: 10 << 10})
	}
	held, added := c.stats()
	if held > 100<<10 || c.len() != 10 || added != 50*10<<10 {
		t.Errorf("held %d bytes in %d programs, %d added; want 10 programs, 100 KiB", held, c.len(), added)
	}
	c.put(cacheKey("huge", nil), &Program{cost: 200 << 10})
	if _, ok := c.get(cacheKey("huge", nil)); ok {
		t.Error("a program bigger than the bound was kept")
	}
	c.setMax(30 << 10)
	if held, _ := c.stats(); held > 30<<10 || c.len() != 3 {
		t.Errorf("after lowering the bound: %d bytes in %d programs", held, c.len())
	}

	// Compiling measures a program's cost: more for a source that compiles
	// big than for a plain one of the same size.
	plain, err := compile("return '"+strings.Repeat("x", 1000)+"'", nil)
	if err != nil {
		t.Fatal(err)
	}
	regexes, err := compile("return ["+strings.Repeat("/a{1000}/,", 100)+"]", nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.cost < 1000 || regexes.cost < 1<<20 {
		t.Errorf("costs: plain %d bytes, regex literals %d bytes; want ≥ 1000 and ≥ 1 MiB", plain.cost, regexes.cost)
	}
}

// TestValidateKeepsNothing: the save-time check compiles without caching.
func TestValidateKeepsNothing(t *testing.T) {
	src := "return 'validated " + t.Name() + "'"
	if err := Validate(src, nil, testLimits()); err != nil {
		t.Fatal(err)
	}
	if _, ok := programs.get(cacheKey(src, nil)); ok {
		t.Error("Validate cached the program")
	}
	if err := Validate("return (", nil, testLimits()); AsError(err) == nil || AsError(err).Code != CodeSyntaxError {
		t.Errorf("Validate of a syntax error: %v", err)
	}
}

// wantErrorContaining fails unless res failed with code and a message
// containing msg. It returns a copy of the error for more checks.
func wantErrorContaining(t *testing.T, res Result, code Code, msg string) Error {
	t.Helper()
	if res.Err == nil || res.Err.Code != code || !strings.Contains(res.Err.Message, msg) {
		t.Fatalf("want error %s containing %q, got %q %v", code, msg, res.Output, res.Err)
	}
	return *res.Err
}

func jsonUnquote(s string, out *string) error { return json.Unmarshal([]byte(s), out) }

// TestProxiesNeverCrashTheHost: a thrown or returned Proxy, revoked or
// with traps that throw or loop, ends as the script's error (or output),
// never as a panic of the Go code around the script; console.log of what
// cannot be shown names it instead of failing the script.
func TestProxiesNeverCrashTheHost(t *testing.T) {
	for _, c := range []struct{ src, code, output string }{
		{"throw new Proxy({}, {getPrototypeOf() { throw 1 }})", string(CodeScriptError), ""},
		{"throw Object.create(new Proxy({}, {getPrototypeOf() { throw 1 }}))", string(CodeScriptError), ""},
		{"const {proxy, revoke} = Proxy.revocable({}, {}); revoke(); return proxy", string(CodeScriptError), ""},
		{"const {proxy, revoke} = Proxy.revocable({}, {}); revoke(); throw proxy", string(CodeScriptError), ""},
		{"throw new Proxy({}, {getPrototypeOf() { for (;;) {} }})", string(CodeScriptError), ""},
		{"const {proxy, revoke} = Proxy.revocable({}, {}); revoke(); console.log(proxy); return 'logged'", "", "logged"},
		{"const a = {}; a.self = a; console.log(a, 1n); return 'logged'", "", "logged"},
	} {
		res := run(t, c.src)
		if c.code == "" {
			wantOutput(t, res, c.output)
			continue
		}
		if res.Err == nil || string(res.Err.Code) != c.code {
			t.Errorf("%s: %q, %+v; want %s", c.src, res.Output, res.Err, c.code)
		}
	}
}
