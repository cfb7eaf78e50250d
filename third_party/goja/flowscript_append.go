package goja

import (
	"slices"
	"unsafe"

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
// The runtime keeps the backing array of its last long concatenation, as
// strings.Builder does, and the array's length is its frontier: every
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
// past maxStringLength.
func (r *Runtime) checkStringLength(n int64) {
	if n > maxStringLength {
		panic(r.newError(r.getRangeError(), "Invalid string length"))
	}
}

// concat is left + right (patch 67), or the RangeError of a string past
// maxStringLength (patch 71).
func (r *Runtime) concat(left, right String) String {
	r.checkStringLength(int64(left.Length()) + int64(right.Length()))
	return r.appender.concat(left, right)
}

// appendMinLength is the length from which a concatenation goes through the
// appender: below it a plain copy costs no more.
const appendMinLength = 256

// stringAppender is the runtime's array of its last long concatenation.
type stringAppender struct {
	ascii []byte
	utf16 []uint16 // unistring.BOM at index 0, as in a unicodeString
}

// ownsASCII reports whether s is the whole frontier prefix of the ASCII
// array.
func (a *stringAppender) ownsASCII(s asciiString) bool {
	return len(s) > 0 && len(s) == len(a.ascii) && unsafe.StringData(string(s)) == unsafe.SliceData(a.ascii)
}

// ownsUTF16 reports whether s is the whole frontier prefix of the UTF-16
// array.
func (a *stringAppender) ownsUTF16(s unicodeString) bool {
	return len(s) > 0 && len(s) == len(a.utf16) && unsafe.SliceData(s) == unsafe.SliceData(a.utf16)
}

// concat is left + right.
func (a *stringAppender) concat(left, right String) String {
	length := left.Length() + right.Length()
	if length < appendMinLength {
		return left.Concat(right)
	}
	la, lu := devirtualizeString(left)
	ra, ru := devirtualizeString(right)
	if lu == nil && ru == nil {
		if !a.ownsASCII(la) {
			a.ascii = append(make([]byte, 0, len(la)+len(ra)), la...)
		}
		a.ascii = append(a.ascii, ra...)
		return a.asciiString()
	}
	a.startUTF16(la, lu, length+1)
	a.appendUTF16(ra, ru)
	return a.unicodeString()
}

// concatAll is the concatenation of strs, asciiStrings and unicodeStrings
// of length characters in all, allASCII when none is a unicodeString.
func (a *stringAppender) concatAll(strs []Value, length int, allASCII bool) String {
	if allASCII {
		first := strs[0].(asciiString)
		if !a.ownsASCII(first) {
			a.ascii = append(make([]byte, 0, length), first...)
		}
		for _, s := range strs[1:] {
			a.ascii = append(a.ascii, s.(asciiString)...)
		}
		return a.asciiString()
	}
	fa, fu := devirtualizeString(strs[0].(String))
	a.startUTF16(fa, fu, length+1)
	for _, s := range strs[1:] {
		a.appendUTF16(devirtualizeString(s.(String)))
	}
	return a.unicodeString()
}

// startUTF16 makes s (one of ascii and u) the UTF-16 array's frontier
// prefix: as it is when s is that prefix, else copied into a new array of
// capacity size (in uint16s, the BOM included).
func (a *stringAppender) startUTF16(ascii asciiString, u unicodeString, size int) {
	if u != nil {
		if !a.ownsUTF16(u) {
			a.utf16 = append(make([]uint16, 0, size), u...)
		}
		return
	}
	a.utf16 = append(make([]uint16, 0, size), unistring.BOM)
	a.appendUTF16(ascii, nil)
}

// appendUTF16 appends s (one of ascii and u) to the UTF-16 array.
func (a *stringAppender) appendUTF16(ascii asciiString, u unicodeString) {
	if u != nil {
		a.utf16 = append(a.utf16, u[1:]...)
		return
	}
	n := len(a.utf16)
	a.utf16 = slices.Grow(a.utf16, len(ascii))[:n+len(ascii)]
	dst := a.utf16[n:]
	for i := range dst {
		dst[i] = uint16(ascii[i])
	}
}

// asciiString is the ASCII array's frontier prefix.
func (a *stringAppender) asciiString() asciiString {
	return asciiString(unsafe.String(unsafe.SliceData(a.ascii), len(a.ascii)))
}

// unicodeString is the UTF-16 array's frontier prefix, its capacity cut to
// its length.
func (a *stringAppender) unicodeString() unicodeString {
	n := len(a.utf16)
	return unicodeString(a.utf16[:n:n])
}
