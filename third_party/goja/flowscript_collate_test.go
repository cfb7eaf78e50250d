package goja

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// TestCollationKeysOrderAsCompare (patch 153): for every collator
// localeCompare makes (locales, numeric, each sensitivity), comparing two
// strings' sort keys orders them as the collator's CompareString does, on
// random strings of what names and messages hold: letters in both cases,
// precomposed and decomposed accents, digits, punctuation, ß, ø, æ, emoji,
// U+FFFD and Hangul.
func TestCollationKeysOrderAsCompare(t *testing.T) {
	pieces := []string{"a", "A", "b", "z", "Z", "e", "é", "É", "e\u0301", "ç", "c\u0327", "ã", "ñ", "ö", "ø", "å", "ß", "ss", "æ",
		"0", "1", "2", "9", "10", "007", " ", "-", ".", ",", "'", "(", "😀", "\U0010FFFD", "한", "ᄒ", "ﬁ", "Ⅸ", "½", "i", "İ", "ı"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b []byte
		for n := rng.IntN(6); n >= 0; n-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		return norm.NFD.String(string(b))
	}
	var buf collate.Buffer
	for _, lang := range []string{"und", "pt", "en", "es", "de", "fr", "sv", "nn", "tr", "da"} {
		for _, o := range [][]collate.Option{nil, {collate.Numeric}, {collate.IgnoreCase}, {collate.IgnoreCase, collate.IgnoreDiacritics}, {collate.Numeric, collate.IgnoreCase, collate.IgnoreDiacritics}} {
			c := collate.New(language.Make(lang), o...)
			for range 3000 {
				a, b := word(), word()
				ka := bytes.Clone(c.KeyFromString(&buf, a))
				kb := bytes.Clone(c.KeyFromString(&buf, b))
				buf.Reset()
				if got, want := bytes.Compare(ka, kb), c.CompareString(a, b); got != want {
					t.Fatalf("%s %d options: %q vs %q: keys %d, CompareString %d", lang, len(o), a, b, got, want)
				}
			}
		}
	}
}

// TestLocaleCompareSortKeepsKeys (patch 153): a sort whose comparator
// calls localeCompare makes each string's sort key once, and gives Node's
// order; the keys are dropped when the sort returns. Upstream normalized
// and copied both strings at every comparison: 78 MB for these 5,000
// names, about 7 now (most of it the comparator's calls).
func TestLocaleCompareSortKeepsKeys(t *testing.T) {
	r := New()
	if _, err := r.RunString(`
const first = ['Ana', 'Álvaro', 'Érica', 'João', 'José', 'Zé', 'Çelik', 'Öz', 'ana', 'Ângela', 'Ítalo', 'Úrsula'];
const last = ['Silva', 'Souza', 'Araújo', 'Gonçalves', 'Conceição', 'Müller', 'd\'Ávila', 'Ñúñez'];
const names = Array.from({length: 5000}, (_, i) => first[(i * 7) % first.length] + ' ' + last[(i * 13) % last.length] + ' ' + (i % 97));`); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := r.RunString(`const s = names.slice().sort((a, b) => a.localeCompare(b, 'pt-BR')); [s[0], s[1], s[2500], s[4999]].join('|')`)
	runtime.ReadMemStats(&after)
	if want := "Álvaro Gonçalves 0|Álvaro Gonçalves 0|Érica d'Ávila 96|Zé Ñúñez 96"; err != nil || v.String() != want {
		t.Fatalf("%v (%v), want %s", v, err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 24<<20 {
		t.Errorf("the sort allocated %d MB, want under 24", got>>20)
	}
	if r.collationKeys != nil {
		t.Errorf("%d sort keys kept after the sort, want none", len(r.collationKeys))
	}
}
