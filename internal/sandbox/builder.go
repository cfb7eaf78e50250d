package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/flowscript/flowscript/internal/jsident"
)

// Names the generated wrapper uses. No input may take one (jsident refuses
// the prefix); an author whose code shadows one breaks only their own
// script.
const (
	genName    = jsident.InternalPrefix + "generated"
	markerName = jsident.InternalPrefix + "marker"
	// programName is the file name goja reports in stack frames and
	// error.stack; every position in it is the author's.
	programName = "script.js"
)

// headerLines is how many lines the wrapper puts before the author's first
// line. Positions the parser reports are shifted back by it; the compiled
// program's positions are the author's already (see compile).
const headerLines = 1

// Program is an author's script assembled into the generated execute
// function and compiled. A Program holds no runtime state: one Program may
// run in many runtimes at once, on many goroutines.
type Program struct {
	prog       *goja.Program
	inputNames []string
	// source is the author's source (the compiled program's file holds the
	// same string), for the columns of its errors (see Column).
	source      string
	sourceLines int
	lastLineLen int
	// cost is what keeping the program in the cache costs, in bytes (see
	// programCost).
	cost uint64
	// features says what a runtime must set up for the program.
	features features
}

// InputNames returns the parameter names, in order.
func (p *Program) InputNames() []string { return p.inputNames }

// Assemble returns the JavaScript text Compile compiles: the author's source
// as the body of a generated function execute whose parameters are the
// input names, followed by a tail that runs only when the source did not
// return. The tail hands the author's own execute back to the caller, who
// calls it with the same arguments in the same order, when a declaration in
// the source shadowed the generated one (the full-file format) or the
// source assigned another value to execute; otherwise the output is "" (a
// body that fell off its end). The format is decided by
// JavaScript scoping alone, never by looking at the text.
//
// The whole expression evaluates to a factory: called with a marker object,
// it returns the generated function, whose tail, when the author declared
// their own execute, puts it in the marker's execute and returns the
// marker: the caller reads nothing of any other value the source returns.
func Assemble(source string, inputNames []string) string {
	text, _ := assemble(source, inputNames)
	return text
}

// assemble returns the program text and the byte offset where the author's
// source starts in it.
func assemble(source string, inputNames []string) (string, int) {
	params := strings.Join(inputNames, ", ")
	var b strings.Builder
	b.Grow(len(source) + 256 + len(params))
	// Line 1: everything before the author's first line (headerLines = 1).
	// execute is a variable of the factory, not the name of a named
	// function expression (which a script cannot rebind): a body that
	// assigns execute = function (...) {...} and does not return has the
	// tail call what it assigned, as a declaration's execute is called.
	writeHeader(&b, params)
	start := b.Len()
	b.WriteString(source)
	// The tail starts on its own line so a source ending in a // comment
	// cannot swallow it.
	b.WriteString("\n;return execute === ")
	b.WriteString(genName)
	b.WriteString(" ? void 0 : (")
	b.WriteString(markerName)
	b.WriteString(".execute = execute, ")
	b.WriteString(markerName)
	b.WriteString(");\n}; var ")
	b.WriteString(genName)
	b.WriteString(" = execute; return ")
	b.WriteString(genName)
	b.WriteString("; })")
	return b.String(), start
}

// writeHeader writes line 1 of the wrapper (headerLines), up to the
// generated function's opening brace.
func writeHeader(b *strings.Builder, params string) {
	b.WriteString("(function (")
	b.WriteString(markerName)
	b.WriteString(") { var execute = function (")
	b.WriteString(params)
	b.WriteString(") {\n")
}

// strayBrace finds the first extra '}' of a source with one or two closing
// braces too many, the commonest slip: that brace closes the generated
// function, the text after it runs outside it, and the parse of the whole
// wrapper fails in its tail, far from the brace. Parsed again with a tail
// that closes only what is left open, such a source parses, and the
// generated function's end is the brace (read from the tree, not the
// text). ok is false for any other source.
func strayBrace(source string, inputNames []string) (line, col int, ok bool) {
	params := strings.Join(inputNames, ", ")
	for _, tail := range []string{"\n})", "\n)"} {
		var b strings.Builder
		writeHeader(&b, params)
		start := b.Len()
		b.WriteString(source)
		b.WriteString(tail)
		parsed, err := parser.ParseFile(nil, programName, b.String(), 0, parser.WithDisableSourceMaps)
		if err != nil {
			continue
		}
		// The tree must be the wrapper's: a probe can parse as some other
		// expression ("}}, function () {}"), where closingBrace would
		// name the end of the source.
		gen := generatedFunction(parsed)
		if gen == nil || gen.Body == nil {
			continue
		}
		brace := int(gen.Body.RightBrace) - parsed.File.Base()
		if brace < start || brace >= start+len(source) {
			continue
		}
		pos := parsed.File.Position(brace)
		return pos.Line, pos.Column, true
	}
	return 0, 0, false
}

// Compile assembles source with the ordered input names (see Assemble) and
// compiles it. Programs are cached by a hash of the source and the names, so
// compiling the same script again is a map lookup.
//
// The error is always a *Error: CodeInvalidInput for an empty source, a
// source over MaxSourceBytes or a bad input name, CodeSyntaxError (with the
// line and column in the author's source) when the text does not compile or
// nests deeper than MaxNesting brackets or MaxSyntaxDepth levels.
func Compile(source string, inputNames []string) (*Program, error) {
	return CompileWithLimits(source, inputNames, Limits{}.WithDefaults())
}

// byteOrderMark is U+FEFF, which an editor may save at the start of a file:
// JavaScript reads it as white space, and an editor counts no column for
// it, so it is dropped before a source is compiled, and positions in errors
// are the editor's.
const byteOrderMark = "\uFEFF"

// CompileWithLimits is Compile with the source cap of l.
func CompileWithLimits(source string, inputNames []string, l Limits) (*Program, error) {
	if err := checkSource(source, l); err != nil {
		return nil, err
	}
	if err := checkNames(inputNames); err != nil {
		return nil, err
	}
	source = strings.TrimPrefix(source, byteOrderMark)
	key := cacheKey(source, inputNames)
	if p, ok := programs.get(key); ok {
		return p, nil
	}
	p, err := compile(source, inputNames)
	if err != nil {
		return nil, err
	}
	programs.put(key, p)
	return p, nil
}

// Validate compiles source as CompileWithLimits does and reports its error,
// without keeping the program: the check a template save makes, whose
// source may never run here. Like every compile it runs goja's parser in
// this process — call it only where that is safe (in a sandbox worker, or
// on trusted text).
func Validate(source string, inputNames []string, l Limits) error {
	if err := checkSource(source, l); err != nil {
		return err
	}
	if err := checkNames(inputNames); err != nil {
		return err
	}
	source = strings.TrimPrefix(source, byteOrderMark)
	if _, ok := programs.get(cacheKey(source, inputNames)); ok {
		return nil
	}
	_, err := compile(source, inputNames)
	return err
}

func checkSource(source string, l Limits) error {
	if strings.TrimSpace(source) == "" {
		return &Error{Code: CodeInvalidInput, Message: "source is empty: write a function execute(...) or a body that returns a value"}
	}
	if len(source) > l.MaxSourceBytes {
		return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf(
			"source is %d bytes, over the limit of %d (SANDBOX_MAX_SOURCE_BYTES): move data out of the script into input variables", len(source), l.MaxSourceBytes)}
	}
	return nil
}

func checkNames(names []string) error {
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if err := jsident.Check(name); err != nil {
			return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf("inputVariables[%d].name: %v", i, err)}
		}
		if j, dup := seen[name]; dup {
			return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf(
				"inputVariables[%d].name: %q is already used by inputVariables[%d]; each input needs its own name", i, name, j)}
		}
		seen[name] = i
	}
	return nil
}

// compile parses the assembled text, refuses what may not run (a source
// that closes the generated function early, one nested too deeply), and
// compiles it so that every position in the program is the author's: the
// tree is moved back by the header's length and compiled against a file
// that holds the source alone. Stack frames, error.stack and compile
// errors then read the author's lines and columns straight from goja,
// whatever line terminators the source uses.
func compile(source string, inputNames []string) (prog *Program, err error) {
	defer func() {
		// goja's parser or compiler failed on this text (the lexer once
		// panicked on "\u{10FFFF}"): the source's error, never a worker's
		// crash, which would be retried and then dead-lettered as
		// SANDBOX_CRASH for a text that fails the same way every time.
		if x := recover(); x != nil {
			prog, err = nil, &Error{Code: CodeSyntaxError, Message: fmt.Sprintf(
				"SyntaxError: the engine failed to compile this source (%v): rewrite the construct it names, and report the source to the FlowScript team", x)}
		}
	}()
	if err := CheckNesting(source); err != nil {
		return nil, err
	}
	text, start := assemble(source, inputNames)
	lines, lastLen := lineStats(source)
	p := &Program{
		source:      source,
		inputNames:  append([]string(nil), inputNames...),
		sourceLines: lines,
		lastLineLen: lastLen,
	}
	parsed, err := parser.ParseFile(nil, programName, text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		e := p.parseError(err)
		if e.Message == MsgUnexpectedEnd {
			if line, col, ok := strayBrace(source, inputNames); ok {
				return nil, p.escapeError(line, col)
			}
		}
		return nil, e
	}
	assembled := parsed.File
	if brace, escapes := closingBrace(parsed, start+len(source)); escapes {
		pos := assembled.Position(int(brace) - assembled.Base())
		return nil, p.escapeError(pos.Line, pos.Column)
	}
	walk := &programWalk{features: &p.features, lo: file.Idx(assembled.Base() + start), hi: file.Idx(assembled.Base() + start + len(source))}
	if deep := rebase(parsed, -file.Idx(start), MaxSyntaxDepth, walk); deep != nil {
		pos := assembled.Position(int(deep.Idx0()) - assembled.Base())
		e := &Error{Code: CodeSyntaxError, Message: TooDeepMessage}
		e.Line, e.Column = p.mapPosition(pos.Line, pos.Column)
		return nil, e
	}
	if id := walk.reserved; id != nil {
		pos := assembled.Position(int(walk.at) - assembled.Base())
		e := &Error{Code: CodeSyntaxError, Message: fmt.Sprintf("SyntaxError: the name %s starts with %q, which FlowScript keeps for the code it wraps around the source: choose another name",
			id.Name.String(), jsident.InternalPrefix)}
		e.Line, e.Column = p.mapPosition(pos.Line, pos.Column)
		return nil, e
	}
	parsed.File = file.NewFile(programName, source, 1)
	before := allocatedBytes()
	p.prog, err = goja.CompileAST(parsed, false)
	if err != nil {
		return nil, p.compileError(err)
	}
	p.cost = programCost(len(text), allocatedBytes()-before)
	return p, nil
}

// closingBrace returns where the generated execute function's body ends and
// whether that is inside the author's source (before sourceEnd, the offset
// just past it). A source with an extra '}' closes the generated function
// early and runs the rest of its text outside it, beside the wrapper: such
// a program is refused. This reads the parsed program's structure, never
// the author's text.
func closingBrace(prog *ast.Program, sourceEnd int) (file.Idx, bool) {
	gen := generatedFunction(prog)
	if gen == nil || gen.Body == nil {
		return file.Idx(prog.File.Base() + sourceEnd), true
	}
	return gen.Body.RightBrace, int(gen.Body.RightBrace)-prog.File.Base() < sourceEnd
}

// generatedFunction finds the generated execute in the wrapper's shape:
// (function (marker) { var execute = function (...) {...}; var gen =
// execute; return gen; }), whose first statement stays the declaration even
// when the source closed the function early and added statements after it.
func generatedFunction(prog *ast.Program) *ast.FunctionLiteral {
	if len(prog.Body) != 1 {
		return nil
	}
	stmt, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	outer, ok := stmt.Expression.(*ast.FunctionLiteral)
	if !ok || outer.Body == nil || len(outer.Body.List) == 0 {
		return nil
	}
	decl, ok := outer.Body.List[0].(*ast.VariableStatement)
	if !ok || len(decl.List) == 0 {
		return nil
	}
	if target, ok := decl.List[0].Target.(*ast.Identifier); !ok || target.Name != "execute" {
		return nil
	}
	gen, ok := decl.List[0].Initializer.(*ast.FunctionLiteral)
	if !ok {
		return nil
	}
	return gen
}

// escapeError is the syntax error of a source whose '}' at line and col of
// the assembled text closes the generated function early.
func (p *Program) escapeError(line, col int) *Error {
	e := &Error{Code: CodeSyntaxError, Message: "SyntaxError: " +
		"this '}' closes the function execute before the end of the source: check that every brace is balanced"}
	e.Line, e.Column = p.mapPosition(line, col)
	return e
}

// MsgUnexpectedEnd is the syntax error of a source the parser could not
// finish within its own text: V8's words, and the likely causes.
const MsgUnexpectedEnd = "SyntaxError: Unexpected end of input: a bracket, string, comment or statement is not finished, or a '}' closes execute early"

// parseError turns a parser error, positioned in the assembled text, into a
// *Error positioned in the author's source.
func (p *Program) parseError(err error) *Error {
	e := &Error{Code: CodeSyntaxError, Message: err.Error()}
	var pe parser.ErrorList
	if errors.As(err, &pe) && len(pe) > 0 {
		e.Message = pe[0].Message
		if pe[0].Position.Line-headerLines > p.sourceLines {
			// The parser stopped in the wrapper's tail, at a token the
			// author never wrote: name what happened to the source.
			e.Message = MsgUnexpectedEnd
		}
		e.Line, e.Column = p.mapPosition(pe[0].Position.Line, pe[0].Position.Column)
	}
	e.Message = "SyntaxError: " + strings.TrimPrefix(e.Message, "SyntaxError: ")
	return e
}

// compileError turns a compiler error, positioned in the author's source
// already (see compile), into a *Error.
func (p *Program) compileError(err error) *Error {
	e := &Error{Code: CodeSyntaxError, Message: err.Error()}
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) {
		e.Message = ce.Message
		if ce.File != nil {
			pos := ce.File.Position(ce.Offset)
			e.Line, e.Column = p.clamp(pos.Line, pos.Column)
		}
	}
	e.Message = "SyntaxError: " + strings.TrimPrefix(e.Message, "SyntaxError: ")
	if ce != nil && ce.Message == "Async generators are not supported yet" {
		// async function* is async code, refused as an async execute is
		// (DESIGN.md §3), at its line.
		e.Code, e.Message = CodeAsyncUnsupported, MsgAsyncUnsupported
	}
	return e
}

// mapPosition maps a line and column of the assembled text back to the
// author's source (see clamp).
func (p *Program) mapPosition(line, col int) (int, int) {
	return p.clamp(line-headerLines, col)
}

// clamp keeps a position in the author's source: one in the wrapper's tail
// (an unclosed brace or comment) is reported just after the source's last
// character; one in the header (an input name problem) as line 0. col is
// goja's, in bytes; the column returned is in UTF-16 units (see Column).
func (p *Program) clamp(line, col int) (int, int) {
	switch {
	case line < 1 || col < 1:
		return 0, 0
	case line > p.sourceLines:
		line, col = p.sourceLines, p.lastLineLen+1
	}
	return line, Column(p.source, line, col)
}

// lineStats returns how many lines source has and the byte length of its
// last line, counting line terminators as goja's positions do: \n, \r\n,
// \r, U+2028 and U+2029.
func lineStats(source string) (lines, lastLen int) {
	lines, lastStart := 1, 0
	for i := 0; i < len(source); {
		if n := lineTerminatorAt(source, i); n > 0 {
			i += n
			lines++
			lastStart = i
			continue
		}
		i++
	}
	return lines, len(source) - lastStart // columns count bytes, as the parser's do
}
