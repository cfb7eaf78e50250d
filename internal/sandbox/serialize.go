package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/dop251/goja"
)

// serialize turns the script's result into its output, as DESIGN.md §3
// says: a string as is; an object or array through the engine's own
// JSON.stringify (whatever the script did to JSON); any other primitive as its
// string; undefined and null as "". The caller has refused an async result
// (isAsync) before; a Promise inside an object or array (one that a toJSON
// returned, items.map(async x => …)), which JSON.stringify would write {},
// is errAsync: the serialization shows each object it writes, once, after
// its getters and toJSON ran (goja's StringifyJSONEach), and stops at the
// first native Promise. Inside the result an object that merely has a
// then method is data, as JSON writes it ({data: {then() {}, n: 1}} is
// {"data":{"n":1}}, as in Node): only the result itself is awaited as a
// thenable by an async engine, so only there is one refused.
//
// It runs in Go, so a frame of it never shows in the script's stack traces
// (a toJSON that reads new Error().stack sees only the author's frames),
// and what the script does to globals cannot change how its result is read.
func (v *vm) serialize(val goja.Value) (goja.Value, error) {
	if val == nil || goja.IsUndefined(val) || goja.IsNull(val) {
		return v.rt.ToValue(""), nil
	}
	if _, ok := val.(*goja.Object); !ok {
		if _, isString := val.(goja.String); isString {
			return val, nil
		}
		// Numbers, booleans, BigInts and symbols: their string, read by the
		// engine without calling anything the script could have replaced.
		return v.rt.ToValue(primitiveString(val)), nil
	}
	// The engine's own JSON.stringify, called from Go: the script may have
	// replaced the global JSON or its stringify.
	var out goja.Value
	root, async, tooLarge := true, false, false
	over := func(head []byte) bool {
		switch {
		case bytes.HasPrefix(head, failureHead):
			// A reported failure, read for its error, not returned: it is
			// written whole, whatever its size.
			return true
		case bytes.HasPrefix(failureHead, head):
			return false // maybe one: asked again at the next value
		}
		tooLarge = true
		panic(v.rt.ToValue("a result over the cap")) // ends the serialization; never reaches the script
	}
	noAsync := func(obj *goja.Object) {
		if root && obj == val { // the result itself: the caller checked it
			root = false
			return
		}
		root = false
		if obj.ExportType() == promiseType {
			async = true
			panic(v.rt.ToValue("an async value")) // ends the serialization; never reaches the script
		}
	}
	// The text is written only up to the output cap (goja patch 124): a
	// result whose JSON is far larger than its values (a sparse array's
	// nulls, one long string referenced a thousand times) is refused for
	// its size, not run into the memory limit or the deadline. A reported
	// failure whose success comes first, as {success: false, error: {…}}
	// writes it, is written whole, whatever its size.
	err := v.try(func() { out = v.rt.StringifyJSONLimit(val, noAsync, v.maxOutput, over) })
	if async {
		return nil, errAsync
	}
	if tooLarge {
		return nil, &structured{err: outputTooLarge(fmt.Sprintf("more than %d bytes", v.maxOutput), v.maxOutput)}
	}
	if err != nil {
		return nil, err
	}
	if out == nil || goja.IsUndefined(out) {
		return v.rt.ToValue(""), nil // a function, or a toJSON that returned undefined
	}
	return out, nil
}

// failureHead is how the text of a reported failure whose success comes
// first begins.
var failureHead = []byte(`{"success":false`)

// promiseType is what ExportType says of a native Promise (its class name
// is "Object").
var promiseType = reflect.TypeFor[*goja.Promise]()

// isAsync reports whether obj is an async result: a native Promise (even one
// whose then the script deleted) or any thenable. It reads obj's then, so it
// runs inside try.
func isAsync(obj *goja.Object) bool {
	if obj.ExportType() == promiseType {
		return true
	}
	_, callable := goja.AssertFunction(obj.Get("then"))
	return callable
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
	if err == nil && strings.TrimSpace(text) == "" {
		// throw "", or an object whose name and message are blank: the
		// errorVariable still says that something failed.
		return "Uncaught exception (its message is empty)", nil
	}
	return text, err
}

// hostMessage is the message of a host error the script let escape, as it
// is now: a script that caught it may have edited it before throwing it
// again. It is read under the script's deadline, as describe reads a
// thrown value; "" when it is not a text that shows, or reading it failed
// (the host's own message then stands).
func (v *vm) hostMessage(obj *goja.Object) string {
	var text string
	err := v.try(func() {
		if msg, ok := obj.Get("message").(goja.String); ok {
			text = msg.String()
		}
	})
	if err != nil || strings.TrimSpace(text) == "" {
		return ""
	}
	return text
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
