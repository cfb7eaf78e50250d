package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"abc", -1, "abc"},
		{"abc", 3, "abc"},
		{"abcdef", 5, "ab…"},
		{"ééé", 5, "é…"},
		{"ééé", 4, "…"}, // a cut never splits a rune: no room for a second é
		{"ééé", 6, "ééé"},
		{"éééé", 7, "éé…"},
		{"abc", 1, ""}, // no room even for the mark
	} {
		if got, _ := Cut(tc.in, tc.limit); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"api", 40, `"api"`},
		{"a\x00\"b", 40, `"a\x00\"b"`},
		{"abcdef", 5, `"ab"…`},
		{"ééé", 5, `"é"…`},
		{"abc", 1, `""…`}, // no room for the mark: nothing of s
	} {
		if got := Quote(tc.in, tc.limit); got != tc.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tc.in, tc.limit, got, tc.want)
		}
	}
}

func FuzzCut(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Add(strings.Repeat("😀", 10), 7)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		got, cut := Cut(s, limit)
		if limit >= 0 && len(got) > limit {
			t.Fatalf("Cut(%q, %d) = %d bytes", s, limit, len(got))
		}
		if !cut && got != s {
			t.Fatalf("uncut text changed: %q -> %q", s, got)
		}
		if cut && utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut split a rune: %q", got)
		}
	})
}

func TestInvalidAt(t *testing.T) {
	for s, want := range map[string]int{
		"":             -1,
		"ação ✓":       -1,
		"a\xe7\xe3o":   1,
		"ok\xff":       2,
		"\xed\xa0\x80": 0, // a surrogate's encoding is no UTF-8
	} {
		if got := InvalidAt([]byte(s)); got != want {
			t.Errorf("InvalidAt(%q) = %d, want %d", s, got, want)
		}
	}
}
