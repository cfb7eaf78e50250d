// Package jsident tells whether a string can be a JavaScript parameter name
// in FlowScript's generated execute function. Both the wire validation
// (flowjob) and the program builder (sandbox) use it, so an engine's check
// before publishing and the executor's check agree.
//
// It scans characters; it never compiles anything.
package jsident

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen caps an identifier's length in bytes.
const MaxLen = 128

// InternalPrefix starts the names the program builder gives its own
// bindings ($flowscript$generated, $flowscript$marker): an input of such a
// name would take the place of one.
const InternalPrefix = "$flowscript$"

// reserved are the names that cannot be parameters: ECMAScript reserved
// words, strict-mode reserved words and literals, plus "execute" (the
// generated function's own name) and the names sloppy-mode code treats
// specially.
var reserved = map[string]bool{
	"await": true, "break": true, "case": true, "catch": true, "class": true, "const": true,
	"continue": true, "debugger": true, "default": true, "delete": true, "do": true, "else": true,
	"enum": true, "export": true, "extends": true, "false": true, "finally": true, "for": true,
	"function": true, "if": true, "import": true, "in": true, "instanceof": true, "new": true,
	"null": true, "return": true, "super": true, "switch": true, "this": true, "throw": true,
	"true": true, "try": true, "typeof": true, "var": true, "void": true, "while": true,
	"with": true, "yield": true, "let": true, "static": true, "implements": true,
	"interface": true, "package": true, "private": true, "protected": true, "public": true,
	"arguments": true, "eval": true, "undefined": true, "NaN": true, "Infinity": true,
	"execute": true,
}

// Check returns nil when name is a usable identifier, or an error that says
// what is wrong with it.
func Check(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("must not be empty")
	case len(name) > MaxLen:
		return fmt.Errorf("must be at most %d bytes, got %d", MaxLen, len(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("must be valid UTF-8")
	case reserved[name]:
		return fmt.Errorf("%q is a reserved word in JavaScript or in FlowScript; choose another name", name)
	case strings.HasPrefix(name, InternalPrefix):
		return fmt.Errorf("%q starts with %q, which FlowScript keeps for its own names; choose another name", name, InternalPrefix)
	}
	for i, r := range name {
		if i == 0 && !isStart(r) {
			return fmt.Errorf("%q must start with a letter, '_' or '$'", name)
		}
		if !isPart(r) {
			return fmt.Errorf("%q is not a JavaScript identifier: %q is not allowed", name, r)
		}
	}
	return nil
}

// isStart is ECMAScript's IdentifierStart, as goja's lexer reads it: '$',
// '_', or ID_Start (letters, letter numbers and Other_ID_Start, less
// Pattern_Syntax and Pattern_White_Space).
func isStart(r rune) bool {
	return r == '$' || r == '_' ||
		unicode.In(r, unicode.Letter, unicode.Nl, unicode.Other_ID_Start) && !patternChar(r)
}

// isPart is ECMAScript's IdentifierPart: IdentifierStart, ID_Continue
// (marks, digits, connector punctuation and Other_ID_Continue, less the
// pattern characters), ZWNJ and ZWJ.
func isPart(r rune) bool {
	return isStart(r) || r == '\u200c' || r == '\u200d' ||
		unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) && !patternChar(r)
}

func patternChar(r rune) bool {
	return unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}
