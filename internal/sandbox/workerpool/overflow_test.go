package workerpool

import "testing"

// A stack that overflowed while compiling may run out in one of the
// parser's standard-library leaf calls: the first frame outside the
// standard library decides.
func TestOverflowedCompiling(t *testing.T) {
	const head = "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n\nruntime stack:\n...\n\ngoroutine 1 gp=0x1 m=0 mp=0x2 [running]:\n"
	tests := []struct {
		name   string
		frames string
		want   bool
	}{
		{"parser on top", "github.com/dop251/goja/parser.(*_parser).parseConditionalExpression(0x1)\n\t/x/parser/expression.go:1 +0x1\n", true},
		{"compiler on top", "github.com/dop251/goja.(*compiler).compileExpression(0x1)\n\t/x/compiler_expr.go:1 +0x1\n", true},
		{"strconv under the parser", "internal/strconv.ParseUint({0x1, 0x1}, 0x0, 0x40)\n\t/go/atoi.go:47 +0x2d1\nstrconv.ParseInt({0x1, 0x1}, 0x0, 0x40)\n\t/go/number.go:138 +0x27\n" +
			"github.com/dop251/goja/parser.parseNumberLiteral({0x1, 0x1})\n\t/x/lexer.go:1 +0x1\n", true},
		{"runtime under the compiler", "runtime.morestack()\n\t/go/asm.s:1\nstrings.(*Builder).WriteString(0x1)\n\t/go/builder.go:1\ngithub.com/dop251/goja.(*compiler).compile(0x1)\n\t/x/c.go:1\n", true},
		{"running the script", "runtime.morestack()\n\t/go/asm.s:1\ngithub.com/dop251/goja.(*vm).run(0x1)\n\t/x/vm.go:1\ngithub.com/dop251/goja/parser.x()\n", false},
		{"standard library only, then another goroutine", "strconv.ParseInt(0x1)\n\t/go/n.go:1\n\ngoroutine 2 [select]:\ngithub.com/dop251/goja/parser.x()\n", false},
		{"the worker's main", "main.main()\n\t/x/main.go:1\n", false},
		{"a RegExp the script builds", "github.com/dop251/goja/parser.(*_RegExp_parser).scan(0x1)\n\t/x/regexp.go:1\n...additional frames elided...\n" +
			"github.com/dop251/goja.(*Runtime).builtin_newRegExp(0x1)\n\t/x/builtin_regexp.go:1\ngithub.com/dop251/goja.(*vm).run(0x1)\n\t/x/vm.go:1\n", false},
		{"the parser, then another goroutine running", "github.com/dop251/goja/parser.x()\n\t/x/p.go:1\n\ngoroutine 2 [running]:\ngithub.com/dop251/goja.(*vm).run(0x1)\n", true},
	}
	for _, tt := range tests {
		if got := overflowedCompiling(head + tt.frames); got != tt.want {
			t.Errorf("%s: overflowedCompiling = %v, want %v", tt.name, got, tt.want)
		}
	}
}
