package goja

import (
	"slices"

	"github.com/dop251/goja/unistring"
)

// The Go API FlowScript's sandbox adds for building values fast (its
// JSON.parse): see FLOWSCRIPT.md.

// NewASCIIString is the string value of s, which must be ASCII: a caller
// that has just scanned s (a JSON parser) makes it without a second scan
// and with one allocation, where ToValue(s) scans s up to 16 bytes and
// boxes it twice. A non-ASCII s makes a value whose reads are wrong.
func NewASCIIString(s string) String {
	return asciiString(s)
}

// NewInt and NewFloat are the number values of i and f, as ToValue makes
// them (an integral f is an integer value, -0 is not), with one allocation
// or none where ToValue boxes the number twice.
func NewInt(i int64) Value { return intToValue(i) }

// NewFloat: see NewInt.
func NewFloat(f float64) Value { return floatToValue(f) }

// NewObjectSized is NewObject with room made for n properties.
func (r *Runtime) NewObjectSized(n int) *Object {
	o := r.newPlainObject(r.global.ObjectPrototype, classObject)
	o.values = make(map[unistring.String]Value, n)
	o.propNames = make([]unistring.String, 0, n)
	return o.val
}

// NewDataObject is an ordinary object whose own properties are names[i]
// with values[i], in that order, writable, enumerable and configurable:
// what JSON.parse's CreateDataProperty calls make of a fresh object. A name
// given twice keeps its first place and takes its last value. Each member
// costs one map assignment (PutDataProperty on a new object costs two).
func (r *Runtime) NewDataObject(names []string, values []Value) *Object {
	v := r.NewObjectSized(len(names))
	o := v.self.(*baseObject)
	for i, name := range names {
		o._put(unistring.NewFromString(name), values[i])
	}
	return v
}

// A Shape is a list of own property names, in order, that the objects
// NewShapedObject makes share instead of each holding its own: a JSON array
// of records gives its records one list (FlowScript patch 111). An object
// that gains or loses a property gets a list of its own then.
type Shape struct {
	keys  []string
	names []unistring.String // capacity == length: an append copies
}

// NewShape is the shape of names, or nil when a name appears twice (the
// caller then makes the object another way).
// Its time is linear in the number of names: a record of 30,000 members is
// no slower to shape than to make.
func NewShape(names []string) *Shape { // names is kept: the caller gives it up
	s := &Shape{keys: names, names: make([]unistring.String, len(names))}
	var seen map[string]struct{}
	if len(names) > 16 {
		seen = make(map[string]struct{}, len(names))
	}
	for i, name := range names {
		s.names[i] = unistring.NewFromString(name)
		if seen != nil {
			if _, twice := seen[name]; twice {
				return nil
			}
			seen[name] = struct{}{}
			continue
		}
		for _, before := range names[:i] {
			if before == name {
				return nil
			}
		}
	}
	return s
}

// Is reports whether the shape's names are names, in order.
func (s *Shape) Is(names []string) bool {
	return slices.Equal(s.keys, names)
}

// NewShapedObject is an ordinary object whose own properties are the
// shape's names with values[i], in that order, writable, enumerable and
// configurable, as NewDataObject makes them; values has one per name.
func (r *Runtime) NewShapedObject(s *Shape, values []Value) *Object {
	o := r.newPlainObject(r.global.ObjectPrototype, classObject)
	o.values = make(map[unistring.String]Value, len(s.names))
	for i, name := range s.names {
		o.values[name] = values[i]
	}
	o.propNames = s.names
	o.sharedNames = true
	return o.val
}

// PutDataProperty gives o the own property name with value, writable,
// enumerable and configurable, as DefineDataProperty(name, value,
// FLAG_TRUE, FLAG_TRUE, FLAG_TRUE) does, and as JSON.parse's
// CreateDataProperty does: a property o already has keeps its place and
// takes the value. On an ordinary extensible object whose property of that
// name, if any, is such a data property (one NewObject or NewObjectSized
// made and only this method filled) it skips the descriptor and the
// exception handling of DefineDataProperty; on any other it is
// DefineDataProperty. It reports whether the property was defined.
func (o *Object) PutDataProperty(name string, value Value) bool {
	if b, ok := o.self.(*baseObject); ok && b.extensible {
		n := unistring.NewFromString(name)
		if existing, exists := b.values[n]; !exists || !isProperty(existing) {
			b._put(n, value)
			return true
		}
	}
	return o.DefineDataProperty(name, value, FLAG_TRUE, FLAG_TRUE, FLAG_TRUE) == nil
}

func isProperty(v Value) bool {
	_, ok := v.(*valueProperty)
	return ok
}

// RemoveGlobals deletes names from the global object, as the delete
// operator would, without making their values first: a built-in global of
// removableGlobals that no one has read yet is only marked deleted. A
// sandbox that must take eval away from every script pays nothing for the
// function, and for GoError its constructor and prototype, it never makes
// (FlowScript patch).
//
// Until the global object's names are listed, the mark is only the white
// hole deleteStr leaves (a nil value): materialisePropNames leaves marked
// names out when it lists them, so the global's list of 60 names is not
// copied for every runtime (FlowScript patch 24).
func (r *Runtime) RemoveGlobals(names ...string) {
	o, templated := r.globalObject.self.(*templatedObject)
	for _, n := range names {
		name := unistring.NewFromString(n)
		if templated && removableGlobals[n] && o.tmpl.props[name] != nil {
			if _, made := o.values[name]; !made {
				if o.propNames != nil {
					o._delete(name)
				}
				o.values[name] = nil // the white hole deleteStr leaves
				continue
			}
		}
		r.globalObject.self.deleteStr(name, false)
	}
}

// FunctionPrototype is the runtime's Function.prototype, made without the
// Function constructor (FlowScript patch 24).
func (r *Runtime) FunctionPrototype() *Object {
	return r.getFunctionPrototype()
}

// ReplaceBuiltin gives o, a built-in object whose properties are still
// those of its template, the data property name with value and the given
// attributes, as DefineDataProperty would, without making the template's
// value first: it keeps its place among o's properties. The attributes
// come in DefineDataProperty's order, and all must be given. It applies
// only to the properties that replaceable names (configurable data
// properties of their templates, so that DefineDataProperty would replace
// them too), and only until they are read; otherwise it is
// DefineDataProperty. A sandbox that puts a thrower in place of the
// Function constructor thus never makes the constructor (FlowScript patch
// 24).
func (o *Object) ReplaceBuiltin(name string, value Value, writable, configurable, enumerable Flag) error {
	var t *templatedObject
	switch self := o.self.(type) {
	case *templatedObject:
		t = self
	case *templatedFuncObject:
		t = &self.templatedObject
	}
	n := unistring.NewFromString(name)
	if t != nil && writable != FLAG_NOT_SET && enumerable != FLAG_NOT_SET && configurable != FLAG_NOT_SET &&
		replaceable(t.tmpl, name) && t.tmpl.props[n] != nil {
		if _, made := t.values[n]; !made {
			t.values[n] = valueProp(value, writable.Bool(), enumerable.Bool(), configurable.Bool())
			return nil
		}
	}
	return o.DefineDataProperty(name, value, writable, configurable, enumerable)
}

// replaceable reports whether ReplaceBuiltin may replace template t's
// property name unmade: each is valueProp(…, true, false, true) in its
// template.
func replaceable(t *objectTemplate, name string) bool {
	switch name {
	case "Function":
		return t == getGlobalObjectTemplate()
	case "constructor":
		return t == getFunctionProtoTemplate()
	}
	return false
}

// removableGlobals are the global template's properties RemoveGlobals may
// mark deleted unread: each is configurable (valueProp(…, true, false,
// true) in createGlobalObjectTemplate), so delete always removes it.
var removableGlobals = map[string]bool{"eval": true, "GoError": true}

// StringifyJSON is the runtime's built-in JSON.stringify, whatever a
// script did to the global JSON object or its stringify (FlowScript patch).
func (r *Runtime) StringifyJSON(call FunctionCall) Value {
	return r.builtinJSON_stringify(call)
}

// StringifyJSONEach is StringifyJSON(value) that calls each with every
// object it is about to write, the value itself included: after the
// object's toJSON ran, in the order JSON.stringify reads them, each once.
// each may panic with a Value to stop the serialization with that
// exception (FlowScript patch 27).
func (r *Runtime) StringifyJSONEach(value Value, each func(*Object)) Value {
	return r.builtinJSON_stringifyEach(FunctionCall{This: _undefined, Arguments: []Value{value}}, each)
}

// StringifyJSONLimit is StringifyJSONEach that calls over with the first
// 64 bytes of the text as soon as the text passes limit bytes (checked
// before each value, so it passes the limit by one value's text at most);
// over panics, as each may, to end the serialization, returns true to
// lift the limit, or false to be asked again before the next value
// (FlowScript patch 124). A result whose text is
// far larger than its values (a sparse array's nulls, one string
// referenced a thousand times) then costs no more than the limit to refuse.
func (r *Runtime) StringifyJSONLimit(value Value, each func(*Object), limit int, over func(head []byte) bool) Value {
	return r.builtinJSON_stringifyLimit(FunctionCall{This: _undefined, Arguments: []Value{value}}, each, limit, over)
}

// SetJSONParse makes fn the runtime's JSON.parse, the built-in itself: the
// JSON object's parse property is fn, with the name "parse" and the length
// 2, made when it is first read (FlowScript patch 26). It applies only
// while JSON.parse has not been read; a sandbox calls it before any script
// runs, and pays nothing for a function no script reads.
func (r *Runtime) SetJSONParse(fn func(FunctionCall) Value) {
	r.jsonParse = fn
}

// NewSyntaxError is a new SyntaxError of this runtime with message msg, as
// the built-in JSON.parse throws (FlowScript patch 26).
func (r *Runtime) NewSyntaxError(msg string) *Object {
	return r.newSyntaxError(msg).(*Object)
}

// CreateDataPropertyOrThrow is the standard's CreateDataPropertyOrThrow(o,
// key, value): the own property key, writable, enumerable and configurable,
// with a key given as a String, which may hold lone surrogates that a Go
// string cannot (FlowScript patch 26). It throws a TypeError into the
// script when o refuses it.
func (o *Object) CreateDataPropertyOrThrow(key String, value Value) {
	createDataPropertyOrThrow(o, key, value)
}

// enterNative counts one more level of a recursion that runs through Go
// only (a built-in calling itself for a nested value), which the call
// stack's limit does not see: as deep as that limit, it ends the run with
// a StackOverflowError naming the calling line, as deep recursion in
// JavaScript does, where the recursion went on until the Go stack
// overflowed and ended the process (FlowScript patch 30). leaveNative
// undoes it.
func (r *Runtime) enterNative() {
	if r.vm.nativeDepth >= r.vm.maxCallStackSize {
		r.stackOverflow()
	}
	r.vm.nativeDepth++
}

// stackOverflow throws the StackOverflowError of going past the call
// stack's limit.
func (r *Runtime) stackOverflow() {
	ex := &StackOverflowError{}
	ex.stack = r.vm.captureStack(nil, 0)
	panic(ex)
}

func (r *Runtime) leaveNative() { r.vm.nativeDepth-- }

// readOfNothing is the TypeError of reading a property of null or
// undefined, in V8's words, which say which of the two the value was
// (FlowScript patch 38; upstream said "of undefined" for both).
func (r *Runtime) readOfNothing(v Value, name any) *Object {
	return r.NewTypeError("Cannot read properties of %s (reading '%s')", nothingName(v), name)
}

// EachOwnProperty calls f with o's own enumerable string-keyed properties
// in order, each with its value, or, for an accessor, with accessor true
// and no value (its getter is not called), until f returns false. It reads
// no more properties than f asks for; a Proxy's traps run, and may throw.
func (o *Object) EachOwnProperty(f func(name string, value Value, accessor bool) bool) {
	iter := &enumerableIter{o: o, wrapped: o.self.iterateStringKeys()}
	for item, next := iter.next(); next != nil; item, next = next() {
		prop := item.value
		if prop == nil {
			prop = o.getOwnProp(item.name)
		}
		if p, ok := prop.(*valueProperty); ok {
			if p.accessor {
				if !f(item.name.String(), nil, true) {
					return
				}
				continue
			}
			prop = p.value
		}
		if prop == nil {
			continue
		}
		if !f(item.name.String(), prop, false) {
			return
		}
	}
}
