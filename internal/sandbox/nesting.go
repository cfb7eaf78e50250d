package sandbox

import "fmt"

// MaxNesting is how deeply a source may nest brackets — (), [], {} and the
// ${} of template literals — before the builder refuses it with a syntax
// error at the bracket that went one level too deep.
//
// goja's parser and compiler recurse once per level, in Go: a source of
// 262,000 '[' ends any Go process with "fatal error: stack overflow", which
// recover cannot catch, and 40,000 nested blocks cost seconds of CPU. A
// worker's stack limit (8 MB) contains the crash but reports it without a
// line; this bound, checked by a linear scan before goja sees the text,
// answers such a source at once with the author's line and column.
// Measured in a worker: 500 levels of any bracket compile in milliseconds
// and use under 2 MB of stack; written code rarely nests 30.
const MaxNesting = 500

// CheckNesting returns a CodeSyntaxError, positioned at the offending
// bracket, when source nests brackets more than MaxNesting levels deep, and
// nil otherwise. It reads the text as a JavaScript tokenizer would (strings,
// comments, template literals and regular expression literals do not
// count), but it does not validate anything: a source it accepts may still
// fail to compile, and the parser reports that. It never runs goja.
func CheckNesting(source string) *Error {
	s := nestingScanner{src: source, line: 1, regexOK: true}
	return s.scan(MaxNesting)
}

// nestingScanner walks a source once, tracking open brackets. regexOK says
// whether a '/' here starts a regular expression literal (an operand is
// expected) or is a division: the usual heuristic from the previous token.
// A wrong guess only miscounts brackets inside that one literal.
type nestingScanner struct {
	src       string
	i         int
	line      int
	lineStart int
	regexOK   bool
	// open holds one entry per open bracket: true for the ${ of a template
	// literal, whose closing } resumes the template's text.
	open []bool
}

func (s *nestingScanner) scan(limit int) *Error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case s.newline():
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			s.i++
		case c == '/':
			s.slash()
		case c == '\'' || c == '"':
			s.quoted(c)
			s.regexOK = false
		case c == '`':
			s.i++
			if s.template() {
				if err := s.push(true, s.i-2, limit); err != nil {
					return err
				}
			}
			s.regexOK = false
		case c == '(' || c == '[' || c == '{':
			if err := s.push(false, s.i, limit); err != nil {
				return err
			}
			s.i++
			s.regexOK = true
		case c == ')' || c == ']':
			s.pop()
			s.i++
			s.regexOK = false
		case c == '}':
			s.i++
			if s.pop() && s.template() {
				// The template goes on with another ${: the level stays open.
				s.open = append(s.open, true)
			}
			s.regexOK = true
		case isDigit(c) || c == '.' && s.i+1 < len(s.src) && isDigit(s.src[s.i+1]):
			s.word()
			s.regexOK = false
		case isWordByte(c) || c == '#':
			start := s.i
			s.i++
			s.word()
			s.regexOK = operandFollows(s.src[start:s.i])
		case c == '+' || c == '-':
			if s.i+1 < len(s.src) && s.src[s.i+1] == c {
				s.i += 2
				s.regexOK = false // a++ / b divides
			} else {
				s.i++
				s.regexOK = true
			}
		default:
			s.i++
			s.regexOK = true
		}
	}
	return nil
}

// push opens a level at offset at; over limit, it is the error.
func (s *nestingScanner) push(template bool, at, limit int) *Error {
	s.open = append(s.open, template)
	if len(s.open) <= limit {
		return nil
	}
	e := &Error{Code: CodeSyntaxError, Message: fmt.Sprintf(
		"SyntaxError: this bracket nests the source more than %d levels deep: flatten it (fewer nested functions, blocks, arrays or objects)", limit)}
	e.Line, e.Column = s.line, Column(s.src, s.line, at-s.lineStart+1)
	return e
}

// pop closes a level and reports whether it was a template's ${.
func (s *nestingScanner) pop() bool {
	if len(s.open) == 0 {
		return false // unbalanced: the parser will say so
	}
	top := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	return top
}

// newline consumes a line terminator, as goja's file positions count them:
// \n, \r\n, \r, U+2028 and U+2029.
func (s *nestingScanner) newline() bool {
	n := lineTerminatorAt(s.src, s.i)
	if n == 0 {
		return false
	}
	s.i += n
	s.line++
	s.lineStart = s.i
	return true
}

// lineTerminatorAt returns the length of the line terminator at src[i:], or
// 0 when there is none.
func lineTerminatorAt(src string, i int) int {
	switch c := src[i]; {
	case c == '\n':
		return 1
	case c == '\r':
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9):
		return 3 // U+2028, U+2029
	}
	return 0
}

// slash reads a comment, a regular expression literal or a division.
func (s *nestingScanner) slash() {
	next := byte(0)
	if s.i+1 < len(s.src) {
		next = s.src[s.i+1]
	}
	switch {
	case next == '/':
		for s.i < len(s.src) && lineTerminatorAt(s.src, s.i) == 0 {
			s.i++
		}
	case next == '*':
		s.i += 2
		for s.i < len(s.src) {
			if s.src[s.i] == '*' && s.i+1 < len(s.src) && s.src[s.i+1] == '/' {
				s.i += 2
				return
			}
			if !s.newline() {
				s.i++
			}
		}
	case s.regexOK:
		s.i++
		inClass := false
		for s.i < len(s.src) && lineTerminatorAt(s.src, s.i) == 0 {
			c := s.src[s.i]
			s.i++
			switch {
			case c == '\\':
				if s.i < len(s.src) && lineTerminatorAt(s.src, s.i) == 0 {
					s.i++
				}
			case c == '[':
				inClass = true
			case c == ']':
				inClass = false
			case c == '/' && !inClass:
				s.word() // flags
				s.regexOK = false
				return
			}
		}
		s.regexOK = false
	default:
		s.i++
		s.regexOK = true
	}
}

// quoted skips a string literal opened by quote; an unterminated one ends
// at its line's end.
func (s *nestingScanner) quoted(quote byte) {
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == quote:
			s.i++
			return
		case c == '\\':
			s.i++
			if s.i < len(s.src) && !s.newline() {
				s.i++
			}
		case lineTerminatorAt(s.src, s.i) > 0 && c != 0xE2:
			return // \n or \r ends an unterminated string; U+2028/9 may stand in one
		case s.newline():
		default:
			s.i++
		}
	}
}

// template skips a template literal's text from just after its opening `
// or its closing }, and reports whether it stopped at a ${ (true) or at the
// closing ` or the end of the source (false).
func (s *nestingScanner) template() bool {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '`':
			s.i++
			return false
		case c == '\\':
			s.i++
			if s.i < len(s.src) && !s.newline() {
				s.i++
			}
		case c == '$' && s.i+1 < len(s.src) && s.src[s.i+1] == '{':
			s.i += 2
			s.regexOK = true
			return true
		case s.newline():
		default:
			s.i++
		}
	}
	return false
}

// word skips the rest of an identifier, keyword or number.
func (s *nestingScanner) word() {
	for s.i < len(s.src) && (isWordByte(s.src[s.i]) || isDigit(s.src[s.i])) && lineTerminatorAt(s.src, s.i) == 0 {
		s.i++
	}
}

// isWordByte: bytes of identifiers and numbers (a non-ASCII byte is taken as
// part of a word: identifiers may use any letter).
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 ||
		c == '.' // decimal points and exponents inside numbers; never starts a word here
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// operandFollows reports whether a '/' after word starts a regular
// expression: after the keywords that take an expression, yes; after an
// identifier or a number, it divides.
func operandFollows(word string) bool {
	switch word {
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
		"case", "do", "else", "yield", "await", "extends":
		return true
	}
	return false
}
