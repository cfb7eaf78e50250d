package goja

import (
	"unicode/utf16"
	"unicode/utf8"
)

// FlowScript patch 13: reading a property of a primitive string.
//
// A property read on a string primitive (s.length, s.trim(), s[i]) goes
// through the runtime's one String wrapper object, pointed at the string each
// time. Upstream's baseObject methods got the string as its concrete type and
// stored it back into an interface, one allocation per read (16 bytes for an
// ASCII string, 24 for UTF-16), and wrote the wrapper's length property into
// its map each time. Here the VM hands over the interface it already holds,
// the map entry is written once, and s.length is read without the wrapper: a
// String object's own length is neither writable nor configurable, so
// nothing a script does can change what it reads.

// baseObjectOf is v.baseObject(r), without boxing a string again.
func (r *Runtime) baseObjectOf(v Value) *Object {
	switch v.(type) {
	case asciiString, unicodeString:
		ss := r.getStringSingleton()
		ss.value = v.(String)
		ss.setLength()
		return ss.val
	}
	return v.baseObject(r)
}

// stringLength returns the length of v when v is a string primitive.
func stringLength(v Value) (Value, bool) {
	if s, ok := v.(String); ok {
		return intToValue(int64(s.Length())), true
	}
	return nil, false
}

// FlowScript patch 77: trim, trimStart and trimEnd read the string's own
// code units. Upstream trimmed its UTF-8 copy and converted the result
// back, so a lone surrogate came out as U+FFFD (" \uD800".trim() was
// "\uFFFD") and each trim of non-ASCII text cost two conversions (4,000
// accented lines trimmed: 13 ms, Node 1).

// isTrimSpace reports whether c is ECMAScript's WhiteSpace or
// LineTerminator (parser.WhitespaceChars, all of them in the BMP).
func isTrimSpace(c uint16) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// trimString is s without the white space at its start (left) and its end
// (right); s itself when there is none.
func trimString(s String, left, right bool) String {
	a, u := devirtualizeString(s)
	n := len(a)
	at := func(i int) uint16 { return uint16(a[i]) }
	if u != nil {
		n = len(u) - 1
		at = func(i int) uint16 { return u[i+1] }
	}
	start, end := 0, n
	for left && start < end && isTrimSpace(at(start)) {
		start++
	}
	for right && end > start && isTrimSpace(at(end-1)) {
		end--
	}
	if start == 0 && end == n {
		return s
	}
	return s.Substring(start, end)
}

// FlowScript patch 82: case mapping and normalization keep lone
// surrogates. Upstream mapped the string's UTF-8 copy, in which a lone
// surrogate is U+FFFD, so an emoji cut in half by slice and then
// upper-cased (or normalized) came back with U+FFFD, and a text rejoined
// from its pieces no longer equalled the original. mapWellFormed maps the
// runs between lone surrogates and keeps those as they are, as V8 does.

// loneSurrogateAt reports whether units[i] is a surrogate outside a pair,
// and how many units the character at i takes.
func loneSurrogateAt(units []uint16, i int) (lone bool, width int) {
	c := units[i]
	switch {
	case c < 0xD800 || c > 0xDFFF:
		return false, 1
	case c <= 0xDBFF && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
		return false, 2
	}
	return true, 1
}

// hasLoneSurrogate reports whether s holds a surrogate outside a pair.
func hasLoneSurrogate(s unicodeString) bool {
	units := s[1:]
	for i := 0; i < len(units); {
		lone, w := loneSurrogateAt(units, i)
		if lone {
			return true
		}
		i += w
	}
	return false
}

// mapWellFormed is s with f applied to each run between its lone
// surrogates (given to f as UTF-8), the surrogates kept.
func mapWellFormed(s unicodeString, f func(string) String) String {
	units := s[1:]
	var b StringBuilder
	b.Grow(len(units))
	start := 0
	flush := func(end int) {
		if end > start {
			b.WriteString(f(string(utf16.Decode(units[start:end]))))
		}
	}
	for i := 0; i < len(units); {
		lone, w := loneSurrogateAt(units, i)
		if lone {
			flush(i)
			b.WriteRune(rune(units[i]))
			start = i + 1
		}
		i += w
	}
	flush(len(units))
	return b.String()
}

// hasNonASCII reports whether units holds a character past ASCII, looking
// from both ends at once (patch 85): a text consumed from either end is
// then seldom read whole at every step.
func hasNonASCII(units []uint16) bool {
	for i, j := 0, len(units)-1; i <= j; i, j = i+1, j-1 {
		if units[i] >= utf8.RuneSelf || units[j] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}
