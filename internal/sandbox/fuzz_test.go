package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
)

// FuzzBuilder: Compile never panics, whatever the source and names; and a
// body-format source that returns gives the same result through the
// builder as the same code run directly as a plain function.
func FuzzBuilder(f *testing.F) {
	for _, seed := range []string{
		"return a + b", "return execute", "if (a) return 1\nreturn 2", "const x = [a, b]; return x.join()",
		"return typeof execute", "function execute() { return 1 }\nreturn 2", "return arguments.length",
		"return (function () { return this })() === globalThis", "// comment\nreturn 1 // tail",
		"return `${a}${b}`", "throw new Error(a)", "return {a, b}", "var b = 3; return b",
	} {
		f.Add(seed, "a", "b")
	}
	l := Limits{Timeout: 50 * time.Millisecond, MaxCallStackSize: 100}.WithDefaults()
	f.Fuzz(func(t *testing.T, body, name1, name2 string) {
		names := []string{name1, name2}
		if _, err := CompileWithLimits(body, names, l); err != nil && AsError(err) == nil {
			t.Fatalf("Compile returned a %T, not a *Error: %v", err, err)
		}
		// The differential check needs usable names and a body that always
		// returns: append a return, so the tail never runs.
		source := body + "\nreturn 'fell through'"
		if _, err := CompileWithLimits(source, names, l); err != nil {
			return
		}
		viaBuilder := Execute(context.Background(), l, Request{Source: source, Inputs: []Input{in(name1, "x"), in(name2, "y")}})
		direct := runDirect(t, l, source, names, []string{"x", "y"})
		if viaBuilder.Err != nil && (viaBuilder.Err.Code == CodeTimeout || viaBuilder.Err.Code == CodeAsyncUnsupported) {
			return
		}
		if direct.Err != nil && direct.Err.Code == CodeTimeout {
			return
		}
		if strings.Contains(body, "execute") || strings.Contains(body, "$flowscript$") || strings.Contains(body, "arguments") {
			return // names only the wrapper binds differently
		}
		if (viaBuilder.Err == nil) != (direct.Err == nil) || viaBuilder.Output != direct.Output ||
			(viaBuilder.Err != nil && *viaBuilder.Err != *direct.Err) {
			t.Fatalf("source %q: builder gave %q %v, direct run gave %q %v",
				source, viaBuilder.Output, viaBuilder.Err, direct.Output, direct.Err)
		}
	})
}

// runDirect runs source as the body of a plain function, in a runtime locked
// down the same way, without the builder's wrapper or tail. Its positions
// are moved to the author's as the builder moves them.
func runDirect(t *testing.T, l Limits, source string, names, values []string) Result {
	t.Helper()
	head := "(function () { return function execute(" + strings.Join(names, ", ") + ") {\n"
	text := head + source + "\n} })"
	parsed, err := parser.ParseFile(nil, programName, text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return Result{Err: &Error{Code: CodeSyntaxError, Message: err.Error()}}
	}
	if deep := rebase(parsed, -file.Idx(len(head)), MaxSyntaxDepth, nil); deep != nil {
		return Result{Err: &Error{Code: CodeSyntaxError, Message: "too deep"}}
	}
	parsed.File = file.NewFile(programName, source, 1)
	prog, err := goja.CompileAST(parsed, false)
	if err != nil {
		return Result{Err: &Error{Code: CodeSyntaxError, Message: err.Error()}}
	}
	lines, last := lineStats(source)
	p := &Program{prog: prog, inputNames: names, sourceLines: lines, lastLineLen: last}
	ctx, cancel := context.WithTimeoutCause(context.Background(), l.Timeout, errTimedOut)
	defer cancel()
	out, e := p.run(ctx, l, values, &hostState{ctx: ctx, position: p.position, logs: logBook{maxEntries: 1, maxBytes: 64}})
	return Result{Output: out, Err: e}
}

// FuzzBuilderDeep: a unit repeated up to thousands of times — brackets,
// operators, keywords, whatever the fuzzer finds — either compiles or is a
// *Error; nothing panics, and a source the builder refuses for its depth
// says where.
func FuzzBuilderDeep(f *testing.F) {
	for _, seed := range []struct {
		unit  string
		close string
		n     uint16
	}{
		{"[", "]", 600}, {"(", ")", 600}, {"{", "}", 600}, {"`${", "}`", 600}, {"{a:", "}", 600},
		{"!", "1", 3000}, {"a?1:", "2", 3000}, {"1+", "1", 3000}, {"x=>", "1", 3000}, {"a.", "b", 3000},
		{"if(a)", "1", 3000}, {"f(", ")", 600}, {"new ", "X", 3000}, {"typeof ", "1", 3000},
		{"'[", "'", 600}, {"/[/", "", 600}, {"// (\n", "", 600}, {"\u2028[", "]", 600}, {"\r\n{", "}", 600},
	} {
		f.Add(seed.unit, seed.close, seed.n)
	}
	l := Limits{MaxSourceBytes: 1 << 20}.WithDefaults()
	f.Fuzz(func(t *testing.T, unit, closing string, n uint16) {
		// Small enough for this process: goja's parser keeps every error
		// it meets, and some texts make it meet n² of them ("a1:" × n then
		// "#" × n: half a million errors at n = 1,000). A worker meets
		// that with its memory limit (TestCheckRunsInAWorker).
		count := int(n) % 3000
		if (len(unit)+len(closing))*count > 6<<10 {
			return
		}
		source := "return " + strings.Repeat(unit, count) + strings.Repeat(closing, count)
		_, err := CompileWithLimits(source, []string{"a", "f", "X"}, l)
		if err == nil {
			return
		}
		e := AsError(err)
		if e == nil {
			t.Fatalf("Compile returned a %T, not a *Error: %v", err, err)
		}
		if strings.Contains(e.Message, "levels deep") && e.Line == 0 {
			t.Fatalf("a depth error without a line: %v", e)
		}
	})
}

// FuzzCheckNesting: CheckNesting never panics, and on text with no string,
// template, comment or regular expression in it, it agrees with a plain
// bracket counter, at the same position.
func FuzzCheckNesting(f *testing.F) {
	for _, seed := range []string{
		strings.Repeat("[", 501), strings.Repeat("({[", 200), "return 1", "'[[[" + strings.Repeat("(", 600),
		"`${`${`${", "/[(]/", "a\u2028" + strings.Repeat("{", 501), "x\r\n\r" + strings.Repeat("(", 501),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, source string) {
		got := CheckNesting(source)
		if strings.ContainsAny(source, "'\"`/#\\") {
			return
		}
		depth, line, lineStart := 0, 1, 0
		var want *Error
		for i := 0; i < len(source) && want == nil; {
			if n := lineTerminatorAt(source, i); n > 0 {
				i += n
				line++
				lineStart = i
				continue
			}
			switch source[i] {
			case '(', '[', '{':
				depth++
				if depth > MaxNesting {
					want = &Error{Code: CodeSyntaxError, Line: line, Column: i - lineStart + 1}
				}
			case ')', ']', '}':
				depth = max(depth-1, 0)
			}
			i++
		}
		switch {
		case (got == nil) != (want == nil):
			t.Fatalf("CheckNesting said %v; the counter says %v", got, want)
		case got != nil && (got.Line != want.Line || got.Column != want.Column || got.Code != CodeSyntaxError):
			t.Fatalf("CheckNesting at %d:%d; the counter at %d:%d", got.Line, got.Column, want.Line, want.Column)
		}
	})
}
