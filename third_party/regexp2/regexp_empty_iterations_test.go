package regexp2

import "testing"

// TestECMAScriptEmptyIterationsFail: with ECMAScript, an iteration of a
// loop past its minimum that matches empty fails, and the search backtracks
// into the loop's body for a longer one, as ECMAScript's RepeatMatcher does
// (FlowScript patch 4); .NET's rule, which ends the loop at such an
// iteration, stays without the option. The ECMAScript answers are V8's.
func TestECMAScriptEmptyIterationsFail(t *testing.T) {
	for _, c := range []struct {
		pattern, text, ecma, dotnet string
	}{
		{`(?:a*?)+`, "aaa", "aaa", ""},
		{`(?:,?\s*?)+`, ", , x", ", , ", ","},
		{`(?:a*?){2,}`, "aaa", "aaa", ""},
		{`(?:a{0,2}?){3,}`, "aaaaa", "aaaaa", ""},
		{`(?:x?)+`, "", "", ""},
		{`(x?)+y`, "y", "y", "y"},
		{`(?:a*?|b)+c`, "abac", "abac", "abac"},
	} {
		for _, o := range []struct {
			opts RegexOptions
			want string
		}{{ECMAScript, c.ecma}, {None, c.dotnet}} {
			re := MustCompile(c.pattern, o.opts)
			m, err := re.FindStringMatch(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				t.Errorf("%s (options %v) in %q: no match, want %q", c.pattern, o.opts, c.text, o.want)
				continue
			}
			if got := m.String(); got != o.want {
				t.Errorf("%s (options %v) in %q: %q, want %q", c.pattern, o.opts, c.text, got, o.want)
			}
		}
	}
}
