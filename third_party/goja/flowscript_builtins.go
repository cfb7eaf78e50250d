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
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		switch {
		case isUTF16FirstSurrogate(c):
			if i+1 < n && isUTF16SecondSurrogate(s.CharAt(i+1)) {
				i++
				continue
			}
			return i
		case isUTF16SecondSurrogate(c):
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
// string with each lone surrogate replaced by U+FFFD.
func (r *Runtime) stringproto_toWellFormed(call FunctionCall) Value {
	r.checkObjectCoercible(call.This)
	s := call.This.toString()
	if loneSurrogate(s) < 0 {
		return s
	}
	n := s.Length()
	units := make([]uint16, n)
	for i := 0; i < n; i++ {
		units[i] = s.CharAt(i)
	}
	for i := 0; i < n; i++ {
		c := units[i]
		switch {
		case isUTF16FirstSurrogate(c) && i+1 < n && isUTF16SecondSurrogate(units[i+1]):
			i++
		case isUTF16FirstSurrogate(c), isUTF16SecondSurrogate(c):
			units[i] = 0xFFFD
		}
	}
	return newStringValue(string(utf16.Decode(units)))
}
