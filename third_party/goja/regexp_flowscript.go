package goja

// FlowScript patch 11: Go's regexp for the searches goja sent to regexp2.
//
// Upstream runs a pattern Go's regexp can compile through it only for a
// search from the start of the string, and for a global search of an ASCII
// string (or, with the u flag, of valid UTF-16). A search from lastIndex
// (exec and test in a loop, matchAll, sticky replace) and a global search of
// any other string (match, matchAll, replace and split over text with a single
// accented letter) went to regexp2, a backtracking engine several times
// slower, which also built a slice as long as the string for every global
// search. Here they go to Go's regexp whenever the answer is the same:
//
//   - the string is ASCII, or UTF-16 without surrogates, so that a code unit
//     and a code point are the same character and UTF-8 holds the same text;
//   - with the i flag, the pattern names ASCII characters only and the string
//     holds neither U+017F (ſ) nor U+212A (Kelvin sign): the two characters
//     Go's case folding joins to an ASCII letter and ECMAScript's
//     Canonicalize does not (Go also folds other non-ASCII pairs differently,
//     which an ASCII pattern cannot reach). Otherwise the search goes where
//     upstream sent it, except that one that holds either character goes to
//     regexp2 from the start of the string too (patch 135,
//     foldsAcrossASCII).
//
// Go's regexp cannot start a search at an offset with the text before it in
// view. A pattern without ^, \b or \B is searched in the rest of the string.
// Any other is searched from the character before the offset; a match found
// there (made with that character read as the start of the text) is thrown
// away and the search is made again with "^(?s:.)(?s:.*?)(pattern)", which
// reads that character as context and finds the leftmost match after it.
//
// A pattern that is one character class, alone or under a greedy +, * or ?
// (\D, \s+, [^a-zà-ú]+), is matched by a scan, without a regexp. A pattern
// whose matches start with two or more characters of narrow sets is tried
// only where they are (prefixRun, patch 23). Any other pattern that only a
// few ASCII characters can start stays on regexp2 where upstream used it:
// regexp2 skips to those characters, Go's regexp tries a match at every
// position, and was measured slower on such patterns.
//
// A global search follows ECMAScript (RegExpBuiltinExec in a loop): an empty
// match is kept even where the previous match ended, and the next search
// starts one character on. Go's FindAll drops such a match, so upstream's
// "abc".match(/b*/g) had 3 items where the standard has 4. split wants
// exactly the matches Go keeps (its algorithm skips an empty match where the
// last piece ended): splitMatches drops those from any global search.

import (
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
	"weak"

	"github.com/dop251/goja/unistring"
)

// goSearch is what this patch learns of a pattern compiled for Go's regexp;
// made on first need and shared by the pattern's clones.
type goSearch struct {
	once sync.Once
	// fromRest: the pattern has no ^, \b or \B, so a search of the rest of
	// the string gives the match a search from the offset would.
	fromRest bool
	// ctx is "^(?s:.)(?s:.*?)(pattern)", for a search that needs the
	// character before the offset; compiled when first needed.
	ctx     *regexp.Regexp
	ctxOnce sync.Once
	// asciiSource: the pattern's source has no character or escape outside
	// ASCII, so Go's case folding and Canonicalize agree on every string
	// without U+017F and U+212A.
	asciiSource bool
	// literal is set when the pattern is one literal text of a character
	// or more, with no i flag and no group (/ção/, /\./, /, /): it is
	// searched with strings.Index (FlowScript patch 78), not tried by the
	// regexp machine at each match (8,000 replacements of /ção/g in 330 KB
	// of text took 10 ms, Node 1).
	literal string
	// run is set when the pattern is one character class, repeated or not
	// (\D, [^a-z]+, \s*, [,;]?): it is matched by a scan, not by a regexp.
	run *classRun
	// lead is set when the pattern is a character class under + followed by
	// a rest that cannot start with one of its characters ([\w.+-]+@…,
	// \d+ reais): it is searched run by run (leadRun).
	lead *leadRun
	// prefix is set when every match starts with two or more characters of
	// narrow sets (\d{3}\.\d{3}, (?:pedido|order) with i): they are
	// checked at each position before the pattern is tried there.
	prefix *prefixRun
	// narrow: few characters can start a match (at most 16 in ASCII, none
	// outside it) and the pattern has no lead: regexp2 skips to them, Go's
	// regexp tries every position, so regexp2 is kept where upstream used
	// it; for a pattern with a prefix, only where Go's regexp cannot take
	// the text (goTextOf returns nil), as before the prefix.
	narrow bool
}

func (g *goSearch) init(p *regexpPattern) {
	g.once.Do(func() {
		re := (*regexp.Regexp)(p.regexpWrapper)
		expr := re.String()
		g.fromRest = true
		parsed, err := syntax.Parse(expr, syntax.Perl)
		if err != nil || needsContext(parsed) {
			g.fromRest = false
		}
		if err == nil {
			parsed = parsed.Simplify()
			if parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0 && re.NumSubexp() == 0 {
				g.literal = string(parsed.Rune)
			}
			g.run = newClassRun(parsed)
			if g.run == nil {
				g.lead = newLeadRun(parsed, re.NumSubexp())
			}
			if g.run == nil && g.lead == nil {
				g.prefix = newPrefixRun(parsed, expr, !g.fromRest, p.ignoreCase)
			}
			if first, ok := firstChars(parsed); ok {
				g.narrow = first.narrow() && g.lead == nil && g.literal == ""
			}
		}
		g.asciiSource = asciiOnlySource(p.src)
	})
}

func needsContext(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if needsContext(sub) {
			return true
		}
	}
	return false
}

// asciiOnlySource reports whether a pattern's source (as compileRegexp got
// it) is ASCII and has no escape that names a character by its code: \u,
// \x, octal, \c, or a Unicode property.
func asciiOnlySource(src string) bool {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c >= utf8.RuneSelf {
			return false
		}
		if c == '\\' && i+1 < len(src) {
			i++
			switch n := src[i]; {
			case n >= '0' && n <= '9', n == 'u', n == 'x', n == 'c', n == 'p', n == 'P':
				return false
			}
		}
	}
	return true
}

// goText is a string as Go's regexp reads it: UTF-8, with what is needed to
// turn its byte offsets into UTF-16 indexes and back.
type goText struct {
	src string
	// marks has one entry after each non-ASCII character: the byte offset
	// and the UTF-16 index where the next character starts. Between marks
	// both advance together.
	marks []goTextMark
	// folds: the text holds U+017F or U+212A.
	folds bool
	// from is the string this was made from (a unicodeString), to reuse it.
	from unicodeString
	// none: from holds a surrogate, so Go's regexp cannot take it; kept so
	// the next search of it does not try again (FlowScript patch 65: an
	// exec loop over a text with an emoji rebuilt most of its UTF-8 at
	// every exec).
	none bool
	// base is where this text starts in the text its marks were made for:
	// a substring that shares a string's characters (patch 85) shares its
	// UTF-8 text and marks too (sub, FlowScript patch 149).
	base goTextMark
	// surrogates are the UTF-16 indexes of two surrogates of a text that
	// is none, the first and the last when it was made from its string, so
	// that a substring over either is known to be none at once (sub).
	surrogates [2]int
}

type goTextMark struct{ b, u int }

func (t *goText) index(b int) int {
	if len(t.marks) == 0 || b <= 0 {
		return b
	}
	b += t.base.b
	i := sort.Search(len(t.marks), func(i int) bool { return t.marks[i].b > b }) - 1
	if i < 0 {
		return b - t.base.u
	}
	return t.marks[i].u + b - t.marks[i].b - t.base.u
}

func (t *goText) offset(u int) int {
	if len(t.marks) == 0 || u <= 0 {
		return u
	}
	u += t.base.u
	i := sort.Search(len(t.marks), func(i int) bool { return t.marks[i].u > u }) - 1
	if i < 0 {
		return u - t.base.b
	}
	return t.marks[i].b + u - t.marks[i].u - t.base.b
}

// sub returns the text of u, whose characters are t's from UTF-16 index k
// (textKey.within: u's first element is t's element at k, the character
// before u's), without converting them again (FlowScript patch 149): a
// tokenizer that searches the rest of an accented text and slices a token
// off its front (rest = rest.slice(m[0].length)) converted the whole rest
// at each step, quadratic in the text. It returns nil when that must be
// done: u may hold a surrogate of t's that is none.
func (t *goText) sub(u unicodeString, k int) *goText {
	n := len(u) - 1
	if t.none {
		first, last := t.surrogates[0], t.surrogates[1]
		if first >= k && first < k+n || last >= k && last < k+n {
			return &goText{from: u, none: true, surrogates: [2]int{max(first-k, 0), min(last-k, n-1)}}
		}
		return nil // after the last, before the first, or between them
	}
	b0, b1 := t.offset(k), t.offset(k+n)
	return &goText{
		src:   t.src[b0:b1],
		marks: t.marks,
		base:  goTextMark{b: t.base.b + b0, u: t.base.u + k},
		folds: t.folds, // the whole text's: a search that could go to Go's regexp goes to regexp2
		from:  u,
	}
}

// makeGoText returns the UTF-8 text of a UTF-16 string without surrogates,
// or false.
func makeGoText(s unicodeString) (*goText, bool) {
	units := s[1:]
	var sb strings.Builder
	sb.Grow(len(units) + len(units)/8)
	t := &goText{from: s}
	for i, c := range units {
		if c < utf8.RuneSelf {
			sb.WriteByte(byte(c))
			continue
		}
		if c >= 0xD800 && c <= 0xDFFF {
			return nil, false
		}
		if c == 0x017F || c == 0x212A {
			t.folds = true
		}
		sb.WriteRune(rune(c))
		t.marks = append(t.marks, goTextMark{b: sb.Len(), u: i + 1})
	}
	t.src = sb.String()
	return t, true
}

// goText returns the text Go's regexp may search for a scanned non-ASCII
// string imported from Go, or false: its own UTF-8 when that is what
// makeGoText would make (valid, no character outside the BMP), so no copy
// is made, and it is made once for every pattern that searches the string.
func (i *importedString) goText() (*goText, bool) {
	if i.text == nil && !i.noGoText {
		if t, ok := goTextOfUTF8(i.s, i.u); ok {
			i.text = t
		} else if t, ok = makeGoText(i.u); ok {
			i.text = t
		} else {
			i.noGoText = true
		}
	}
	return i.text, i.text != nil
}

// goTextOfUTF8 is makeGoText for u given as its UTF-8 text s, or false
// when s is not valid UTF-8 or has a character outside the BMP.
func goTextOfUTF8(s string, u unicodeString) (*goText, bool) {
	t := &goText{src: s, from: u}
	n := 0 // UTF-16 index
	for b := 0; b < len(s); n++ {
		if s[b] < utf8.RuneSelf {
			b++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[b:])
		if r == utf8.RuneError && w == 1 || r > 0xFFFF {
			return nil, false
		}
		if r == 0x017F || r == 0x212A {
			t.folds = true
		}
		b += w
		t.marks = append(t.marks, goTextMark{b: b, u: n + 1})
	}
	return t, true
}

// isOf reports whether t is the text of u (strings do not change, so the
// same array and length are the same string).
func (t *goText) isOf(u unicodeString) bool {
	return t != nil && len(t.from) == len(u) && &t.from[0] == &u[0]
}

// goTextCache is a runtime's last few UTF-8 texts made for searches
// (FlowScript patch 76), shared by all its patterns, so that a text is
// converted once however many patterns search it: before, a regex literal
// in a helper called 300 times over a 60 KB accented text converted it
// 300 times (200 ms, Node 4 ms). The texts are held weakly: a text no
// pattern holds any more is collected with the next GC, as it was before,
// and never counts against a script's memory.
type goTextCache struct {
	texts [4]weak.Pointer[goText]
	next  int
	// runes are the last texts regexp2 searched, as its runes, for the
	// same reason (a pattern regexp2 runs converted the text to runes
	// again in each new pattern), and points the last it searched with the
	// u flag, as code points.
	runes      [4]weak.Pointer[runeText]
	nextRunes  int
	points     [4]weak.Pointer[pointText]
	nextPoints int
}

// textKey names a string's characters: where they are and how many.
type textKey struct {
	data  unsafe.Pointer // the first byte or unit of the text, which holds it
	n     int            // its length in bytes (ASCII) or units (UTF-16, with the first)
	ascii bool
}

func keyOf(s String) textKey {
	a, u := devirtualizeString(s)
	if u == nil {
		return textKey{data: unsafe.Pointer(unsafe.StringData(string(a))), n: len(a), ascii: true}
	}
	return unicodeKey(u)
}

func unicodeKey(u unicodeString) textKey {
	return textKey{data: unsafe.Pointer(unsafe.SliceData(u)), n: len(u)}
}

// within reports whether k's characters are some of of's, shared with it
// (Go's substrings of an ASCII string, patch 85's of a UTF-16 one), and the
// index of of's characters where they start (FlowScript patch 149). Go's
// allocations do not overlap, so an address in of's array is of's.
func (k textKey) within(of textKey) (int, bool) {
	if k.ascii != of.ascii || k.data == nil || of.data == nil {
		return 0, false
	}
	size := uintptr(2)
	if k.ascii {
		size = 1
	}
	p, base := uintptr(k.data), uintptr(of.data)
	if p < base {
		return 0, false
	}
	i := int((p - base) / size)
	if i+k.n > of.n {
		return 0, false
	}
	return i, true // a UTF-16 text's first element is the one before its characters
}

// length is the number of characters k names.
func (k textKey) length() int {
	if k.ascii {
		return k.n
	}
	return k.n - 1
}

// runeText is a text as regexp2 searches it.
type runeText struct {
	textKey
	runes []rune
}

// pointText is a text as regexp2 searches it with the u flag
// (buildPosMap's): its code points, and their UTF-16 indexes in the text
// posMap was made for, where this one starts at base.
type pointText struct {
	textKey
	runes  []rune
	posMap []int
	base   int
}

// runesMinLength is the length from which runesOf and pointsOf cache a
// text: below it a conversion costs less than a weak pointer.
const runesMinLength = 256

// runesOf returns s's runes as regexp2 searches them (utf16Runes), the
// cached ones when s, or a string whose characters s shares, was searched
// lately; last is the caller's last text, which it holds. The runes are
// never written.
func (c *goTextCache) runesOf(s String, last **runeText) []rune {
	if c == nil || s.Length() < runesMinLength {
		return s.utf16Runes()
	}
	key := keyOf(s)
	t, made := findText(c.runes[:], *last, key, func(from *runeText, k int) *runeText {
		n := key.length()
		return &runeText{textKey: key, runes: from.runes[k : k+n : k+n]}
	})
	if t == nil {
		t, made = &runeText{textKey: key, runes: s.utf16Runes()}, true
	}
	if made {
		c.runes[c.nextRunes] = weak.Make(t)
		c.nextRunes = (c.nextRunes + 1) % len(c.runes)
	}
	*last = held(t, key)
	return t.runes
}

// pointsOf is buildPosMap for s, with the cached code points when s, or a
// string whose characters s shares, was searched lately; last is the
// caller's last text, which it holds. posMap's indexes are base more than
// s's. The runes and posMap are never written.
func (c *goTextCache) pointsOf(s String, start int, last **pointText) (posMap []int, base int, runes []rune, mappedStart int, splitPair bool) {
	if c == nil || s.Length() < runesMinLength {
		posMap, runes, mappedStart, splitPair = buildPosMap(&lenientUtf16Decoder{utf16Reader: s.utf16Reader()}, s.Length(), start)
		return
	}
	key := keyOf(s)
	t, made := findText(c.points[:], *last, key, func(from *pointText, k int) *pointText {
		// A pair split at either end reads as a lone surrogate in s.
		r0, split0 := posMapReverseLookup(from.posMap, from.base+k)
		r1, split1 := posMapReverseLookup(from.posMap, from.base+k+key.length())
		if split0 || split1 {
			return nil
		}
		return &pointText{textKey: key, runes: from.runes[r0:r1:r1], posMap: from.posMap[r0 : r1+1 : r1+1], base: from.base + k}
	})
	if t == nil {
		t, made = &pointText{textKey: key}, true
		t.posMap, t.runes, _, _ = buildPosMap(&lenientUtf16Decoder{utf16Reader: s.utf16Reader()}, s.Length(), 0)
	}
	if made {
		c.points[c.nextPoints] = weak.Make(t)
		c.nextPoints = (c.nextPoints + 1) % len(c.points)
	}
	*last = held(t, key)
	mappedStart, splitPair = posMapReverseLookup(t.posMap, start+t.base)
	return t.posMap, t.base, t.runes, mappedStart, splitPair
}

// maxHeldLength is the longest text a pattern holds as its last
// (runesOf, pointsOf): 256 Ki characters, 1 MB of runes or 3 MB of code
// points and their indexes. A longer one is held by the weak cache alone,
// so that a pattern kept by the script does not keep the text after the
// script let it go; a collection then makes it again at its next search.
const maxHeldLength = 1 << 18

// held is t when a pattern may hold it as its last (maxHeldLength), nil
// otherwise.
func held[P any](t *P, key textKey) *P {
	if key.length() > maxHeldLength {
		return nil
	}
	return t
}

// keyed is a cached text (goText, runeText, pointText).
type keyed[T any] interface {
	*T
	key() textKey
}

func (t *runeText) key() textKey  { return t.textKey }
func (t *pointText) key() textKey { return t.textKey }
func (t *goText) key() textKey    { return unicodeKey(t.from) } // a UTF-16 text's (ASCII ones are not cached)

// findText returns the text of key among last and cached, or one sub
// makes (made) of one whose characters key's are some of (within), or nil.
func findText[T any, P keyed[T]](cached []weak.Pointer[T], last P, key textKey, sub func(from P, k int) P) (t P, made bool) {
	if last != nil && last.key() == key {
		return last, false
	}
	for i := range cached {
		if t := P(cached[i].Value()); t != nil && t.key() == key {
			return t, false
		}
	}
	for i := -1; i < len(cached); i++ {
		from := last
		if i >= 0 {
			from = P(cached[i].Value())
		}
		if from == nil {
			continue
		}
		if k, ok := key.within(from.key()); ok {
			if t := sub(from, k); t != nil {
				return t, true
			}
		}
	}
	return nil, false
}

// find returns the cached text of u, or one made from the cached text or
// last (a pattern's last) whose characters u shares (sub), cached in its
// turn; or nil. A nil cache (a pattern made outside a runtime) finds
// nothing.
func (c *goTextCache) find(u unicodeString, last *goText) *goText {
	if c == nil {
		return nil
	}
	t, made := findText(c.texts[:], last, unicodeKey(u), func(from *goText, k int) *goText { return from.sub(u, k) })
	if made {
		c.add(t)
	}
	return t
}

// noGoText is the text of u, which holds a surrogate (makeGoText refused
// it), with its first and last surrogates.
func noGoText(u unicodeString) *goText {
	units := u[1:]
	t := &goText{from: u, none: true}
	t.surrogates[0] = slices.IndexFunc(units, func(c uint16) bool { return utf16.IsSurrogate(rune(c)) })
	for i := len(units) - 1; i >= 0; i-- {
		if utf16.IsSurrogate(rune(units[i])) {
			t.surrogates[1] = i
			break
		}
	}
	return t
}

// add caches t in place of the oldest text.
func (c *goTextCache) add(t *goText) {
	if c == nil {
		return
	}
	c.texts[c.next] = weak.Make(t)
	c.next = (c.next + 1) % len(c.texts)
}

// goTextOf returns the text Go's regexp may search for s, or nil when the
// search must go where upstream sent it (see the file's comment). The last
// UTF-8 text made is kept for the next search of the same string, as an exec
// loop makes.
func (p *regexpPattern) goTextOf(s String, start int) *goText {
	if p.regexpWrapper == nil {
		return nil
	}
	p.fast.init(p)
	if p.ignoreCase && !p.fast.asciiSource {
		return nil
	}
	a, u := devirtualizeString(s)
	if p.fast.narrow && p.fast.prefix == nil && (u != nil || start != 0) {
		return nil
	}
	if u == nil {
		return &goText{src: string(a)}
	}
	t := p.lastText
	if !t.isOf(u) {
		if t = p.texts.find(u, p.lastText); t == nil {
			var ok bool
			if imp, isImported := s.(*importedString); isImported {
				t, ok = imp.goText()
			} else {
				t, ok = makeGoText(u)
			}
			if !ok {
				t = noGoText(u)
			}
			p.texts.add(t)
		}
		p.lastText = t
	}
	if t.none || p.ignoreCase && t.folds {
		return nil
	}
	return t
}

// foldsAcrossASCII reports whether Go's case folding could answer a search
// of s by p otherwise than ECMAScript's Canonicalize (FlowScript patch
// 135): p has the i flag without u, and s or p's source holds U+017F (ſ)
// or U+212A (Kelvin sign), which Go's folding joins to s and k. Such a
// search goes to regexp2 (its patch 2 keeps ASCII apart), also from the
// start of the string, where upstream kept Go's regexp: /s/i.test('ſ')
// was true, and 'ſ'.replace(/[a-z]/i, '-') gave '-' (V8: false, 'ſ').
func (p *regexpPattern) foldsAcrossASCII(s String) bool {
	if !p.ignoreCase || p.unicode {
		return false
	}
	if strings.ContainsAny(p.src, "\u017f\u212a") || strings.Contains(p.src, "\\u017") || strings.Contains(p.src, "\\u212") {
		return true
	}
	_, u := devirtualizeString(s)
	for _, c := range u {
		if c == 0x017F || c == 0x212A {
			return true
		}
	}
	return false
}

// goFind returns the leftmost match at byte offset pos or after it, with
// the text before pos in view, as Go's regexp gives it, or nil.
func (p *regexpPattern) goFind(s string, pos int) []int {
	if lit := p.fast.literal; lit != "" {
		i := strings.Index(s[pos:], lit)
		if i < 0 {
			return nil
		}
		return []int{pos + i, pos + i + len(lit)}
	}
	if run := p.fast.run; run != nil {
		return run.find(s, pos)
	}
	if lead := p.fast.lead; lead != nil {
		return lead.find(s, pos)
	}
	if prefix := p.fast.prefix; prefix != nil {
		m, resume := prefix.find(s, pos)
		if resume < 0 {
			return m
		}
		pos = resume // the tries read too much: one search from there
	}
	return p.goFindRegexp(s, pos)
}

// goFindRegexp is goFind by Go's regexp alone, without the fast paths.
func (p *regexpPattern) goFindRegexp(s string, pos int) []int {
	re := (*regexp.Regexp)(p.regexpWrapper)
	if pos == 0 {
		return re.FindStringSubmatchIndex(s)
	}
	from := pos
	if !p.fast.fromRest {
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		from = pos - w
	}
	m := re.FindStringSubmatchIndex(s[from:])
	if m == nil {
		return nil
	}
	if from < pos && m[0] == 0 {
		// A match at the character before pos: search again with it as context.
		p.fast.ctxOnce.Do(func() {
			p.fast.ctx = regexp.MustCompile(`^(?s:.)(?s:.*?)(` + re.String() + `)`)
		})
		m = p.fast.ctx.FindStringSubmatchIndex(s[from:])
		if m == nil {
			return nil
		}
		m = m[2:]
	}
	for i, x := range m {
		if x >= 0 {
			m[i] = x + from
		}
	}
	return m
}

func (p *regexpPattern) goResult(t *goText, m []int) regexpResult {
	if len(t.marks) > 0 {
		for i, x := range m {
			if x >= 0 {
				m[i] = t.index(x)
			}
		}
	}
	return regexpResult{indexes: m, groups: (*regexp.Regexp)(p.regexpWrapper).SubexpNames()}
}

// goFindAt is one RegExpBuiltinExec from UTF-16 index start.
func (p *regexpPattern) goFindAt(t *goText, start int) regexpResult {
	m := p.goFind(t.src, t.offset(start))
	if m == nil {
		return regexpResult{}
	}
	return p.goResult(t, m)
}

// eachSubmatchIndex calls f with each match findAllSubmatchIndex would
// return, as it finds them, and reports true; or reports false, having
// called nothing, where that search takes a path that only collects
// (regexp2's, or a UTF-16 text Go's regexp cannot read). It is
// eachMatchIndex's first step. A global replace
// with a replacement string keeps no match this way (FlowScript patch 96):
// collected, 160,000 accents stripped from a 500 KB text held 20 MB of
// matches at once.
func (p *regexpPattern) eachSubmatchIndex(s String, start, limit int, sticky bool, f func(regexpResult)) bool {
	if p.regexpWrapper == nil {
		return false
	}
	if t := p.goTextOf(s, start); t != nil {
		eachMatch(t.src, t.offset(start), limit, sticky, p.goFind, func(m []int) {
			f(p.goResult(t, m))
		})
		return true
	}
	if p.fast.narrow || start != 0 {
		return false
	}
	a, u := devirtualizeString(s)
	if u != nil {
		return false
	}
	names := (*regexp.Regexp)(p.regexpWrapper).SubexpNames()
	eachMatch(string(a), 0, limit, sticky, p.goFindRegexp, func(m []int) {
		f(regexpResult{indexes: m, groups: names})
	})
	return true
}

// eachMatch calls f with each match find gives in s from byte offset pos,
// limit of them at most (-1: all), as a global search takes them: the
// next search starts where a match ended, or a character further after an
// empty match (so an empty match right where a match ended is kept, as
// ECMAScript keeps it), and with sticky each match must start there.
func eachMatch(s string, pos, limit int, sticky bool, find func(s string, pos int) []int, f func(m []int)) {
	for limit != 0 && pos <= len(s) {
		m := find(s, pos)
		if m == nil || sticky && m[0] != pos {
			return
		}
		end, empty := m[1], m[0] == m[1]
		f(m) // which may turn m into UTF-16 indexes
		limit--
		if !empty {
			pos = end
			continue
		}
		if end == len(s) {
			return
		}
		_, w := utf8.DecodeRuneInString(s[end:])
		pos = end + w
	}
}

// splitMatches returns the matches split cuts s at: those of a global
// search but for an empty match where the previous one ended.
func (p *regexpPattern) splitMatches(s String) []regexpResult {
	all := p.findAllSubmatchIndex(s, 0, -1, false)
	kept, prevEnd := all[:0], -1
	for _, m := range all {
		if m.indexes[0] != m.indexes[1] || m.indexes[0] != prevEnd {
			kept = append(kept, m)
		}
		prevEnd = m.indexes[1]
	}
	return kept
}

// classRun matches a pattern that is one character class, alone or under a
// greedy +, * or ?.
type classRun struct {
	ascii    [2]uint64 // the class's ASCII characters
	latin1   [2]uint64 // its characters from U+0080 to U+00FF, bit c-128
	ranges   []rune    // its characters outside ASCII, as pairs lo, hi
	min, max int       // how many characters it takes: 1,1 (alone), 1,-1 (+), 0,-1 (*), 0,1 (?)
}

func newClassRun(re *syntax.Regexp) *classRun {
	r := &classRun{min: 1, max: 1}
	if re.Op == syntax.OpPlus || re.Op == syntax.OpStar || re.Op == syntax.OpQuest {
		if re.Flags&syntax.NonGreedy != 0 {
			return nil
		}
		switch re.Op {
		case syntax.OpPlus:
			r.max = -1
		case syntax.OpStar:
			r.min, r.max = 0, -1
		case syntax.OpQuest:
			r.min = 0
		}
		re = re.Sub[0]
	}
	class, ok := charClass(re)
	if !ok {
		return nil
	}
	addASCII(&r.ascii, class)
	for i := 0; i < len(class); i += 2 {
		if lo, hi := class[i], class[i+1]; hi >= utf8.RuneSelf {
			lo = max(lo, utf8.RuneSelf)
			r.ranges = append(r.ranges, lo, hi)
			for c := lo; c <= hi && c <= 0xFF; c++ {
				r.latin1[(c-0x80)>>6] |= 1 << ((c - 0x80) & 63)
			}
		}
	}
	return r
}

// addASCII sets in set the ASCII characters of class (sorted pairs lo, hi)
// and reports whether class also has characters outside ASCII.
func addASCII(set *[2]uint64, class []rune) (nonASCII bool) {
	for i := 0; i < len(class); i += 2 {
		lo, hi := class[i], class[i+1]
		for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
			set[c>>6] |= 1 << (c & 63)
		}
		nonASCII = nonASCII || hi >= utf8.RuneSelf
	}
	return nonASCII
}

// charClass returns the characters one character of re matches, as sorted
// pairs lo, hi, or false when re is not a single character.
func charClass(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune, true
	case syntax.OpAnyChar:
		return []rune{0, unicode.MaxRune}, true
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, true
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return nil, false
		}
		c := re.Rune[0]
		if re.Flags&syntax.FoldCase == 0 {
			return []rune{c, c}, true
		}
		orbit := []rune{c}
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
		slices.Sort(orbit)
		class := make([]rune, 0, 2*len(orbit))
		for _, f := range orbit {
			class = append(class, f, f)
		}
		return class, true
	}
	return nil, false
}

func (r *classRun) has(c rune) bool {
	if c < utf8.RuneSelf {
		return r.ascii[c>>6]&(1<<(c&63)) != 0
	}
	if c <= 0xFF {
		c -= 0x80
		return r.latin1[c>>6]&(1<<(c&63)) != 0
	}
	i := sort.Search(len(r.ranges)/2, func(i int) bool { return r.ranges[2*i+1] >= c })
	return i < len(r.ranges)/2 && r.ranges[2*i] <= c
}

// next returns the character at byte offset i of s and its width, reading
// ASCII without decoding.
func nextRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// find is goFind for a class run: the leftmost match at pos or after it.
func (r *classRun) find(s string, pos int) []int {
	start := pos
	if r.min > 0 {
		for start < len(s) {
			c, w := nextRune(s, start)
			if r.has(c) {
				break
			}
			start += w
		}
		if start >= len(s) {
			return nil
		}
	}
	end, n := start, 0
	for end < len(s) && (r.max < 0 || n < r.max) {
		c, w := nextRune(s, end)
		if !r.has(c) {
			break
		}
		end += w
		n++
	}
	return []int{start, end}
}

// leadRun matches a pattern C+R: a character class C under + (greedy or
// not, captured or not) followed by a rest R that takes at least one
// character, cannot start with a character of C, and reads no character
// before its start (no ^, \b or \B). A match can only start in a run of C's
// characters, and from any position of the run its C+ must end where the run
// ends, the one place R can start; so there is a match from every position
// of the run or from none, and the leftmost starts at the run's first
// character (or at the search's start, inside a run). find runs R once per
// run whose next character can start R, where Go's regexp tries a match at
// every position of the text.
type leadRun struct {
	class    *classRun
	captured bool           // C+ is capture group 1
	first    firstSet       // the characters R can start with
	rest     *regexp.Regexp // ^(?:R), its groups numbered from 1
	groups   int            // the whole pattern's capture groups
}

func newLeadRun(re *syntax.Regexp, groups int) *leadRun {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	head, captured := re.Sub[0], false
	if head.Op == syntax.OpCapture {
		head, captured = head.Sub[0], true
	}
	if head.Op != syntax.OpPlus {
		return nil
	}
	greedy := *head // lazy or greedy, C+ takes the whole run (see above)
	greedy.Flags &^= syntax.NonGreedy
	class := newClassRun(&greedy)
	if class == nil {
		return nil
	}
	rest := re.Sub[1]
	if len(re.Sub) > 2 {
		rest = &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[1:]}
	}
	first, nonEmpty := firstChars(rest)
	if !nonEmpty || needsContext(rest) || !class.disjoint(first) {
		return nil
	}
	rx, err := regexp.Compile(`^(?:` + rest.String() + `)`)
	if err != nil {
		return nil
	}
	return &leadRun{class: class, captured: captured, first: first, rest: rx, groups: groups}
}

// find is goFind for a leadRun: the leftmost match at pos or after it.
func (l *leadRun) find(s string, pos int) []int {
	for i := pos; i < len(s); {
		c, w := nextRune(s, i)
		if !l.class.has(c) {
			i += w
			continue
		}
		start := i
		for i += w; i < len(s); i += w {
			if c, w = nextRune(s, i); !l.class.has(c) {
				break
			}
		}
		if i == len(s) {
			return nil // R takes a character
		}
		// c, at i, ends the run and is not in C: the loop steps over it
		// if R does not match here.
		if !l.first.has(c) {
			continue
		}
		m := l.rest.FindStringSubmatchIndex(s[i:])
		if m == nil {
			continue
		}
		out := make([]int, 2*(l.groups+1))
		for k := range out {
			out[k] = -1
		}
		out[0], out[1] = start, i+m[1]
		shift := 0 // the whole pattern's number of R's first group, minus 1
		if l.captured {
			out[2], out[3] = start, i
			shift = 1
		}
		for k := 2; k < len(m); k += 2 {
			if m[k] >= 0 {
				out[k+2*shift], out[k+1+2*shift] = m[k]+i, m[k+1]+i
			}
		}
		return out
	}
	return nil
}

// disjoint reports whether no character of f is in r's class.
func (r *classRun) disjoint(f firstSet) bool {
	if r.ascii[0]&f.ascii[0] != 0 || r.ascii[1]&f.ascii[1] != 0 {
		return false
	}
	return !f.nonASCII || len(r.ranges) == 0
}

// firstSet is the characters that can start a match.
type firstSet struct {
	ascii    [2]uint64
	nonASCII bool
}

func (f *firstSet) narrow() bool {
	n := 0
	for _, w := range f.ascii {
		n += bits.OnesCount64(w)
	}
	return n <= 16 && !f.nonASCII
}

// has reports whether c may start a match: exactly for ASCII, any other
// character when f has one outside ASCII.
func (f *firstSet) has(c rune) bool {
	if c < utf8.RuneSelf {
		return f.ascii[c>>6]&(1<<(c&63)) != 0
	}
	return f.nonASCII
}

func (f *firstSet) add(class []rune) {
	if addASCII(&f.ascii, class) {
		f.nonASCII = true
	}
}

// firstChars returns the characters that can start a match of re, or false
// when re can match the empty string.
func firstChars(re *syntax.Regexp) (firstSet, bool) {
	var f firstSet
	nonEmpty := addFirst(&f, re)
	return f, nonEmpty
}

// addFirst adds to f the characters that can start a match of re and
// reports whether every match of re takes at least one character.
func addFirst(f *firstSet, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if re.Op == syntax.OpLiteral && len(re.Rune) > 1 {
			return addFirst(f, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[:1]})
		}
		class, _ := charClass(re)
		f.add(class)
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return addFirst(f, re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		addFirst(f, re.Sub[0])
		return false
	case syntax.OpRepeat:
		nonEmpty := addFirst(f, re.Sub[0])
		return nonEmpty && re.Min > 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if addFirst(f, sub) {
				return true
			}
		}
		return false
	case syntax.OpAlternate:
		nonEmpty := true
		for _, sub := range re.Sub {
			if !addFirst(f, sub) {
				nonEmpty = false
			}
		}
		return nonEmpty
	}
	// Empty matches and assertions take no character.
	return false
}

// Latin-1 case mapping (FlowScript patch 12). toLowerCase and toUpperCase of
// a non-ASCII string went through golang.org/x/text/cases and two
// conversions; a string whose characters are all in Latin-1 (U+0000–U+00FF),
// as most text in Portuguese and Spanish is, maps one character to one here.
// ß (U+00DF), which upper-cases to two characters, is left to cases.

// latin1Lower returns the lower case of a Latin-1 character.
func latin1Lower(c uint16) uint16 {
	if c >= 'A' && c <= 'Z' || c >= 0xC0 && c <= 0xDE && c != 0xD7 {
		return c + 0x20
	}
	return c
}

// latin1Upper returns the upper case of a Latin-1 character other than ß.
func latin1Upper(c uint16) uint16 {
	switch {
	case c >= 'a' && c <= 'z' || c >= 0xE0 && c <= 0xFE && c != 0xF7:
		return c - 0x20
	case c == 0xB5:
		return 0x039C
	case c == 0xFF:
		return 0x0178
	}
	return c
}

// latin1Case maps the characters of s (UTF-16, or UTF-8 when s16 is nil) with
// f, or returns false when one is outside Latin-1 or is ß.
func latin1Case(s16 unicodeString, s8 string, f func(uint16) uint16) (String, bool) {
	var out unicodeString
	if s16 != nil {
		out = make(unicodeString, len(s16))
		out[0] = unistring.BOM
		for i, c := range s16[1:] {
			if c > 0xFF || c == 0xDF {
				return nil, false
			}
			out[i+1] = f(c)
		}
		return out, true
	}
	out = make(unicodeString, 1, len(s8)+1)
	out[0] = unistring.BOM
	ascii := true
	for _, r := range s8 {
		if r > 0xFF || r == 0xDF {
			return nil, false
		}
		ascii = ascii && r < utf8.RuneSelf
		out = append(out, f(uint16(r)))
	}
	if ascii {
		return nil, false
	}
	return out, true
}

// hasFlags reports whether flags is a valid flags string naming exactly the
// pattern's flags.
func (p *regexpPattern) hasFlags(flags string) bool {
	var seen [6]bool
	for i := 0; i < len(flags); i++ {
		n := strings.IndexByte("gimsyu", flags[i])
		if n < 0 || seen[n] {
			return false
		}
		seen[n] = true
	}
	return seen == [6]bool{p.global, p.ignoreCase, p.multiline, p.dotAll, p.sticky, p.unicode}
}

// prefixRun searches a pattern whose matches all start with two or more
// characters of known, narrow sets, one set per position, before anything
// the search cannot tell in advance: \d{3}\.\d{3}, (?:pedido|order)\s* with
// i, \b(\d{2})\/ (FlowScript patch 23). Such a pattern was narrow (see
// goSearch): on any text but ASCII from its start it stayed on regexp2,
// which skips to a character that can start a match and runs its
// backtracking interpreter there, however unlikely the next characters; in
// Portuguese text that was every "o" for (?:pedido|order). find checks every
// position of the prefix with a bit test per character, and tries the
// pattern (anchored, on Go's regexp) only where they all hold.
type prefixRun struct {
	sets  []firstSet // ASCII only; sets[j] holds the match's character j
	first [256]bool  // sets[0] by byte, for the scan to a try's start
	// one is sets[0]'s only character, when it has one (0 otherwise): the
	// scan jumps to it with strings.IndexByte.
	one byte
	// at is ^(?:pattern); ctx is ^(?s:.)(?:pattern), for a pattern that
	// reads the character before its match (^ with m, \b, \B): it is read
	// as that context. Both are compiled for the first try: a pattern made
	// at run time (new RegExp(word)) whose prefix never holds costs no
	// compile.
	expr    string
	context bool
	compile sync.Once
	at, ctx *regexp.Regexp
	// span is the most bytes a match can take (4 per character), or -1 when
	// it has no bound: a try reads that and one character more (what $, \b
	// and \B after the match look at). Go's regexp clears a bitmap as long
	// as the text it is given on every search, so a try on the whole rest
	// of the text cost as much as reading it.
	span int
}

// prefixMax bounds the positions a prefixRun checks, and prefixBudget the
// steps spent finding them: past either the prefix is cut where it is.
const (
	prefixMax    = 16
	prefixBudget = 4096
)

// newPrefixRun returns the prefixRun of a pattern (simplified) whose
// prefix has at least two positions and starts with a narrow set, or nil.
// folded says that the search never sees U+017F or U+212A (the i flag: see
// goTextOf), so they are left out of the sets case folding adds them to.
func newPrefixRun(re *syntax.Regexp, expr string, context, folded bool) *prefixRun {
	budget := prefixBudget
	sets := headSets([]*syntax.Regexp{re}, prefixMax, folded, &budget)
	if budget < 0 {
		return nil
	}
	for i := range sets {
		if sets[i].nonASCII {
			sets = sets[:i]
			break
		}
	}
	if len(sets) < 2 || !sets[0].narrow() {
		return nil
	}
	q := &prefixRun{sets: sets, expr: expr, context: context, span: -1}
	members := 0
	for c := range utf8.RuneSelf {
		if q.first[c] = sets[0].has(rune(c)); q.first[c] {
			q.one = byte(c)
			members++
		}
	}
	if members != 1 {
		q.one = 0
	}
	if n := maxChars(re); n >= 0 && n <= 1<<16 {
		q.span = utf8.UTFMax * n
	}
	return q
}

// tries returns the anchored regexps of the tries, compiled on first need,
// or false if they do not compile (then the search goes on as before).
func (q *prefixRun) tries() (at, ctx *regexp.Regexp, ok bool) {
	q.compile.Do(func() {
		a, err := regexp.Compile(`^(?:` + q.expr + `)`)
		if err != nil {
			return
		}
		if q.context {
			if q.ctx, err = regexp.Compile(`^(?s:.)(?:` + q.expr + `)`); err != nil {
				return
			}
		}
		q.at = a
	})
	return q.at, q.ctx, q.at != nil
}

// headSets returns, for the concatenation of res, the set of characters
// each match can have at each position, for as many positions (up to k) as
// every match is sure to take before the first the pattern cannot tell in
// advance (a * or a + past its first repeat, the end); nil for none.
func headSets(res []*syntax.Regexp, k int, folded bool, budget *int) []firstSet {
	if *budget--; *budget < 0 || k == 0 || len(res) == 0 {
		return nil
	}
	re, rest := res[0], res[1:]
	with := func(head ...*syntax.Regexp) []*syntax.Regexp { // a new slice: head may be a node's Sub
		return append(append(make([]*syntax.Regexp, 0, len(head)+len(rest)), head...), rest...)
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return headSets(rest, k, folded, budget) // they take no character
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		one := re
		if re.Op == syntax.OpLiteral && len(re.Rune) > 1 {
			one = &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[:1]}
			rest = with(&syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[1:]})
		}
		class, ok := charClass(one)
		if !ok {
			return nil
		}
		var f firstSet
		f.add(class)
		if folded && f.nonASCII {
			f.nonASCII = hasOtherThanFolds(class)
		}
		return append([]firstSet{f}, headSets(rest, k-1, folded, budget)...)
	case syntax.OpCapture:
		return headSets(with(re.Sub[0]), k, folded, budget)
	case syntax.OpConcat:
		return headSets(with(re.Sub...), k, folded, budget)
	case syntax.OpAlternate:
		var sets []firstSet
		for i, sub := range re.Sub {
			alt := headSets(with(sub), k, folded, budget)
			if i == 0 {
				sets = alt
			} else {
				sets = unionSets(sets, alt)
			}
		}
		return sets
	case syntax.OpQuest:
		return unionSets(headSets(with(re.Sub[0]), k, folded, budget), headSets(rest, k, folded, budget))
	case syntax.OpPlus:
		// One repeat is sure; what follows it is not.
		return headSets([]*syntax.Regexp{re.Sub[0]}, k, folded, budget)
	case syntax.OpRepeat:
		if re.Min == 0 || re.Min > prefixMax {
			return nil
		}
		head := make([]*syntax.Regexp, re.Min)
		for i := range head {
			head[i] = re.Sub[0]
		}
		if re.Max != re.Min {
			return headSets(head, k, folded, budget)
		}
		return headSets(with(head...), k, folded, budget)
	}
	return nil // *, and anything else: nothing sure
}

// unionSets is the positions two alternatives share, each with both
// alternatives' characters.
func unionSets(a, b []firstSet) []firstSet {
	n := min(len(a), len(b))
	out := make([]firstSet, n)
	for i := range n {
		out[i] = firstSet{
			ascii:    [2]uint64{a[i].ascii[0] | b[i].ascii[0], a[i].ascii[1] | b[i].ascii[1]},
			nonASCII: a[i].nonASCII || b[i].nonASCII,
		}
	}
	return out
}

// hasOtherThanFolds reports whether class (sorted pairs lo, hi) has a
// character outside ASCII other than U+017F and U+212A.
func hasOtherThanFolds(class []rune) bool {
	for i := 0; i < len(class); i += 2 {
		lo, hi := max(class[i], utf8.RuneSelf), class[i+1]
		n := int(hi - lo + 1)
		for _, c := range [...]rune{0x17F, 0x212A} {
			if lo <= c && c <= hi {
				n--
			}
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// find is goFind for a prefixRun: the leftmost match at byte offset pos or
// after it, with the character before each try in view. A pattern with no
// bound on its length (\d{2,}x) can make every try read the rest of the
// text; once the tries have been given four times the text after pos (and
// 64 KB), find stops and returns resume, the offset from which the caller
// searches as before, one pass of Go's regexp (no match starts before it).
// Otherwise resume is -1.
func (q *prefixRun) find(s string, pos int) (m []int, resume int) {
	n := len(q.sets)
	budget := 4*(len(s)-pos) + 64<<10
next:
	for i := pos; i+n <= len(s); i++ {
		if q.one != 0 {
			j := strings.IndexByte(s[i:len(s)-n+1], q.one)
			if j < 0 {
				return nil, -1
			}
			i += j
		}
		for !q.first[s[i]] {
			if i++; i+n > len(s) {
				return nil, -1
			}
		}
		// Every set is ASCII: a byte of a longer character is in none, so a
		// try starts on a character and each position is one byte.
		for j := 1; j < n; j++ {
			if !q.sets[j].has(rune(s[i+j])) {
				continue next
			}
		}
		at, ctx, ok := q.tries()
		if !ok {
			return nil, i
		}
		from, re := i, at
		if ctx != nil && i > 0 {
			_, w := utf8.DecodeLastRuneInString(s[:i])
			from, re = i-w, ctx
		}
		end := len(s)
		if q.span >= 0 && i+q.span+utf8.UTFMax < end {
			end = i + q.span + utf8.UTFMax
			for end < len(s) && !utf8.RuneStart(s[end]) {
				end++
			}
		}
		if budget -= end - from; budget < 0 {
			return nil, i
		}
		m := re.FindStringSubmatchIndex(s[from:end])
		if m == nil {
			continue
		}
		for k, x := range m {
			if x >= 0 {
				m[k] = x + from
			}
		}
		m[0] = i
		return m, -1
	}
	return nil, -1
}

// maxChars returns the most characters a match of re can take, or -1 when
// there is no bound.
func maxChars(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxChars(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			n := maxChars(sub)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n := maxChars(re.Sub[0])
		switch {
		case n == 0:
			return 0
		case n < 0 || re.Op != syntax.OpRepeat || re.Max < 0 || n > 1<<20/max(re.Max, 1):
			return -1 // no bound, or none worth keeping
		}
		return n * re.Max
	}
	return 0 // empty matches and assertions take no character
}

// namesASCIIFolds reports whether a pattern in Go's syntax names U+017F (ſ)
// or U+212A (Kelvin sign), alone or in a class or a range ([\u00C0-\u017F],
// a common "accented letters" class). Go's case folding joins them to s and
// k, so with the i flag such a pattern matched plain s and k; without the u
// flag ECMAScript's Canonicalize keeps them apart (FlowScript patch 69). A
// pattern that does not parse answers false: the compile that follows
// reports it.
func namesASCIIFolds(re2Str string) bool {
	re, err := syntax.Parse(re2Str, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(re *syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				if r == 0x17F || r == 0x212A {
					return true
				}
			}
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				lo, hi := re.Rune[i], re.Rune[i+1]
				if lo <= 0x17F && 0x17F <= hi || lo <= 0x212A && 0x212A <= hi {
					return true
				}
			}
		}
		return slices.ContainsFunc(re.Sub, walk)
	}
	return walk(re)
}
