package goja

import (
	"slices"
	"unsafe"
	"weak"

	"github.com/dop251/goja/unistring"
)

// FlowScript patch 67: building a string a piece at a time with + or +=
// (or with a template literal that starts with the string so far) takes
// linear time.
//
// Upstream copies both operands into a new string at every concatenation,
// so a loop that builds an n-character string costs O(n²): a 500 KB report
// took about a second and 1.5 MB ran into a 5 s time limit, where V8 takes
// milliseconds (it concatenates into ropes).
//
// The runtime keeps the backing arrays of its last long concatenations (a
// few, the least recently extended given up first), as strings.Builder
// does, and an array's length is its frontier: every
// string made from the array is a prefix of it no longer than the
// frontier, and nothing at or below the frontier is ever written again. A
// concatenation whose left operand is the whole frontier prefix appends in
// place (Go's append grows the array by a factor when it is full); any
// other one starts a new array of the exact size. Bytes are written only
// past every string that can see the array, so each string stays immutable,
// and the array of an earlier runtime or an abandoned one is never written.
// A UTF-16 string is handed out with its capacity cut to its length, so no
// other code can append into the array either.

// maxStringLength is V8's String::kMaxLength on 64-bit machines: a longer
// string is a RangeError (FlowScript patch 71), thrown before anything is
// allocated, where the engine ran out of memory or Go panicked making it.
const maxStringLength = 1<<29 - 24

// checkStringLength throws V8's RangeError for a string of n characters
// past maxStringLength, and ends the run for one over the allocation
// ceiling (patch 93). wide is a string stored in UTF-16, two bytes a
// character: counted by characters, non-ASCII text could reach twice the
// ceiling and be stopped only by the embedder's memory limit.
func (r *Runtime) checkStringLength(n int64, wide bool) {
	if n > r.stringCeiling || wide && 2*n > r.stringCeiling {
		if n > maxStringLength {
			panic(r.invalidStringLength())
		}
		if wide {
			r.checkAllocation(2 * n)
			return
		}
		r.checkAllocation(n)
	}
}

// isWide reports whether s is stored in UTF-16.
func isWide(s String) bool {
	_, u := devirtualizeString(s)
	return u != nil
}

// invalidStringLength is V8's RangeError for a string past maxStringLength.
func (r *Runtime) invalidStringLength() Value {
	return r.newError(r.getRangeError(), "Invalid string length")
}

// concat is left + right (patch 67), or the RangeError of a string past
// maxStringLength (patch 71).
func (r *Runtime) concat(left, right String) String {
	length := int64(left.Length()) + int64(right.Length())
	r.checkStringLength(length, isWide(left) || isWide(right))
	return r.appender.concat(left, right, int(length))
}

// appendMinLength is the length from which a concatenation goes through the
// appender: below it a plain copy costs no more.
const appendMinLength = 256

// appendArrays is how many arrays of each kind the appender keeps, the
// least recently extended given up first: a loop often builds several
// strings at once (a text and its HTML, a report and each long row of it,
// a report grouped by status or by weekday), and with too few arrays each
// takes one from another and copies it (FlowScript patch 148: with 4, a
// report of 5 groups built 40,000 lines in 3.5 s, Node 73 ms). The arrays
// are held weakly, so more slots keep no memory alive.
const appendArrays = 16

// stringAppender is the runtime's arrays of its last long concatenations.
// It holds them weakly: an array no string holds any more is collected
// (held strongly, four dropped 7 MB strings kept 28 MB of a script's 32).
type stringAppender struct {
	ascii [appendArrays]appendSlot[byte]
	utf16 [appendArrays]appendSlot[uint16] // unistring.BOM at index 0, as in a unicodeString
	// used is when each array was last extended (tick counts the
	// concatenations), ASCII arrays first.
	used [2 * appendArrays]uint64
	tick uint64
}

// appendSlot is one array of the appender, held weakly.
type appendSlot[T byte | uint16] struct {
	first      weak.Pointer[T] // the array's first element
	length, cp int             // its frontier and its capacity
}

// owns reports whether the slot's array is alive and data, of length
// elements, is its whole frontier prefix.
func (s *appendSlot[T]) owns(data *T, length int) bool {
	return length > 0 && length == s.length && data == s.first.Value()
}

// array is the slot's array, up to its frontier; owns said it is alive.
func (s *appendSlot[T]) array() []T {
	return unsafe.Slice(s.first.Value(), s.cp)[:s.length]
}

// set makes b the slot's array.
func (s *appendSlot[T]) set(b []T) {
	if first := unsafe.SliceData(b); first != s.first.Value() || first == nil {
		s.first = weak.Make(first)
	}
	s.length, s.cp = len(b), cap(b)
}

// asciiFor returns the index of the ASCII array whose whole frontier
// prefix s is, or of the least recently used one (which the caller
// replaces), and whether s is that prefix.
func (a *stringAppender) asciiFor(s asciiString) (int, bool) {
	a.tick++
	oldest := 0
	for i := range a.ascii {
		if a.ascii[i].owns(unsafe.StringData(string(s)), len(s)) {
			a.used[i] = a.tick
			return i, true
		}
		if a.used[i] < a.used[oldest] {
			oldest = i
		}
	}
	a.used[oldest] = a.tick
	return oldest, false
}

// utf16For is asciiFor for the UTF-16 arrays.
func (a *stringAppender) utf16For(s unicodeString) (int, bool) {
	a.tick++
	oldest := 0
	for i := range a.utf16 {
		if a.utf16[i].owns(unsafe.SliceData(s), len(s)) {
			a.used[appendArrays+i] = a.tick
			return i, true
		}
		if a.used[appendArrays+i] < a.used[appendArrays+oldest] {
			oldest = i
		}
	}
	a.used[appendArrays+oldest] = a.tick
	return oldest, false
}

// concat is left + right, of length characters.
func (a *stringAppender) concat(left, right String, length int) String {
	if length < appendMinLength {
		return left.Concat(right)
	}
	la, lu := devirtualizeString(left)
	ra, ru := devirtualizeString(right)
	if lu == nil && ru == nil {
		i, owned := a.asciiFor(la)
		var b []byte
		if owned {
			b = a.ascii[i].array()
		} else {
			b = append(make([]byte, 0, length), la...)
		}
		b = append(b, ra...)
		a.ascii[i].set(b)
		return asciiOf(b)
	}
	i, b := a.startUTF16(la, lu, length+1)
	b = appendUTF16(b, ra, ru)
	a.utf16[i].set(b)
	return unicodeOf(b)
}

// concatAll is the concatenation of strs, asciiStrings and unicodeStrings
// of length characters in all, allASCII when none is a unicodeString.
func (a *stringAppender) concatAll(strs []Value, length int, allASCII bool) String {
	if allASCII {
		first := strs[0].(asciiString)
		i, owned := a.asciiFor(first)
		var b []byte
		if owned {
			b = a.ascii[i].array()
		} else {
			b = append(make([]byte, 0, length), first...)
		}
		for _, s := range strs[1:] {
			b = append(b, s.(asciiString)...)
		}
		a.ascii[i].set(b)
		return asciiOf(b)
	}
	fa, fu := devirtualizeString(strs[0].(String))
	i, b := a.startUTF16(fa, fu, length+1)
	for _, s := range strs[1:] {
		sa, su := devirtualizeString(s.(String))
		b = appendUTF16(b, sa, su)
	}
	a.utf16[i].set(b)
	return unicodeOf(b)
}

// startUTF16 returns the index of a UTF-16 array slot for a string that
// starts with s (one of ascii and u), and the array: s's own when s is its
// slot's frontier prefix, else a new one of capacity size (in uint16s, the
// BOM included) s is copied into. The caller sets the slot.
func (a *stringAppender) startUTF16(ascii asciiString, u unicodeString, size int) (int, []uint16) {
	i, owned := a.utf16For(u)
	switch {
	case owned:
		return i, a.utf16[i].array()
	default: // u[0] is not the BOM in a shared substring (patch 85)
		return i, appendUTF16(append(make([]uint16, 0, size), unistring.BOM), ascii, u)
	}
}

// appendUTF16 appends s (one of ascii and u) to b.
func appendUTF16(b []uint16, ascii asciiString, u unicodeString) []uint16 {
	if u != nil {
		return append(b, u[1:]...)
	}
	n := len(b)
	b = slices.Grow(b, len(ascii))[:n+len(ascii)]
	dst := b[n:]
	for i := range dst {
		dst[i] = uint16(ascii[i])
	}
	return b
}

// asciiOf is b's frontier prefix as a string.
func asciiOf(b []byte) asciiString {
	return asciiString(unsafe.String(unsafe.SliceData(b), len(b)))
}

// unicodeOf is b's frontier prefix, its capacity cut to its length.
func unicodeOf(b []uint16) unicodeString {
	n := len(b)
	return unicodeString(b[:n:n])
}

// stringOf is v.toString() without a new interface value when v is a
// string already (FlowScript patch 142): a string's toString returns the
// string itself, and converting an asciiString back to String boxes it
// anew, one allocation per call of a string method on a primitive string
// and per string element join adds.
func stringOf(v Value) String {
	if s, ok := v.(String); ok {
		return s
	}
	return v.toString()
}
