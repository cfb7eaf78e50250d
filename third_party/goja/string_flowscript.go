package goja

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
