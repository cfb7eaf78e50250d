package sandbox

import (
	"errors"
	"strconv"

	"github.com/dop251/goja"
)

// jsonIntrinsics are what the sandbox's JSON.parse needs from the runtime,
// taken before the script ran (it may replace the globals afterwards).
type jsonIntrinsics struct {
	// gojaParse is goja's own JSON.parse: its errors are this realm's
	// SyntaxErrors without a reference to the constructor, which would
	// cost every run its creation.
	gojaParse      nativeFunc
	defineProperty nativeFunc
	parser         jsonParse // reused by every call of the run
}

// installJSONParse replaces JSON.parse with the sandbox's own (jsonparse.go),
// with the built-in's name, length and attributes.
func (v *vm) installJSONParse() error {
	rt := v.rt
	orig, ok1 := v.json.Get("parse").Export().(nativeFunc)
	define, ok2 := rt.Get("Object").ToObject(rt).Get("defineProperty").Export().(nativeFunc)
	if !ok1 || !ok2 {
		return errors.New("JSON.parse or Object.defineProperty is not a native function")
	}
	v.jsonx = &jsonIntrinsics{gojaParse: orig, defineProperty: define}
	v.jsonx.parser.rt = rt
	v.jsonx.parser.defineOdd = v.defineMember
	fn := rt.ToValue(v.jsonParse).ToObject(rt)
	if err := fn.DefineDataProperty("name", rt.ToValue("parse"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if err := fn.DefineDataProperty("length", rt.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	return v.json.DefineDataProperty("parse", fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// jsonParse is JSON.parse(text[, reviver]).
func (v *vm) jsonParse(call goja.FunctionCall) goja.Value {
	p := &v.jsonx.parser
	p.src, p.pos, p.deep = "", 0, 0
	if text, ok := call.Argument(0).ToString().(goja.String); ok {
		p.src = jsonText(text)
	} else {
		p.src = call.Argument(0).String() // undefined, null, a boolean or a number: ASCII
	}
	val := v.runParse(p)
	p.src = ""
	reviver := call.Argument(1)
	if _, ok := goja.AssertFunction(reviver); !ok {
		return val
	}
	root := v.rt.NewObject()
	_ = root.DefineDataProperty("", val, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	return v.revive(reviver, root, "")
}

// runParse parses p's text and throws its error into the script.
func (v *vm) runParse(p *jsonParse) goja.Value {
	val, jerr := p.run()
	if jerr == nil {
		return val
	}
	panic(v.syntaxError(jerr.msg))
}

// syntaxError returns a new SyntaxError of this realm with msg: the one
// goja's JSON.parse throws for an empty text, with its message replaced.
func (v *vm) syntaxError(msg string) (thrown any) {
	defer func() {
		thrown = recover()
		if obj, ok := thrown.(*goja.Object); ok {
			_ = obj.DefineDataProperty("message", v.rt.ToValue(msg), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}()
	v.jsonx.gojaParse(goja.FunctionCall{This: v.json, Arguments: []goja.Value{v.rt.ToValue("")}})
	return nil
}

// defineMember is CreateDataProperty(obj, key, val) for a key that holds a
// lone surrogate: Object.defineProperty with a descriptor built without
// going through Object.prototype.
func (v *vm) defineMember(obj *goja.Object, key goja.String, val goja.Value) {
	desc := v.rt.NewObject()
	for _, f := range [...]struct {
		name  string
		value goja.Value
	}{{"value", val}, {"writable", v.rt.ToValue(true)}, {"enumerable", v.rt.ToValue(true)}, {"configurable", v.rt.ToValue(true)}} {
		_ = desc.DefineDataProperty(f.name, f.value, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	v.jsonx.defineProperty(goja.FunctionCall{Arguments: []goja.Value{obj, key, desc}})
}

// revive is InternalizeJSONProperty (ECMA-262 §25.5.1.1) through goja's Go
// API. Where that API cannot follow the standard it is documented: a Proxy
// of an array is walked by its enumerable keys, a member whose name holds a
// lone surrogate is read by its U+FFFD form, and a failed delete or define
// (false in the standard, ignored there) is ignored even when a Proxy trap
// threw.
func (v *vm) revive(reviver goja.Value, holder *goja.Object, name string) goja.Value {
	val := holder.Get(name)
	if val == nil {
		val = goja.Undefined()
	}
	if obj, ok := val.(*goja.Object); ok {
		if obj.ClassName() == "Array" {
			n := obj.Get("length").ToInteger()
			for i := int64(0); i < n; i++ {
				v.reviveMember(reviver, obj, strconv.FormatInt(i, 10))
			}
		} else {
			for _, key := range obj.Keys() {
				v.reviveMember(reviver, obj, key)
			}
		}
	}
	// Function.prototype.call, taken before the script ran: a throw goes
	// on up through JSON.parse, and no promise job runs (see vm).
	return v.call(goja.FunctionCall{This: reviver, Arguments: []goja.Value{holder, v.rt.ToValue(name), val}})
}

func (v *vm) reviveMember(reviver goja.Value, obj *goja.Object, key string) {
	nv := v.revive(reviver, obj, key)
	if goja.IsUndefined(nv) {
		_ = obj.Delete(key)
	} else {
		_ = obj.DefineDataProperty(key, nv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
}
