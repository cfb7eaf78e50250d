package sandbox

import (
	"errors"
	"strings"

	"github.com/dop251/goja"
)

// serialize turns the script's result into its output, as DESIGN.md §3
// says: a string as is; an object or array through the engine's own
// JSON.stringify (whatever the script did to JSON); any other primitive as its
// string; undefined and null as "". A thenable is an async result, refused
// with errAsync (the caller refuses native Promises before).
//
// It runs in Go, so a frame of it never shows in the script's stack traces
// (a toJSON that reads new Error().stack sees only the author's frames),
// and what the script does to globals cannot change how its result is read.
func (v *vm) serialize(val goja.Value) (goja.Value, error) {
	if val == nil || goja.IsUndefined(val) || goja.IsNull(val) {
		return v.rt.ToValue(""), nil
	}
	obj, ok := val.(*goja.Object)
	if !ok {
		if _, isString := val.(goja.String); isString {
			return val, nil
		}
		// Numbers, booleans, BigInts and symbols: their string, read by the
		// engine without calling anything the script could have replaced.
		return v.rt.ToValue(primitiveString(val)), nil
	}
	var then goja.Value
	if err := v.try(func() { then = obj.Get("then") }); err != nil {
		return nil, err
	}
	if _, callable := goja.AssertFunction(then); callable {
		return nil, errAsync
	}
	// The engine's own JSON.stringify: when the script could not name JSON
	// it was not taken before the script ran, and the script may still have
	// replaced it through the global object.
	var out goja.Value
	err := v.try(func() {
		out = v.rt.StringifyJSON(goja.FunctionCall{This: goja.Undefined(), Arguments: []goja.Value{val}})
	})
	if err != nil {
		return nil, err
	}
	if out == nil || goja.IsUndefined(out) {
		return v.rt.ToValue(""), nil // a function, or a toJSON that returned undefined
	}
	// A Promise inside the result is written {}: items.map(async x => …)
	// would pass for data. Only an output holding {} can hide one.
	if strings.Contains(out.String(), "{}") {
		if found, err := v.holdsPromise(obj); err != nil || found {
			if err == nil {
				err = errAsync
			}
			return nil, err
		}
	}
	return out, nil
}

// maxPromiseWalk bounds the values holdsPromise reads.
const maxPromiseWalk = 100_000

// holdsPromise reports whether a Promise (or any thenable) is among the values
// JSON.stringify wrote of root: its own enumerable properties, recursively,
// not below an object with a toJSON method. It reads them again under the
// script's deadline, as JSON.stringify did.
func (v *vm) holdsPromise(root *goja.Object) (found bool, err error) {
	seen := map[*goja.Object]bool{}
	budget := maxPromiseWalk
	var walk func(o *goja.Object)
	walk = func(o *goja.Object) {
		if found || budget <= 0 || seen[o] {
			return
		}
		seen[o] = true
		budget--
		if _, callable := goja.AssertFunction(o.Get("then")); callable {
			found = true // a Promise, or a thenable: JSON.stringify wrote {} or less
			return
		}
		if _, ok := goja.AssertFunction(o.Get("toJSON")); ok {
			return
		}
		for _, k := range o.Keys() {
			if child, ok := o.Get(k).(*goja.Object); ok {
				walk(child)
			}
		}
	}
	err = v.try(func() { walk(root) })
	return found, err
}

// describe reads a thrown value as "Name: message" (an Error or anything
// shaped like one), as the message alone when the value names no name (a
// thrown {code, message}: seed 001's failure shape), or as its string form,
// for the error report. It runs
// under the script's deadline: a hostile getter or toString is interrupted
// too. The error is the interrupt (or an engine failure) when reading it
// did not finish; a value whose message throws is described as such.
func (v *vm) describe(thrown goja.Value) (string, error) {
	var text string
	err := v.try(func() {
		if obj, ok := thrown.(*goja.Object); ok {
			if msg := obj.Get("message"); msg != nil && !goja.IsUndefined(msg) {
				text = errorText(stringOf(obj.Get("name")), msg.String())
				return
			}
		}
		text = primitiveString(thrown)
	})
	var again *goja.Exception // reading the message threw
	if errors.As(err, &again) {
		return "Uncaught exception (its message could not be read)", nil
	}
	return text, err
}

// errorText is an error's "Name: message", or the one of the two that is
// not empty.
func errorText(name, message string) string {
	switch {
	case name == "":
		return message
	case message == "":
		return name
	}
	return name + ": " + message
}

// stringOf is ToString of a value that may be absent (nil); absent,
// undefined and null are "".
func stringOf(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// primitiveString is String(value): for a symbol, "Symbol(description)",
// which goja's Value.String does not give.
func primitiveString(v goja.Value) string {
	if sym, ok := v.(*goja.Symbol); ok {
		return "Symbol(" + sym.String() + ")"
	}
	return v.String()
}
