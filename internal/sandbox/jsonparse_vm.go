package sandbox

import (
	"strconv"

	"github.com/dop251/goja"
)

// jsonParse is JSON.parse(text[, reviver]): the sandbox's own
// (jsonparse.go), which newVMFor makes the runtime's built-in.
func (v *vm) jsonParse(call goja.FunctionCall) goja.Value {
	if v.jsonx == nil {
		v.jsonx = &jsonParse{rt: v.rt}
	}
	p := v.jsonx
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
	panic(v.rt.NewSyntaxError(jerr.msg))
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
