package regexp2

import "testing"

// TestFirstCharsKeepWhatPrecedesANegatedChar: the set of characters that
// can start a match, for a pattern whose optional start is followed by
// [^x], holds the optional part's characters as well as everything but x
// (FlowScript patch 5). It was computed as the negation of both, so a match
// starting on the optional part was never tried: (?<=Nome: )A?[^\n]+ found
// nothing in "Nome: Ana". The answers are V8's.
func TestFirstCharsKeepWhatPrecedesANegatedChar(t *testing.T) {
	for _, c := range []struct {
		pattern, text, want string
		index               int
	}{
		{`(?=.)a?[^b]`, "ac", "ac", 0},
		{`(?<=Nome: )A?[^\n]+`, "Nome: Ana Souza", "Ana Souza", 6},
		{`(?<=Nome:) *[^\n]+`, "Nome: Ana", " Ana", 5},
		{`(?<=#)0*[^#]+`, "pedido #000", "000", 8},
		{`(?!x)(?:a|[^b])`, "a", "a", 0},
		{`()0?[^)]\1`, "0", "0", 0},
		{`(?=.)0*[^)]+`, "001", "001", 0},
		{`(?=.)[a-c]??[^b]`, "bc", "bc", 0},
		{`(?=.)a?[^b]`, "bc", "c", 1}, // what precedes is still only what it is
		{`(?=.)a?[^b]+`, "b", "", -1},
	} {
		for _, opts := range []RegexOptions{ECMAScript, None, ECMAScript | Multiline, ECMAScript | Unicode} {
			re := MustCompile(c.pattern, opts)
			m, err := re.FindStringMatch(c.text)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case m == nil && c.index >= 0:
				t.Errorf("%s (options %v) in %q: no match, want %q at %d", c.pattern, opts, c.text, c.want, c.index)
			case m != nil && c.index < 0:
				t.Errorf("%s (options %v) in %q: %q, want no match", c.pattern, opts, c.text, m.String())
			case m != nil && (m.String() != c.want || m.RuneIndex != c.index):
				t.Errorf("%s (options %v) in %q: %q at %d, want %q at %d", c.pattern, opts, c.text, m.String(), m.RuneIndex, c.want, c.index)
			}
		}
	}
}
