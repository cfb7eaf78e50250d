package goja

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/dop251/goja/unistring"
)

// FlowScript patch 35: String.prototype.localeCompare(that, locales,
// options) compares by the locale's collation and the options numeric and
// sensitivity, as Intl.Collator does; upstream ignored both arguments
// (["Item 10", "Item 2"] sorted with numeric: true stayed in that order,
// and "a" equalled "A" under no sensitivity). An option this code does not
// implement is a RangeError that says so, not a silent difference.

// maxCollators bounds the collators a runtime keeps (one per locale and
// options a script uses): past it one is dropped for each new one.
const maxCollators = 16

// localeCompare compares this and that as this.localeCompare(that,
// locales, options): by their sort keys under the collator (FlowScript
// patch 153), which a runtime keeps for the strings it compared lately.
func (r *Runtime) localeCompare(this, that String, locales, options Value) int {
	c, caseLevel, numeric := r.localeCollator(locales, options)
	a, b := r.collationKey(c, numeric, this), r.collationKey(c, numeric, that)
	// Sensitivity "case": c compares base letters (accents, variants such
	// as ø and width ignored); equal strings are then told apart by the
	// case of their letters alone, lower before upper, as ICU's case level
	// does.
	if n := bytes.Compare(a.key, b.key); n != 0 || !caseLevel {
		return n
	}
	return caseOrder(a.text, b.text)
}

// collated is a string as a collator compares it: its text (NFD, U+FFFD
// last, numbers counted from one when numeric) and its sort key.
type collated struct {
	text string
	key  []byte
}

// collationKeyOf identifies a string's characters (its textKey, whose
// pointer keeps them alive while the entry is kept) under a collator.
type collationKeyOf struct {
	c       *collate.Collator
	numeric bool
	text    textKey
}

// collationEntryBytes is what an entry of collationKeys takes besides its
// key, text and string: the map's slot and the key's and text's headers.
const collationEntryBytes = 128

// maxCollationBytes bounds the sort keys and texts a runtime keeps: past it
// they are dropped at once, and made again as they are compared. It is an
// eighth of the script's memory (4 MB of 32 MB: the keys of some 15,000
// names), or 4 MB in a runtime without a ceiling; the keys are dropped too
// when the outermost sort returns (sorted), so a script keeps them only
// while it sorts, or until it has compared that much outside a sort.
func (r *Runtime) maxCollationBytes() int {
	if r.allocCeiling > 0 {
		return int(r.allocCeiling / 8)
	}
	return 4 << 20
}

// sorting counts a sort in; its deferred sorted counts it out, and the
// outermost drops the collation keys its comparisons made.
func (r *Runtime) sorting() int {
	r.sorts++
	return r.sorts
}

func (r *Runtime) sorted(depth int) {
	r.sorts = depth - 1
	if r.sorts == 0 && r.collationKeys != nil {
		r.collationKeys, r.collationBytes = nil, 0
	}
}

// collationKey is s as c compares it (see collated). A sort whose
// comparator calls localeCompare compares each string about log n times;
// upstream normalized both strings, copied them to UTF-8 and collated them
// at each comparison (10,000 names by localeCompare('pt-BR'): 980 ms, Node
// 41). Now each string's key is made once, while it is kept, and a
// comparison compares two byte strings, which orders them as the
// collator's Compare does (TestCollationKeysOrderAsCompare).
func (r *Runtime) collationKey(c *collate.Collator, numeric bool, s String) collated {
	k := collationKeyOf{c: c, numeric: numeric, text: keyOf(s)}
	if e, ok := r.collationKeys[k]; ok {
		return e
	}
	text := replacementLast(norm.NFD.String(s.String()))
	if numeric {
		text = countedFromOne(text)
	}
	if r.collationBuf == nil {
		r.collationBuf = new(collate.Buffer) // 4 KB: made once, not per key
	}
	e := collated{text: text, key: bytes.Clone(c.KeyFromString(r.collationBuf, text))}
	r.collationBuf.Reset()
	// An entry costs its key and text, the map's slot and the string it
	// keeps alive (its UTF-16 or ASCII characters): counted so, the bound
	// is what the heap holds (a review measured 4.4 times the key and text
	// bytes alone).
	size := len(e.key) + len(e.text) + collationEntryBytes + s.Length()*2
	if size > r.maxCollationBytes() {
		return e // not kept: it would take the whole room
	}
	if r.collationBytes+size > r.maxCollationBytes() || r.collationKeys == nil {
		r.collationKeys, r.collationBytes = map[collationKeyOf]collated{}, 0
	}
	r.collationKeys[k] = e
	r.collationBytes += size
	return e
}

// replacementLast writes each U+FFFD of s (a lone surrogate reaches
// localeCompare as one) as U+10FFFD (FlowScript patch 134). ICU's root
// collation gives U+FFFD a primary weight of its own above every other
// character but U+FFFF, so a name with a character lost in decoding
// ("S\uFFFDo Paulo") sorts after the others, as in V8; golang.org/x/text
// ranks it among the symbols, before digits and letters. U+10FFFD, a
// private-use code point and the last but one, has the implicit weight
// that takes that place in x/text's table (so U+FFFD and U+10FFFD compare
// equal here, where V8 puts U+FFFD after it).
func replacementLast(s string) string {
	if !strings.ContainsRune(s, utf8.RuneError) {
		return s
	}
	return strings.ReplaceAll(s, string(utf8.RuneError), "\U0010FFFD")
}

// caseOrder compares the case of a's and b's letters in turn: the first
// letter lower in one and upper in the other orders them.
func caseOrder(a, b string) int {
	next := func(s string) (upper, ok bool, rest string) {
		for i, r := range s {
			if unicode.IsLetter(r) {
				return unicode.IsUpper(r) || unicode.IsTitle(r), true, s[i+utf8.RuneLen(r):]
			}
		}
		return false, false, ""
	}
	for {
		ua, okA, restA := next(a)
		ub, okB, restB := next(b)
		if !okA || !okB {
			return 0
		}
		switch {
		case ua && !ub:
			return 1
		case !ua && ub:
			return -1
		}
		a, b = restA, restB
	}
}

// countedFromOne writes each run of ASCII digits of s as its value plus
// one (FlowScript patch 118), for a numeric collator of golang.org/x/text:
// its key of a number whose digits are all zeros ("0", "00") is ignorable,
// so "img0.png" sorted after "img2.png" and "x0y" after "x1y" (ICU: before).
// Adding one to every number keeps their order and equalities ("01" and
// "1" stay equal) and leaves no number of zeros only.
func countedFromOne(s string) string {
	if strings.IndexAny(s, "0123456789") < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); {
		if !isASCIIDigit(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIIDigit(s[j]) {
			j++
		}
		b.WriteString(plusOne(strings.TrimLeft(s[i:j], "0")))
		i = j
	}
	return b.String()
}

// plusOne is the decimal digits d (no leading zeros; "" is zero) plus one.
func plusOne(d string) string {
	n := []byte(d)
	for i := len(n) - 1; i >= 0; i-- {
		if n[i] < '9' {
			n[i]++
			return string(n)
		}
		n[i] = '0'
	}
	return "1" + string(n)
}

// localeCollator is the collator for localeCompare's locales and options;
// for the sensitivity "case" it is the locale's collator of base letters,
// and caseLevel is true (see localeCompare); numeric tells whether it
// compares numbers by their value.
func (r *Runtime) localeCollator(locales, options Value) (c *collate.Collator, caseLevel, numeric bool) {
	if (options != nil && options != _undefined) || !isString(locales) {
		return r.readCollator(locales, options)
	}
	// a.localeCompare(b, 'pt-BR') in a sort's comparator: the tag is read
	// once, not parsed at every comparison (FlowScript patch 129). Reading
	// a string runs no code of the script's, so keeping it is invisible;
	// an invalid tag throws before anything is kept.
	key := locales.String()
	if k, ok := r.taggedCollators[key]; ok {
		return k.c, false, k.numeric
	}
	c, caseLevel, numeric = r.readCollator(locales, options)
	if r.taggedCollators == nil {
		r.taggedCollators = map[string]taggedCollator{}
	}
	makeRoom(r.taggedCollators)
	r.taggedCollators[key] = taggedCollator{c, numeric}
	return c, caseLevel, numeric
}

// readCollator is localeCollator reading its arguments afresh.
func (r *Runtime) readCollator(locales, options Value) (c *collate.Collator, caseLevel, numeric bool) {
	noOptions := options == nil || options == _undefined
	tag, given := r.firstLocaleTag(locales)
	if !given && noOptions {
		return r.collator(), false, false
	}
	var opts *Object
	if !noOptions {
		opts = options.ToObject(r)
	}
	choice := func(name unistring.String, def string, allowed ...string) string {
		v := option(opts, name)
		if v == nil {
			return def
		}
		s := v.String()
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		panic(r.newError(r.getRangeError(), fmt.Sprintf("Value %s out of range for String.prototype.localeCompare options property %s", s, name)))
	}
	numericGiven := false
	if v := option(opts, "numeric"); v != nil {
		numeric, numericGiven = v.ToBoolean(), true
	}
	sensitivity := choice("sensitivity", "variant", "base", "accent", "case", "variant")
	choice("usage", "sort", "sort", "search") // the order is the same for both here
	if v := option(opts, "ignorePunctuation"); v != nil && v.ToBoolean() {
		panic(r.newError(r.getRangeError(), "localeCompare: the option ignorePunctuation is not supported in this sandbox; supported: numeric, sensitivity"))
	}
	if c := choice("caseFirst", "false", "upper", "lower", "false"); c != "false" {
		panic(r.newError(r.getRangeError(), fmt.Sprintf("localeCompare: the option caseFirst (%s) is not supported in this sandbox; supported: numeric, sensitivity", c)))
	}

	lang := language.Und
	if given {
		if l, err := language.Parse(tag); err == nil {
			// The tag's kn (numeric) counts where the options do not say;
			// the collator is made without the -u- extensions, which would
			// otherwise override the options or ask for what they refuse.
			if kn := l.TypeForKey("kn"); !numericGiven && (kn == "true" || kn == "" && strings.Contains(l.String()+"-", "-kn-")) {
				numeric = true
			}
			lang, _ = language.Compose(l.Raw())
			// golang.org/x/text keeps Norwegian's order (å after z) under
			// Nynorsk only; CLDR gives Bokmål and "no" the same rules.
			if b, _ := lang.Base(); b.String() == "nb" || b.String() == "no" {
				lang = language.Make("nn")
			}
		}
	}
	if sensitivity == "case" {
		return r.collatorOf(lang, numeric, "base"), true, numeric
	}
	return r.collatorOf(lang, numeric, sensitivity), false, numeric
}

// taggedCollator is what localeCollator answers for a locale given as a
// string and no options.
type taggedCollator struct {
	c       *collate.Collator
	numeric bool
}

// collatorOf is the collator of lang with the options; a runtime keeps
// maxCollators of them, dropping one to make room for a new one.
func (r *Runtime) collatorOf(lang language.Tag, numeric bool, sensitivity string) *collate.Collator {
	key := lang.String() + "|" + strconv.FormatBool(numeric) + "|" + sensitivity
	if c := r.collators[key]; c != nil {
		return c
	}
	var o []collate.Option
	if numeric {
		o = append(o, collate.Numeric)
	}
	switch sensitivity {
	case "base": // a = á = A
		o = append(o, collate.IgnoreCase, collate.IgnoreDiacritics)
	case "accent": // a = A, a ≠ á
		o = append(o, collate.IgnoreCase)
	}
	c := collate.New(lang, o...)
	if r.collators == nil {
		r.collators = map[string]*collate.Collator{}
	}
	makeRoom(r.collators)
	r.collators[key] = c
	return c
}

// makeRoom deletes an entry of m, any one, when it holds maxCollators, so
// that one more fits.
func makeRoom[V any](m map[string]V) {
	if len(m) < maxCollators {
		return
	}
	for k := range m {
		delete(m, k)
		return
	}
}
