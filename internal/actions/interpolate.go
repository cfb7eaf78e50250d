package actions

import (
	"strings"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/textcut"
)

// Interpolate replaces every {{name}} reference in template with
// vars[name] ("" when missing), in one pass. See the package doc for the
// syntax and flowjob.TemplateParts for the grammar.
func Interpolate(template string, vars map[string]string) string {
	s, _ := expand(template, func(name string) string { return vars[name] }, -1)
	return s
}

// expand interpolates template with lookup. With limit >= 0 it stops once
// the text passes limit bytes and returns it cut to limit (textcut.Cut);
// the bool reports the cut.
func expand(template string, lookup func(name string) string, limit int) (string, bool) {
	if !strings.Contains(template, "{{") {
		return textcut.Cut(template, limit)
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
	return textcut.Cut(b.String(), limit)
}
