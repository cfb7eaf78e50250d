package goja

import "strings"

// FlowScript: the assertions regexp2 reads otherwise than ECMAScript.
//
// regexp2's multiline ^ and $ know one line terminator, \n (as .NET's do),
// where ECMAScript's know four: \n, \r, U+2028 and U+2029. /^CPF: (.*)$/m
// found nothing in "Nome: Ana\r\nCPF: 123\r\n", the text of every form and
// e-mail. Go's regexp has the same ^ and $, so a multiline pattern that
// has either goes to regexp2 (lineAnchors), which gets them spelt out as
// lookarounds. regexp2's . takes U+2028 and U+2029, which ECMAScript's (but
// with s) does not: it is spelt out as a class.
//
// regexp2's \b and \B take every Unicode letter for a word character, even
// with its ECMAScript option, where ECMAScript's take [A-Za-z0-9_] (and,
// with both the i and u flags, U+017F and U+212A, which fold to s and k).
// "Olá João".match(/\b\w+\b/g) found nothing once the text held an emoji
// (which sends a global search to regexp2). They are spelt out as
// lookarounds too.

const (
	lineTerminators = `\n\r\u2028\u2029`
	// A line start: no character before it but a line terminator.
	lineStart = `(?<![^` + lineTerminators + `])`
	// A line end: no character after it but a line terminator.
	lineEnd = `(?![^` + lineTerminators + `])`
)

// wordBoundaries returns \b's and \B's lookarounds for the word characters
// of a pattern with these flags. Without u the class is read case
// sensitively: regexp2's i would add ſ and the Kelvin sign, which fold to
// s and k.
func wordBoundaries(unicode, ignoreCase bool) (boundary, notBoundary string) {
	w := `[A-Za-z0-9_]`
	switch {
	case unicode && ignoreCase:
		w = `[A-Za-z0-9_\u017F\u212A]`
	case ignoreCase:
		w = `(?-i:[A-Za-z0-9_])`
	}
	after, notAfter := `(?<=`+w+`)`, `(?<!`+w+`)`
	before, notBefore := `(?=`+w+`)`, `(?!`+w+`)`
	return `(?:` + after + notBefore + `|` + notAfter + before + `)`,
		`(?:` + after + before + `|` + notAfter + notBefore + `)`
}

// dotOutsideLines is ECMAScript's . without the s flag: any character but
// a line terminator (regexp2's . takes U+2028 and U+2029).
const dotOutsideLines = `[^` + lineTerminators + `]`

// scanRegexpAssertions calls f with the offset and the text of each token
// of src, a JavaScript pattern, that regexp2 reads otherwise: ^, $ and .
// outside a character class, and the escapes \b and \B outside one
// (inside one, \b is a backspace). A group's name ((?<$x>…), \k<$x>) is
// skipped: $ is a name character there. It stops when f returns false.
func scanRegexpAssertions(src string, f func(at int, token string) bool) {
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			if i+1 < len(src) && !inClass {
				switch src[i+1] {
				case 'b', 'B':
					if !f(i, src[i:i+2]) {
						return
					}
				case 'k':
					if i+2 < len(src) && src[i+2] == '<' {
						i = skipGroupName(src, i+2) - 1
						continue
					}
				}
			}
			i++ // the escaped character, whatever it is
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(' && strings.HasPrefix(src[i:], "(?<") && !strings.HasPrefix(src[i:], "(?<=") && !strings.HasPrefix(src[i:], "(?<!"):
			i = skipGroupName(src, i+2) - 1
		case c == '^' || c == '$' || c == '.':
			if !f(i, src[i:i+1]) {
				return
			}
		}
	}
}

// skipGroupName returns the offset after the group name that starts at the
// '<' at lt, up to its '>' (or the pattern's end).
func skipGroupName(src string, lt int) int {
	if end := strings.IndexByte(src[lt:], '>'); end >= 0 {
		return lt + end + 1
	}
	return len(src)
}

// lineAnchors reports whether src has a ^ or $ assertion.
func lineAnchors(src string) bool {
	found := false
	scanRegexpAssertions(src, func(_ int, a string) bool {
		if a == "." {
			return true
		}
		found = a == "^" || a == "$"
		return !found
	})
	return found
}

// ecmaAssertions returns src for regexp2, with its \b and \B, its . (but
// with dotAll), and with multiline its ^ and $, spelt out as ECMAScript
// reads them. regexp2 is then compiled without its Multiline option: the
// lookarounds say it all.
func ecmaAssertions(src string, multiline, dotAll, unicode, ignoreCase bool) string {
	var sb strings.Builder
	last := 0
	boundary, notBoundary := wordBoundaries(unicode, ignoreCase)
	scanRegexpAssertions(src, func(at int, a string) bool {
		var with string
		switch a {
		case ".":
			if dotAll {
				return true
			}
			with = dotOutsideLines
		case `\b`:
			with = boundary
		case `\B`:
			with = notBoundary
		case "^":
			if !multiline {
				return true
			}
			with = lineStart
		case "$":
			if !multiline {
				return true
			}
			with = lineEnd
		}
		sb.WriteString(src[last:at])
		sb.WriteString(with)
		last = at + len(a)
		return true
	})
	if last == 0 {
		return src
	}
	sb.WriteString(src[last:])
	return sb.String()
}
