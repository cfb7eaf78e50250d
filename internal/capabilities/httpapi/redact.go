package httpapi

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// redacted replaces a secret in anything that goes back to a script.
const redacted = "[REDACTED]"

// redactor removes secrets from text in every form that decodes to one.
//
// A text is searched as it is and in four decoded forms: JSON-unescaped
// (\" \\ \/ \b \f \n \r \t and \uXXXX in either case of hex, surrogate
// pairs joined), percent-decoded (%XX in either case of hex; any mix of
// encoded and plain bytes), JSON-unescaped then percent-decoded, and
// percent-decoded then JSON-unescaped. A form is made only when the text
// holds its escape byte ('\' or '%'), in one pass that keeps no map: a
// match is mapped back to the text by a second pass over the same escapes,
// and the whole escapes it covers are replaced, so the rest of the text
// keeps its bytes. Decoding applies everywhere in the text, not only
// inside JSON strings: a valid JSON text has no '\' outside its strings,
// so the JSON-unescaped form holds every string (and key) as a JSON parser
// reads it.
type redactor struct {
	secrets []string // the values and their variants (lower-cased when fold)
	fail    [][]int  // the KMP failure function of each secret, for trimPartial
	maxLen  int      // the longest secret
	fold    bool     // ASCII letters match in either case (header names)
}

// newRedactor prepares the values; empty ones are ignored. Besides a value
// itself, it searches the value with invalid UTF-8 replaced by U+FFFD (as
// the response's text is) and, when it holds a space, with '+' for each
// space (form encoding). fold makes the search ASCII case-insensitive.
func newRedactor(values []string, fold bool) *redactor {
	r := &redactor{fold: fold}
	add := func(s string) {
		if fold {
			s = strings.ToLower(s)
		}
		if s != "" && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	for _, v := range values {
		for _, s := range []string{v, strings.ToValidUTF8(v, "\uFFFD")} {
			add(s)
			if strings.Contains(s, " ") {
				add(strings.ReplaceAll(s, " ", "+"))
			}
		}
	}
	for _, s := range r.secrets {
		r.fail = append(r.fail, failure(s))
		r.maxLen = max(r.maxLen, len(s))
	}
	return r
}

// redact replaces every secret in s, in any of the forms, by redacted.
// Occurrences that overlap (in one form or across forms) become one marker.
func (r *redactor) redact(s string) string {
	if len(r.secrets) == 0 || s == "" {
		return s
	}
	var found []span
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '%') < 0 {
		found = r.find(s) // the only form
	} else {
		forms(s, func(st *stream) {
			if m := r.find(st.text); len(m) > 0 {
				found = append(found, st.toRaw(m)...)
			}
		})
	}
	if len(found) == 0 {
		return s
	}
	slices.SortFunc(found, func(a, b span) int { return cmp.Compare(a.a, b.a) })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(found); {
		cur := found[i]
		for i++; i < len(found) && found[i].a < cur.b; i++ {
			cur.b = max(cur.b, found[i].b)
		}
		b.WriteString(s[at:cur.a])
		b.WriteString(redacted)
		at = cur.b
	}
	b.WriteString(s[at:])
	return b.String()
}

// maxTrimRounds bounds trimPartial: each round cuts what one look at the
// end found; a round finds a secret's piece cut by the end in one look, the
// next rounds only tidy what was in front of it.
const maxTrimRounds = 8

// trimPartial drops the end of a cut text when it is the beginning of a
// secret in any of the forms, or an escape cut short (which could be the
// next byte of one): a script that moves the cut could otherwise read a
// secret a few characters at a time. Only the end is decoded: the last
// encodedMax bytes per secret byte, from a byte that no escape continues.
func (r *redactor) trimPartial(s string) string {
	if len(r.secrets) == 0 {
		return s
	}
	for range maxTrimRounds {
		start := plainStart(s, len(s)-(encodedMax*r.maxLen+32))
		w := s[start:]
		c := len(w)
		forms(w, func(st *stream) {
			end := len(st.text)
			if st.cut >= 0 {
				end = st.cut
			}
			from := end
			for k, sec := range r.secrets {
				from = min(from, end-suffixPrefix(st.text[:end], sec, r.fail[k]))
			}
			if from < len(st.text) {
				c = min(c, st.toRaw([]span{{from, from + 1}})[0].a)
			}
		})
		if c == len(w) {
			return s
		}
		s = s[:start+c]
	}
	return s
}

// encodedMax is the most bytes one byte of a secret takes in the forms: a
// JSON \u escape of each character of %XX (\u0025\u0032\u0046), or %XX of
// each character of a \u escape.
const encodedMax = 18

// find returns where the secrets are in text, overlapping matches of one
// secret merged.
func (r *redactor) find(text string) []span {
	if r.fold {
		text = lowerASCII(text)
	}
	var out []span
	for _, sec := range r.secrets {
		first := len(out)
		for off := 0; ; {
			k := strings.Index(text[off:], sec)
			if k < 0 {
				break
			}
			a := off + k
			if n := len(out); n > first && a < out[n-1].b {
				out[n-1].b = a + len(sec)
			} else {
				out = append(out, span{a, a + len(sec)})
			}
			off = a + 1
		}
	}
	return out
}

// span is the bytes [a, b) of a text.
type span struct{ a, b int }

// stream is a text in one form: the response's own text (parent nil) or
// its parent's text decoded by one layer.
type stream struct {
	text   string
	parent *stream
	layer  *layer
	cut    int // where in text an escape cut short by the end begins, or -1
}

// forms calls f with s and each decoded form of it that can differ from
// those before.
func forms(s string, f func(*stream)) {
	raw := &stream{text: s, cut: -1}
	f(raw)
	for _, pair := range [2][2]*layer{{&jsonLayer, &percentLayer}, {&percentLayer, &jsonLayer}} {
		if strings.IndexByte(s, pair[0].esc) < 0 {
			continue
		}
		one := raw.derive(pair[0])
		f(one)
		if strings.IndexByte(one.text, pair[1].esc) >= 0 {
			f(one.derive(pair[1]))
		}
	}
}

// derive decodes st's text by l.
func (st *stream) derive(l *layer) *stream {
	var b strings.Builder
	b.Grow(len(st.text)) // decoding never lengthens a text
	out := &stream{parent: st, layer: l, cut: -1}
	var u [utf8.UTFMax]byte
	s := st.text
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], l.esc)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		o, n, short := l.unit(s, i, u[:0])
		if short && out.cut < 0 {
			out.cut = b.Len()
		}
		b.Write(o)
		i += n
	}
	out.text = b.String()
	return out
}

// toRaw maps spans of st's text to spans of the response's text: the whole
// escapes their first and last bytes come from.
func (st *stream) toRaw(spans []span) []span {
	for ; st.parent != nil; st = st.parent {
		spans = st.layer.mapBack(st.parent.text, spans)
	}
	return spans
}

// layer is one encoding a service may give a secret.
type layer struct {
	esc byte // each escape starts with this byte
	// unit decodes the escape at s[i] (s[i] == esc): it appends the bytes
	// it stands for to out and returns how many bytes of s it takes. Not an
	// escape: esc itself, one byte. short reports an escape that the end of
	// s cuts (it may be one with the bytes that followed).
	unit func(s string, i int, out []byte) (o []byte, n int, short bool)
}

var (
	jsonLayer    = layer{esc: '\\', unit: jsonUnit}
	percentLayer = layer{esc: '%', unit: percentUnit}
)

// mapBack maps spans of in decoded by l to spans of in, in one pass over
// in's escapes (the same ones derive decoded).
func (l *layer) mapBack(in string, spans []span) []span {
	type point struct {
		d, k int // a byte of the decoded text; the span it starts or ends
		end  bool
	}
	pts := make([]point, 0, 2*len(spans))
	for k, sp := range spans {
		pts = append(pts, point{sp.a, k, false}, point{sp.b - 1, k, true})
	}
	slices.SortFunc(pts, func(x, y point) int { return cmp.Compare(x.d, y.d) })
	out := make([]span, len(spans))
	set := func(p point, a, b int) {
		if p.end {
			out[p.k].b = b
		} else {
			out[p.k].a = a
		}
	}
	var u [utf8.UTFMax]byte
	p, i, d := 0, 0, 0
	for p < len(pts) && i < len(in) {
		lit := strings.IndexByte(in[i:], l.esc)
		if lit < 0 {
			lit = len(in) - i
		}
		for ; p < len(pts) && pts[p].d < d+lit; p++ {
			x := i + pts[p].d - d
			set(pts[p], x, x+1)
		}
		i, d = i+lit, d+lit
		if i == len(in) {
			break
		}
		o, n, _ := l.unit(in, i, u[:0])
		for ; p < len(pts) && pts[p].d < d+len(o); p++ {
			set(pts[p], i, i+n)
		}
		i, d = i+n, d+len(o)
	}
	return out
}

// percentUnit decodes %XX, either case of hex.
func percentUnit(s string, i int, out []byte) ([]byte, int, bool) {
	if b, ok := unhex2(s[i+1:]); ok {
		return append(out, b), 3, false
	}
	short := i+1 == len(s) || i+2 == len(s) && isHex(s[i+1])
	return append(out, '%'), 1, short
}

// jsonUnit decodes a JSON string escape as a JSON parser does: a surrogate
// pair is one character, a lone surrogate U+FFFD.
func jsonUnit(s string, i int, out []byte) ([]byte, int, bool) {
	if i+1 == len(s) {
		return append(out, '\\'), 1, true
	}
	switch c := s[i+1]; c {
	case '"', '\\', '/':
		return append(out, c), 2, false
	case 'b':
		return append(out, '\b'), 2, false
	case 'f':
		return append(out, '\f'), 2, false
	case 'n':
		return append(out, '\n'), 2, false
	case 'r':
		return append(out, '\r'), 2, false
	case 't':
		return append(out, '\t'), 2, false
	case 'u':
		r, ok, short := hex4(s, i+2)
		if !ok {
			return append(out, '\\'), 1, short
		}
		n := 6
		if utf16.IsSurrogate(r) && r < 0xdc00 { // a high surrogate: a low one may follow
			if lo, pair, cut := lowSurrogate(s, i+6); pair {
				r, n = utf16.DecodeRune(r, lo), 12
			} else {
				short = cut
			}
		}
		return utf8.AppendRune(out, r), n, short // a lone surrogate appends U+FFFD
	}
	return append(out, '\\'), 1, false
}

// hex4 reads four hex digits at s[j:]; short reports that s ended first.
func hex4(s string, j int) (r rune, ok, short bool) {
	for k := range 4 {
		if j+k == len(s) {
			return 0, false, true
		}
		h, ok := unhex(s[j+k])
		if !ok {
			return 0, false, false
		}
		r = r<<4 | rune(h)
	}
	return r, true, false
}

// lowSurrogate reads \uDC00..\uDFFF at s[j:]; short reports that s ended
// first.
func lowSurrogate(s string, j int) (r rune, ok, short bool) {
	for k, c := range []byte(`\u`) {
		if j+k == len(s) {
			return 0, false, true
		}
		if s[j+k] != c {
			return 0, false, false
		}
	}
	r, ok, short = hex4(s, j+2)
	if !ok || r < 0xdc00 || r > 0xdfff {
		return 0, false, short
	}
	return r, true, false
}

// plainStart moves i back (to 0 at least) until the byte before it ends
// every escape it is part of: a byte that is no escape's first or middle
// byte ('\', 'u', '%' or a hex digit). Decoding from there reads the same
// escapes as decoding from the start.
func plainStart(s string, i int) int {
	i = max(i, 0)
	for ; i > 0; i-- {
		if c := s[i-1]; c != '\\' && c != '%' && c != 'u' && !isHex(c) {
			break
		}
	}
	return i
}

// suffixPrefix is the length of the longest proper prefix of sec that
// text ends with (fail is sec's failure function).
func suffixPrefix(text, sec string, fail []int) int {
	q := 0
	for i := max(0, len(text)-len(sec)+1); i < len(text); i++ {
		for q > 0 && text[i] != sec[q] {
			q = fail[q-1]
		}
		if text[i] == sec[q] {
			q++
		}
	}
	return q
}

// failure is the KMP failure function of s: fail[i] is the length of the
// longest proper prefix of s[:i+1] that is also its suffix.
func failure(s string) []int {
	fail := make([]int, len(s))
	for i, q := 1, 0; i < len(s); i++ {
		for q > 0 && s[i] != s[q] {
			q = fail[q-1]
		}
		if s[i] == s[q] {
			q++
		}
		fail[i] = q
	}
	return fail
}

func isHex(c byte) bool {
	_, ok := unhex(c)
	return ok
}

// lowerASCII lower-cases ASCII letters only, so offsets keep their meaning.
func lowerASCII(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
