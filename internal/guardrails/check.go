package guardrails

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// wrapperHead and wrapperTail wrap the source as the sandbox's builder does:
// the body of a function named execute. The input names are declared in its
// scope directly, never pasted into the text. The wrapper is a statement, so
// a source that closes it early and goes on outside still parses, and the
// escape is reported where it happens.
const (
	wrapperHead = "function execute() {\n"
	wrapperTail = "\n}"
)

// Check returns the guardrail findings of source, sorted by position, as the
// body of the generated execute whose parameters are inputNames (nil at save
// time). The error is a *sandbox.Error with CodeSyntaxError when the source
// does not parse; findings are still returned then (an import explains its
// own syntax error).
//
// A source nested deeper than the sandbox's builder allows (brackets past
// sandbox.MaxNesting, a tree past sandbox.MaxSyntaxDepth) is a syntax error
// before anything recursive reads it.
func Check(source string, inputNames []string) ([]Finding, error) {
	findings, _, err := Scan(source, inputNames)
	return findings, err
}

// Scan is Check that also returns what the source uses of the capabilities
// (see Uses): empty when the source does not parse or closes the function
// it runs in.
func Scan(source string, inputNames []string) ([]Finding, Uses, error) {
	findings, u, err := scan(source, inputNames)
	return findings, u.result(), err
}

func scan(source string, inputNames []string) ([]Finding, uses, error) {
	if err := sandbox.CheckNesting(source); err != nil {
		return nil, uses{}, err
	}
	text := wrapperHead + source + wrapperTail
	prog, err := parser.ParseFile(nil, "", text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		findings, err := parseFailure(text, source, err)
		return findings, uses{}, err
	}
	c := &checker{file: prog.File, lineShift: 1, asyncExecute: map[ast.Node]bool{}, source: source, inputsUnknown: inputNames == nil}
	if deep := sandbox.TooDeep(prog); deep != nil {
		pos := c.file.Position(int(deep.Idx0()) - c.file.Base())
		line, col := clampToSource(source, pos.Line-c.lineShift, pos.Column)
		return nil, uses{}, &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: sandbox.TooDeepMessage, Line: line, Column: col}
	}
	fn := wrapped(prog, len(text))
	if fn == nil {
		c.wrapperEscape(prog)
		return c.findings, uses{}, nil
	}

	global := newScope(nil) // the sandbox's globals: nothing of the host
	named := newScope(global)
	named.declareFunction("execute") // the generated function
	fs := newScope(named)
	fs.declare("arguments")
	for _, name := range inputNames {
		fs.declare(name)
	}
	fs.declareVars(fn.Body.List)
	fs.declareLexical(fn.Body.List)
	c.markExecute(fn.Body.List)
	c.stmts(fs, fn.Body.List)
	c.bidiControls()

	sort.SliceStable(c.findings, func(i, j int) bool {
		a, b := c.findings[i], c.findings[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return c.findings, c.uses, nil
}

// wrapped returns the generated function when the program is exactly the
// wrapper, or nil when the source closed it early and went on outside it.
func wrapped(prog *ast.Program, textLen int) *ast.FunctionLiteral {
	if len(prog.Body) != 1 {
		return nil
	}
	fd, ok := prog.Body[0].(*ast.FunctionDeclaration)
	if !ok || fd.Function == nil || fd.Function.Body == nil {
		return nil
	}
	// The body must end at the wrapper's own closing brace, the last byte.
	if int(fd.Function.Body.RightBrace)-prog.File.Base() != textLen-1 {
		return nil
	}
	return fd.Function
}

// wrapperEscape reports the brace of the source that closes the wrapper.
// The program starts with the wrapper's declaration, so its first statement
// is that declaration whenever the text parses.
func (c *checker) wrapperEscape(prog *ast.Program) {
	if fd, ok := prog.Body[0].(*ast.FunctionDeclaration); ok && fd.Function != nil && fd.Function.Body != nil {
		c.report(fd.Function.Body.RightBrace, CodeWrapperEscape, SeverityError, "}", msgWrapperEscape)
		return
	}
	c.findings = append(c.findings, Finding{
		Code: CodeWrapperEscape, Severity: SeverityError, Name: "}", Message: msgWrapperEscape, Line: 1, Column: 1,
	})
}

// markExecute finds the author's top-level execute: a declaration, or a
// binding or assignment of a function or arrow to that name.
func (c *checker) markExecute(body []ast.Statement) {
	mark := func(target ast.Expression, value ast.Expression) {
		id, ok := target.(*ast.Identifier)
		if !ok || id.Name != "execute" {
			return
		}
		switch v := value.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			c.asyncExecute[v] = true
		}
	}
	for _, st := range body {
		switch st := st.(type) {
		case *ast.FunctionDeclaration:
			if st.Function.Name != nil && st.Function.Name.Name == "execute" {
				c.asyncExecute[st.Function] = true
			}
		case *ast.VariableStatement:
			for _, b := range st.List {
				mark(b.Target, b.Initializer)
			}
		case *ast.LexicalDeclaration:
			for _, b := range st.List {
				mark(b.Target, b.Initializer)
			}
		case *ast.ExpressionStatement:
			if a, ok := st.Expression.(*ast.AssignExpression); ok {
				mark(a.Left, a.Right)
			}
		}
	}
}

// parseFailure turns the parser's first error into a syntax error in the
// author's coordinates. When the parser stopped on the reserved word import
// (a statement, import() or import.meta), it also returns the import
// finding: the error position comes from the parser, and only the word at
// that position is read.
func parseFailure(text, source string, err error) ([]Finding, error) {
	var list parser.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return nil, &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: err.Error()}
	}
	first := list[0]
	line, col := clampToSource(source, first.Position.Line-1, first.Position.Column)
	serr := &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: first.Message, Line: line, Column: col}
	if first.Message != "Unexpected reserved word" {
		return nil, serr
	}
	off := offsetOf(text, first.Position.Line, first.Position.Column)
	if off < 0 || !startsWithWord(text[off:], "import") {
		return nil, serr
	}
	return []Finding{{
		Code: CodeImport, Severity: SeverityError, Name: "import", Message: msgImport,
		Line: first.Position.Line - 1, Column: sandbox.Column(source, first.Position.Line-1, first.Position.Column),
	}}, serr
}

// lineStarts returns the offset of each line of text, with the line
// terminators goja's file package counts.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case 0xE2: // U+2028, U+2029 are E2 80 A8 / E2 80 A9
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9) {
				i += 2
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

func offsetOf(text string, line, col int) int {
	starts := lineStarts(text)
	if line < 1 || line > len(starts) {
		return -1
	}
	off := starts[line-1] + col - 1
	if off < 0 || off > len(text) {
		return -1
	}
	return off
}

func startsWithWord(s, word string) bool {
	if !strings.HasPrefix(s, word) {
		return false
	}
	if len(s) == len(word) {
		return true
	}
	next := s[len(word)]
	return !(next == '_' || next == '$' || next >= '0' && next <= '9' || next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z')
}

// clampToSource keeps a position the parser gave past the end of the source
// (an unexpected end of input, found in the wrapper's tail) on the source's
// last line, and turns its byte column into sandbox.Column's.
func clampToSource(source string, line, col int) (int, int) {
	starts := lineStarts(source)
	if line < 1 {
		return 1, 1
	}
	if line > len(starts) {
		last := starts[len(starts)-1]
		line, col = len(starts), len(source)-last+1
	}
	return line, sandbox.Column(source, line, col)
}

// maxBidiFindings caps the bidirectional controls reported: a text full of
// them needs one look, not a hundred findings.
const maxBidiFindings = 5

// bidiControls warns of each bidirectional embedding, override and isolate
// (U+202A–U+202E, U+2066–U+2069) in the source, in a comment or a string
// as anywhere: invisible, they make the code around them display otherwise
// than it runs ("Trojan Source", CVE-2021-42574), so a reviewer may read
// 'user' where the script compares 'admin'.
func (c *checker) bidiControls() {
	n := 0
	for i, r := range c.source {
		if !('\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069') {
			continue
		}
		if n++; n > maxBidiFindings {
			return
		}
		name := fmt.Sprintf("U+%04X", r)
		c.report(file.Idx(c.file.Base()+len(wrapperHead)+i), CodeBidiControl, SeverityWarning, name,
			"an invisible bidirectional control character ("+name+") makes the code around it display otherwise than it runs: "+
				"remove it, or write it as an escape (\\u"+name[2:]+") inside a string")
	}
}
