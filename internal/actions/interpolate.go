package actions

import (
	"strings"
	"unicode/utf8"

	"github.com/flowscript/flowscript/flowjob"
)

// Interpolate replaces every {{name}} reference in template with
// vars[name] ("" when missing), in one pass. See the package doc for the
// syntax and flowjob.TemplateParts for the grammar.
func Interpolate(template string, vars map[string]string) string {
	s, _ := expand(template, func(name string) string { return vars[name] }, -1)
	return s
}

// expand interpolates template with lookup. With limit >= 0 it stops once
// the text passes limit bytes and returns it cut to limit (see cut); the
// bool reports the cut.
func expand(template string, lookup func(name string) string, limit int) (string, bool) {
	if !strings.Contains(template, "{{") {
		return cut(template, limit)
	}
	var b strings.Builder
	for part := range flowjob.TemplateParts(template) {
		if part.Ref {
			b.WriteString(lookup(part.Text))
		} else {
			b.WriteString(part.Text)
		}
		if limit >= 0 && b.Len() > limit {
			break
		}
	}
	return cut(b.String(), limit)
}

// ellipsis marks a cut message.
const ellipsis = "…"

// cut returns s when limit < 0 or s fits in limit bytes; otherwise s cut
// on a rune boundary and ended with "…", limit bytes at most.
func cut(s string, limit int) (string, bool) {
	if limit < 0 || len(s) <= limit {
		return s, false
	}
	n := max(limit-len(ellipsis), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis, true
}
