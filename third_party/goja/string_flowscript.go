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
