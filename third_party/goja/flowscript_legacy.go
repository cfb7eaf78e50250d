package goja

import (
	"math"
	"strings"

	"github.com/dop251/goja/unistring"
)

// FlowScript patch 60: the rest of Annex B's built-ins, which V8 has and
// upstream goja lacked: String.prototype's HTML methods, Date.prototype's
// toGMTString and setYear, and Object.prototype's __defineGetter__ family.

// stringprotoHTML is the String.prototype method name of Annex B's
// CreateHTML: "<tag attribute="value">" + this + "</tag>", the value's "
// written &quot;.
func (r *Runtime) stringprotoHTML(name, tag, attribute string) func(FunctionCall) Value {
	return func(call FunctionCall) Value {
		switch call.This.(type) {
		case valueUndefined, valueNull:
			panic(r.NewTypeError("String.prototype.%s called on null or undefined", name))
		}
		s := call.This.toString()
		var b StringBuilder
		b.writeASCII("<" + tag)
		if attribute != "" {
			v := call.Argument(0).toString()
			b.writeASCII(" " + attribute + `="`)
			b.WriteString(stringReplaceAllQuotes(v))
			b.writeASCII(`"`)
		}
		b.writeASCII(">")
		b.WriteString(s)
		b.writeASCII("</" + tag + ">")
		return b.String()
	}
}

// stringReplaceAllQuotes is s with each " written &quot;.
func stringReplaceAllQuotes(s String) String {
	if s.index(asciiString(`"`), 0) < 0 {
		return s
	}
	var b StringBuilder
	for i, n := 0, s.Length(); i < n; {
		j := s.index(asciiString(`"`), i)
		if j < 0 {
			b.WriteSubstring(s, i, n)
			break
		}
		b.WriteSubstring(s, i, j)
		b.writeASCII("&quot;")
		i = j + 1
	}
	return b.String()
}

// htmlMethods are Annex B's String.prototype HTML methods: name, tag and
// the attribute the argument fills, if any.
var htmlMethods = [...]struct{ name, tag, attribute string }{
	{"anchor", "a", "name"},
	{"big", "big", ""},
	{"blink", "blink", ""},
	{"bold", "b", ""},
	{"fixed", "tt", ""},
	{"fontcolor", "font", "color"},
	{"fontsize", "font", "size"},
	{"italics", "i", ""},
	{"link", "a", "href"},
	{"small", "small", ""},
	{"strike", "strike", ""},
	{"sub", "sub", ""},
	{"sup", "sup", ""},
}

func putHTMLMethods(t *objectTemplate) {
	for _, m := range htmlMethods {
		length := 0
		if m.attribute != "" {
			length = 1
		}
		name := unistring.String(m.name) // ASCII
		t.putStr(name, func(r *Runtime) Value {
			return r.methodProp(r.stringprotoHTML(m.name, m.tag, m.attribute), name, length)
		})
	}
}

// dateproto_setYear is Annex B's Date.prototype.setYear: a year of 0 to
// 99 is 1900 plus it; the month, day and time of day stay, in the
// runtime's zone.
func (r *Runtime) dateproto_setYear(call FunctionCall) Value {
	if o, isObject := call.This.(*Object); !isObject || !isDate(o) {
		panic(r.NewTypeError("Method Date.prototype.setYear called on incompatible receiver %s", valueText(call.This)))
	}
	y := call.Argument(0).ToFloat()
	if yi := math.Trunc(y); yi >= 0 && yi <= 99 {
		y = 1900 + yi
	}
	// setFullYear does the rest: the month, day and time kept, a NaN year
	// or a date past the range making the date invalid.
	return r.dateproto_setFullYear(FunctionCall{This: call.This, Arguments: []Value{floatToValue(y)}})
}

func isDate(o *Object) bool {
	_, ok := o.self.(*dateObject)
	return ok
}

// objectproto_defineAccessor is Annex B's __defineGetter__ (setter false)
// or __defineSetter__: an enumerable, configurable accessor on this.
func (r *Runtime) objectproto_defineAccessor(setter bool) func(FunctionCall) Value {
	name := "__defineGetter__"
	if setter {
		name = "__defineSetter__"
	}
	return func(call FunctionCall) Value {
		o := call.This.ToObject(r) // boxes a primitive; null and undefined are V8's TypeError
		fn, ok := call.Argument(1).(*Object)
		if ok {
			_, ok = fn.self.assertCallable()
		}
		if !ok {
			panic(r.NewTypeError("Object.prototype.%s: Expecting function", name))
		}
		desc := PropertyDescriptor{Enumerable: FLAG_TRUE, Configurable: FLAG_TRUE}
		if setter {
			desc.Setter = fn
		} else {
			desc.Getter = fn
		}
		o.defineOwnProperty(toPropertyKey(call.Argument(0)), desc, true)
		return _undefined
	}
}

// objectproto_lookupAccessor is Annex B's __lookupGetter__ (setter false)
// or __lookupSetter__: the getter or setter of the nearest own property of
// the key along this's prototype chain, undefined when that property holds
// a value or there is none.
func (r *Runtime) objectproto_lookupAccessor(setter bool) func(FunctionCall) Value {
	return func(call FunctionCall) Value {
		o := call.This.ToObject(r) // boxes a primitive; null and undefined are V8's TypeError
		key := toPropertyKey(call.Argument(0))
		for ; o != nil; o = o.self.proto() {
			p := o.getOwnProp(key)
			if p == nil {
				continue
			}
			if prop, ok := p.(*valueProperty); ok && prop.accessor {
				f := prop.getterFunc
				if setter {
					f = prop.setterFunc
				}
				if f != nil {
					return f
				}
			}
			return _undefined
		}
		return _undefined
	}
}

// getDateproto_toUTCString is Date.prototype.toUTCString's function object,
// which toGMTString shares whatever the script did to either property.
func (r *Runtime) getDateproto_toUTCString() *Object {
	ret := r.global.dateproto_toUTCString
	if ret == nil {
		ret = r.newNativeFunc(r.dateproto_toUTCString, "toUTCString", 0)
		r.global.dateproto_toUTCString = ret
	}
	return ret
}

// duplicateGroupName reports whether pattern names two capture groups
// alike, (?<n>…) twice (FlowScript patch 63). Escapes and character
// classes are skipped; a lookbehind, (?<= or (?<!, names nothing.
func duplicateGroupName(pattern string) bool {
	if !strings.Contains(pattern, "(?<") {
		return false
	}
	var seen map[string]bool
	inClass := false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(' && strings.HasPrefix(pattern[i:], "(?<") && i+3 < len(pattern) && pattern[i+3] != '=' && pattern[i+3] != '!':
			end := strings.IndexByte(pattern[i+3:], '>')
			if end < 0 {
				return false // no name: the engines say what is wrong
			}
			name := pattern[i+3 : i+3+end]
			if seen[name] {
				return true
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[name] = true
			i += 3 + end
		}
	}
	return false
}
