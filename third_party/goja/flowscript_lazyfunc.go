package goja

import (
	"math"
	"slices"

	"github.com/dop251/goja/unistring"
)

// FlowScript patch 141: a native function made by initNativeFunc (a
// built-in method, a host function), an arrow function and a function made
// by a declaration or an expression (funcObject, whose own overrides in
// func.go call materialise) make their own properties, length and name,
// only when something touches them. The overrides below are on
// baseFuncObject, so every kind of function has them; the kinds that make
// their properties at once (bound and wrapped functions, classes, methods,
// async and generator functions) are never lazy, and for them they only
// pass each call on. funcObject's prototype, made on first touch too
// (upstream's _addProto), is put through _putProp, so it follows length
// and name as it did.
//
// A script calls built-in methods and passes functions to them; it seldom
// reads their length or name. Each runtime makes the methods its
// script uses afresh, and making the two properties cost a property map
// (two allocations), two insertions and the name's string: a tenth of a
// small script's run. Until made, the function has no other own property,
// so a read of any other name is the plain object's read over an empty
// map; reading length or name, listing, defining, deleting or setting any
// own property makes them first, exactly as init would have, so what a
// script can observe is unchanged (their order, attributes and values:
// TestNativeFunctionPropertiesLazy, TestArrowFunctionPropertiesLazy,
// TestFunctionPropertiesLazy).

// materialise makes f's own properties if they are not made yet.
func (f *baseFuncObject) materialise() {
	if f.lazy {
		f.lazy = false
		f.init(f.lazyName, intToValue(int64(f.lazyLength)))
	}
}

// materialiseFor makes f's own properties before an access to name: only
// length and name exist before they are made.
func (f *baseFuncObject) materialiseFor(name unistring.String) {
	if f.lazy && (name == "length" || name == "name") {
		f.materialise()
	}
}

func (f *baseFuncObject) getStr(name unistring.String, receiver Value) Value {
	f.materialiseFor(name)
	return f.baseObject.getStr(name, receiver)
}

func (f *baseFuncObject) getOwnPropStr(name unistring.String) Value {
	f.materialiseFor(name)
	return f.baseObject.getOwnPropStr(name)
}

func (f *baseFuncObject) hasOwnPropertyStr(name unistring.String) bool {
	f.materialiseFor(name)
	return f.baseObject.hasOwnPropertyStr(name)
}

func (f *baseFuncObject) setForeignStr(name unistring.String, val, receiver Value, throw bool) (bool, bool) {
	f.materialiseFor(name)
	return f.baseObject.setForeignStr(name, val, receiver, throw)
}

func (f *baseFuncObject) setOwnStr(name unistring.String, val Value, throw bool) bool {
	f.materialise()
	return f.baseObject.setOwnStr(name, val, throw)
}

func (f *baseFuncObject) defineOwnPropertyStr(name unistring.String, descr PropertyDescriptor, throw bool) bool {
	f.materialise()
	return f.baseObject.defineOwnPropertyStr(name, descr, throw)
}

func (f *baseFuncObject) deleteStr(name unistring.String, throw bool) bool {
	f.materialise()
	return f.baseObject.deleteStr(name, throw)
}

func (f *baseFuncObject) _putProp(name unistring.String, value Value, writable, enumerable, configurable bool) Value {
	f.materialise()
	return f.baseObject._putProp(name, value, writable, enumerable, configurable)
}

func (f *baseFuncObject) stringKeys(all bool, accum []Value) []Value {
	f.materialise()
	return f.baseObject.stringKeys(all, accum)
}

func (f *baseFuncObject) iterateStringKeys() iterNextFunc {
	f.materialise()
	return f.baseObject.iterateStringKeys()
}

// frameFuncName is the name a stack frame of the native function f shows
// (FlowScript patch 143): the value of the first name data property along
// its prototype chain, as V8 reads it, and never a getter's: a getter, or
// a proxy on the way, gives the function's own name as it was made. A
// stack captured while the frame's function had a name getter ran the
// getter, and one that threw captured the stack again, without end
// (Array.prototype.map's: the run met its memory limit).
func frameFuncName(f *Object) unistring.String {
	for o := f; o != nil; o = o.self.proto() {
		if _, isProxy := o.self.(*proxyObject); isProxy {
			break
		}
		switch p := o.self.getOwnPropStr("name").(type) {
		case nil:
			continue
		case *valueProperty:
			if p.accessor {
				return madeName(f)
			}
			return nilSafe(p.value).string()
		default:
			return p.string()
		}
	}
	return madeName(f)
}

// madeName is the name a native function was made with, "" if unknown.
func madeName(f *Object) unistring.String {
	if nf, ok := f.self.(*nativeFuncObject); ok {
		return nf.lazyName
	}
	return ""
}

// definePropNamed is defineProp for a class field whose key is computed
// and whose initializer is an anonymous function or arrow function: the
// function is named after the key first, as an object literal's
// setElem1Named names it (FlowScript patch 144; `static [k] = () => {}`
// was named "").
type definePropNamed struct{}

func (definePropNamed) exec(vm *vm) {
	vm.r.toObject(vm.stack[vm.sp-1]).self.defineOwnPropertyStr("name", PropertyDescriptor{
		Value:        funcName("", vm.stack[vm.sp-2]),
		Configurable: FLAG_TRUE,
	}, true)
	defineProp{}.exec(vm)
}

// stringKeysWithPrototype lists all of f's string keys, its prototype not
// made yet among them where V8 has it: after the integer keys, and after
// length and name, made with the function as prototype is in V8
// (FlowScript patch 144; upstream listed it first:
// Object.getOwnPropertyNames(function f() {}) was prototype,length,name).
func (f *funcObject) stringKeysWithPrototype(accum []Value) []Value {
	start := len(accum)
	accum = f.baseFuncObject.stringKeys(true, accum)
	i := start
	for i < len(accum) && strToArrayIdx(accum[i].string()) != math.MaxUint32 {
		i++
	}
	for n := 0; n < 2 && i < len(accum); n++ {
		if k := accum[i].string(); k != "length" && k != "name" {
			break
		}
		i++
	}
	return slices.Insert(accum, i, Value(asciiString("prototype")))
}
