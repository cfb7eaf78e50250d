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
	if deep := rebase(parsed, -file.Idx(len(head)), MaxSyntaxDepth); deep != nil {
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
	out, e := p.run(ctx, l, values)
	return Result{Output: out, Err: e}
}
