package flowjob

import (
	"iter"
	"strings"
)

// TemplatePart is a piece of an interpolation template: literal Text, or,
// when Ref is true, a reference whose variable name is Text.
type TemplatePart struct {
	Text string
	Ref  bool
}

// TemplateParts splits a template into literal text and {{name}}
// references, left to right. It is the one reading of the template syntax:
// the executor interpolates with it, and Validate bounds interpolated sizes
// with it.
//
// A reference is "{{", optional white space, a name, optional white space,
// "}}". A name is one or more bytes other than '{', '}' and ASCII white
// space; dots are plain characters ("contact.name" is one name). Anything
// else is literal text: a lone "{{" or "}}", "{{ }}", "{{a b}}", "{{a}".
// Scanning goes left to right and a reference starts at the first "{{"
// that opens one: "{{{a}}}" is "{", the reference a, then "}"; "{{{{a}}}}"
// is "{{", a, "}}". Scanning is linear in the template's length.
func TemplateParts(template string) iter.Seq[TemplatePart] {
	return func(yield func(TemplatePart) bool) {
		lit, i := 0, 0
		for {
			j := strings.Index(template[i:], "{{")
			if j < 0 {
				break
			}
			start := i + j
			name, end, ok := parseRef(template, start)
			if !ok {
				i = start + 1
				continue
			}
			if start > lit && !yield(TemplatePart{Text: template[lit:start]}) {
				return
			}
			if !yield(TemplatePart{Text: name, Ref: true}) {
				return
			}
			i, lit = end, end
		}
		if lit < len(template) {
			yield(TemplatePart{Text: template[lit:]})
		}
	}
}

// parseRef reads a reference starting at the "{{" at s[start:].
func parseRef(s string, start int) (name string, end int, ok bool) {
	i := skipSpace(s, start+2)
	n := i
	for n < len(s) && s[n] != '{' && s[n] != '}' && !isSpace(s[n]) {
		n++
	}
	if n == i {
		return "", 0, false
	}
	e := skipSpace(s, n)
	if !strings.HasPrefix(s[e:], "}}") {
		return "", 0, false
	}
	return s[i:n], e + 2, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// interpolatedLen is the length of template interpolated with vars,
// computed without building it; it stops counting once over limit.
func interpolatedLen(template string, vars map[string]string, limit int) int {
	n := 0
	for part := range TemplateParts(template) {
		if part.Ref {
			n += len(vars[part.Text])
		} else {
			n += len(part.Text)
		}
		if n > limit {
			return n
		}
	}
	return n
}
