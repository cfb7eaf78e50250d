package goja

import "unicode/utf16"

// FlowScript patch 41: built-ins Node 20 has and upstream goja lacked.

// dateproto_getYear is Annex B's Date.prototype.getYear: the year less
// 1900, in the runtime's zone.
func (r *Runtime) dateproto_getYear(call FunctionCall) Value {
	if d, ok := r.toObject(call.This).self.(*dateObject); ok {
		if d.isSet() {
			return intToValue(int64(d.time().Year()) - 1900)
		}
		return _NaN
	}
	panic(r.NewTypeError("Method Date.prototype.getYear is called on incompatible receiver"))
}

// loneSurrogate returns the index of s's first lone surrogate, -1 when it
// has none.
func loneSurrogate(s String) int {
	if _, ok := s.(asciiString); ok {
		return -1
	}
	for i := 0; i < s.Length(); i++ {
		if isUTF16Pair(s, i) {
			i++
		} else if c := s.CharAt(i); isUTF16FirstSurrogate(c) || isUTF16SecondSurrogate(c) {
			return i
		}
	}
	return -1
}

// stringproto_isWellFormed is ES2024's String.prototype.isWellFormed: the
// string has no lone surrogate.
func (r *Runtime) stringproto_isWellFormed(call FunctionCall) Value {
	r.checkObjectCoercible(call.This)
	return r.toBoolean(loneSurrogate(call.This.toString()) < 0)
}

// stringproto_toWellFormed is ES2024's String.prototype.toWellFormed: the
// string with each lone surrogate replaced by U+FFFD, which is what
// utf16.Decode makes of one.
func (r *Runtime) stringproto_toWellFormed(call FunctionCall) Value {
	r.checkObjectCoercible(call.This)
	s := call.This.toString()
	if loneSurrogate(s) < 0 {
		return s
	}
	units := make([]uint16, s.Length())
	for i := range units {
		units[i] = s.CharAt(i)
	}
	return newStringValue(string(utf16.Decode(units)))
}
