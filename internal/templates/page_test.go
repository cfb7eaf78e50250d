package templates

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJSONStringLenIsTheEncodedLength: a page's budget counts each string
// as encoding/json writes it for the API (no HTML escaping), so a page of
// control characters is not seven times its budget.
func TestJSONStringLenIsTheEncodedLength(t *testing.T) {
	pieces := []string{"a", "é", "😀", "\x00", "\x01", "\x1f", "\x7f", "\n", "\r", "\t", "\b", "\f", `"`, `\`,
		"<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "\ufffd", " "}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := buf.Len() - 3; JSONStringLen(s) != want { // quotes and the newline
			t.Fatalf("case %d: JSONStringLen(%q) = %d, encoding/json writes %d", i, s, JSONStringLen(s), want)
		}
	}
}
