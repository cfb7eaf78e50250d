package goja

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// prefixPatterns take patch 23's prefix search: every match starts with two
// or more characters of narrow ASCII sets.
var prefixPatterns = []struct{ src, flags string }{
	{`\d{3}\.\d{3}\.\d{3}-\d{2}`, "g"},
	{`(?:pedido|order)\s*#?\s*(\d{6,8})`, "gi"},
	{`\b(\d{2})\/(\d{2})\/(\d{4})\b`, "g"},
	{`\(?\d{2}\)?\s?9?\d{4}-?\d{4}`, "g"},
	{`\b(urgente|cancelar|procon|reclame aqui)\b`, "i"},
	{`^ab+`, "g"}, // with m, ^ and $ go to regexp2 (patch 36)
	{`\Bok\b`, "g"},
	{`(ab|cd)?ef`, "g"},
	{`x(?:yz|y)\w*$`, "g"},
	{`sk`, "gi"},
	{`(?:a|b)c\b`, "g"},
	{`12(3)?`, "gy"},
}

// TestPrefixRunChosen checks which patterns take patch 23's search, and
// that its matches are the ones the search without it gives (Go's regexp
// on the text, with the character before the offset as context) from
// every offset of texts made to trip it: prefixes that fail at their last
// position, matches at both ends, after accents, with ſ and the Kelvin sign
// where the i flag allows them, at line starts and word edges.
func TestPrefixRunChosen(t *testing.T) {
	for _, tt := range []struct {
		src, flags string
		prefix     bool
	}{
		{`\d{3}\.\d{3}`, "g", true},
		{`(?:pedido|order)\s*#?\s*(\d{6,8})`, "gi", true},
		{`\b(\d{2})\/(\d{2})`, "g", true},
		{`\(?\d{2}\)?`, "g", true},
		{`ab`, "g", true},
		{`a`, "g", false},          // one position
		{`a?bc`, "g", true},        // {a,b} then {b,c}
		{`[a-z]{2}\d`, "g", false}, // the first set is not narrow
		{`é\d`, "g", false},        // a character outside ASCII first
		{`a*bc`, "g", false},       // nothing sure before the b
		{`\d+\.\d`, "g", false},    // a class run before a rest (patch 14)
		{`\w+`, "g", false},        // a class run (patch 11)
		{`(a)\1`, "g", false},      // regexp2 only
		{`s[kx]`, "gi", true},      // ſ and K are left to goTextOf's check
	} {
		p, err := compileRegexp(tt.src, tt.flags)
		if err != nil {
			t.Fatal(err)
		}
		if p.regexpWrapper == nil {
			if tt.prefix {
				t.Errorf("/%s/%s: compiled for regexp2 only", tt.src, tt.flags)
			}
			continue
		}
		p.fast.init(p)
		if got := p.fast.prefix != nil; got != tt.prefix {
			t.Errorf("/%s/%s: prefix %t, want %t", tt.src, tt.flags, got, tt.prefix)
		}
	}
	texts := []string{
		"", "a", "123.456.789-09", "x123.456.789-0", "123.456.789-091", "Pedido #1234567 e ORDER 7654321; pedidos 12345",
		"pedido #12345 pedido 123456789 order#123456", "01/02/2024 e 1/02/2024, 31/12/19999 e 12/12/2024x",
		"(11) 98765-4321 e 11987654321 e (1) 9876-543", "é URGENTE, quer cancelar; procon reclame aqui",
		"ab\nabb\r\nxab ab", "book ok ok! look", "abef cdef ef aef", "xyz\nxy ab\nxyzz", "SK sk ſk sK Sk Kk",
		"acd bc bcd ác", "123123 12 123", "á1é23.456.789-01ó (11) 98765-4321ú 01/02/2024ü",
	}
	// A try's text ends one character past the longest match: texts whose
	// last character, two or three bytes long, straddles that end.
	for k := range 48 {
		texts = append(texts, "123.456.789-09"+strings.Repeat("x", k)+"é", "01/02/2024 "+strings.Repeat("1", k)+"€")
	}
	for _, pp := range prefixPatterns {
		p, err := compileRegexp(pp.src, pp.flags)
		if err != nil {
			t.Fatal(err)
		}
		p.fast.init(p)
		if p.fast.prefix == nil {
			t.Errorf("/%s/%s does not take the prefix search", pp.src, pp.flags)
			continue
		}
		for _, text := range texts {
			if p.ignoreCase && strings.ContainsAny(text, "\u017f\u212a") {
				continue // goTextOf keeps such a search off Go's regexp
			}
			for pos := 0; pos <= len(text); pos++ {
				if pos < len(text) && !utf8.RuneStart(text[pos]) {
					continue
				}
				if got, want := prefixFind(p, text, pos), withoutPrefix(p, text, pos); !reflect.DeepEqual(got, want) {
					t.Errorf("/%s/%s in %q from %d: got %v, without the prefix search %v", pp.src, pp.flags, text, pos, got, want)
				}
			}
		}
	}
}

// prefixFind is goFind with patch 23: the prefix search, and the search
// from where it stops when its tries read too much.
func prefixFind(p *regexpPattern, text string, pos int) []int {
	return p.goFind(text, pos)
}

// withoutPrefix is goFind without patch 23.
func withoutPrefix(p *regexpPattern, text string, pos int) []int {
	q := p.fast.prefix
	p.fast.prefix = nil
	defer func() { p.fast.prefix = q }()
	return p.goFind(text, pos)
}

// FuzzPrefixRun compares patch 23's search with the search without it
// from every offset of fuzzed texts:
//
//	(cd third_party/goja && go test -run '^$' -fuzz FuzzPrefixRun -fuzztime 60s)
func FuzzPrefixRun(f *testing.F) {
	var patterns []*regexpPattern
	for _, pp := range prefixPatterns {
		p, err := compileRegexp(pp.src, pp.flags)
		if err != nil {
			f.Fatal(err)
		}
		if p.fast.init(p); p.fast.prefix == nil {
			f.Fatalf("/%s/%s does not take the prefix search", pp.src, pp.flags)
		}
		patterns = append(patterns, p)
	}
	for _, s := range []string{"123.456.789-09", "Pedido #1234567", "01/02/2024", "(11) 98765-4321", "ab\nabb", "sk ſk"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		for _, p := range patterns {
			if p.ignoreCase && strings.ContainsAny(text, "\u017f\u212a") {
				continue
			}
			for pos := 0; pos <= len(text); pos++ {
				if pos < len(text) && !utf8.RuneStart(text[pos]) {
					continue
				}
				if got, want := prefixFind(p, text, pos), withoutPrefix(p, text, pos); !reflect.DeepEqual(got, want) {
					t.Fatalf("/%s/ in %q from %d: got %v, without the prefix search %v", p.src, text, pos, got, want)
				}
			}
		}
	})
}

// TestPrefixRunFallsBack: where Go's regexp cannot take the text (a
// surrogate pair; ſ or the Kelvin sign with i), a prefix pattern goes to
// regexp2 as before it had a prefix: upstream's other path ignores the
// sticky flag of a non-global replace. Answers are Node's.
func TestPrefixRunFallsBack(t *testing.T) {
	v, err := New().RunString(`JSON.stringify([
		"😀 12".replace(/\d\d/y, "X"),
		"ſ 12".replace(/\d\d/iy, "X"),
		"a 123.456.789-09 😀".replace(/\d{3}\.\d{3}\.\d{3}-\d{2}/y, "X"),
		"12 😀".replace(/\d\d/y, "X"),
		"😀 12 34".match(/\d\d/g),
		"ſ PEDIDO 1234567".replace(/pedido\s*(\d{6,8})/i, "<$1>"),
	])`)
	if err != nil {
		t.Fatal(err)
	}
	want := `["😀 12","ſ 12","a 123.456.789-09 😀","X 😀",["12","34"],"ſ <1234567>"]`
	if got := v.String(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestPrefixRunBoundsItsTries: a pattern with no bound on its length makes
// each try read the rest of the text; past a budget the search goes on in
// one pass of Go's regexp, with the same answers. Before the budget,
// \d{2,}x over 100,000 digits took minutes (every digit a try to the end).
func TestPrefixRunBoundsItsTries(t *testing.T) {
	p, err := compileRegexp(`\d{2,}x`, "g")
	if err != nil {
		t.Fatal(err)
	}
	if p.fast.init(p); p.fast.prefix == nil {
		t.Fatal("no prefix search")
	}
	digits := strings.Repeat("1", 100_000)
	for _, text := range []string{digits, digits + "x", "é" + digits + "x é", strings.Repeat("12x", 30_000)} {
		start := time.Now()
		for _, pos := range []int{0, 1, 2, 999, len(text) / 2, len(text) - 3} {
			if got, want := prefixFind(p, text, pos), withoutPrefix(p, text, pos); !reflect.DeepEqual(got, want) {
				t.Errorf("%d bytes from %d: got %v, without the prefix search %v", len(text), pos, got, want)
			}
		}
		// A bound with a thousandfold margin: only a search that reads the
		// rest of the text from every digit gets near it.
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%d bytes: the searches took %s", len(text), d)
		}
	}
}

// TestPrefixRunCompilesOnFirstTry: the anchored regexps are compiled when
// a prefix first holds, so a pattern made at run time whose prefix never
// holds in the text costs no compile.
func TestPrefixRunCompilesOnFirstTry(t *testing.T) {
	p, err := compileRegexp(`w12[xy]`, "g") // not a literal, which strings.Index searches (patch 78)
	if err != nil {
		t.Fatal(err)
	}
	if p.fast.init(p); p.fast.prefix == nil {
		t.Fatal("no prefix search")
	}
	q := p.fast.prefix
	if m := prefixFind(p, "brown fox, w1 w12 x12x", 0); m != nil || q.at != nil {
		t.Errorf("a text the prefix never holds in: match %v, compiled %v", m, q.at)
	}
	if m := prefixFind(p, "a w12x", 0); !reflect.DeepEqual(m, []int{2, 6}) || q.at == nil {
		t.Errorf("a text with the match: %v, compiled %v", m, q.at)
	}
}
