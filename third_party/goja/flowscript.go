package goja

import "github.com/dop251/goja/unistring"

// The Go API FlowScript's sandbox adds for building values fast (its
// JSON.parse): see FLOWSCRIPT.md.

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
func (r *Runtime) RemoveGlobals(names ...string) {
	o, templated := r.globalObject.self.(*templatedObject)
	for _, n := range names {
		name := unistring.NewFromString(n)
		if templated && removableGlobals[n] && o.tmpl.props[name] != nil {
			if _, made := o.values[name]; !made {
				o.materialisePropNames()
				o._delete(name)
				o.values[name] = nil // the white hole deleteStr leaves
				continue
			}
		}
		r.globalObject.self.deleteStr(name, false)
	}
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
