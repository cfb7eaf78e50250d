package goja

import (
	"reflect"
	"sync"
)

var mapExportType = reflect.TypeOf([][2]interface{}{})

type mapObject struct {
	baseObject
	m *orderedMap
}

type mapIterObject struct {
	baseObject
	iter *orderedMapIter
	kind iterationKind
}

func (o *mapIterObject) next() Value {
	v, done := o.step()
	return o.val.runtime.createIterResultObject(v, done)
}

// step is next without its result object (FlowScript patch: see
// resultlessIterator).
func (o *mapIterObject) step() (Value, bool) {
	if o.iter == nil {
		return _undefined, true
	}

	entry := o.iter.next()
	if entry == nil {
		o.iter = nil
		return _undefined, true
	}

	var result Value
	switch o.kind {
	case iterationKindKey:
		result = entry.key
	case iterationKindValue:
		result = entry.value
	default:
		result = o.val.runtime.newArrayValues([]Value{entry.key, entry.value})
	}

	return result, false
}

func (mo *mapObject) init() {
	mo.baseObject.init()
	mo.m = newOrderedMap(mo.val.runtime.getHash())
}

func (mo *mapObject) exportType() reflect.Type {
	return mapExportType
}

func (mo *mapObject) export(ctx *objectExportCtx) interface{} {
	m := make([][2]interface{}, mo.m.size)
	ctx.put(mo.val, m)

	iter := mo.m.newIter()
	for i := 0; i < len(m); i++ {
		entry := iter.next()
		if entry == nil {
			break
		}
		m[i][0] = exportValue(entry.key, ctx)
		m[i][1] = exportValue(entry.value, ctx)
	}

	return m
}

func (mo *mapObject) exportToMap(dst reflect.Value, typ reflect.Type, ctx *objectExportCtx) error {
	dst.Set(reflect.MakeMap(typ))
	ctx.putTyped(mo.val, typ, dst.Interface())
	keyTyp := typ.Key()
	elemTyp := typ.Elem()
	iter := mo.m.newIter()
	r := mo.val.runtime
	for {
		entry := iter.next()
		if entry == nil {
			break
		}
		keyVal := reflect.New(keyTyp).Elem()
		err := r.toReflectValue(entry.key, keyVal, ctx)
		if err != nil {
			return err
		}
		elemVal := reflect.New(elemTyp).Elem()
		err = r.toReflectValue(entry.value, elemVal, ctx)
		if err != nil {
			return err
		}
		dst.SetMapIndex(keyVal, elemVal)
	}
	return nil
}

func (r *Runtime) mapProto_clear(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.clear called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}

	mo.m.clear()

	return _undefined
}

func (r *Runtime) mapProto_delete(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.delete called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}

	return r.toBoolean(mo.m.remove(call.Argument(0)))
}

func (r *Runtime) mapProto_get(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.get called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}

	return nilSafe(mo.m.get(call.Argument(0)))
}

func (r *Runtime) mapProto_has(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.has called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	if mo.m.has(call.Argument(0)) {
		return valueTrue
	}
	return valueFalse
}

func (r *Runtime) mapProto_set(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.set called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	mo.m.set(call.Argument(0), call.Argument(1))
	return call.This
}

func (r *Runtime) mapProto_entries(call FunctionCall) Value {
	return r.createMapIterator(call.This, iterationKindKeyValue)
}

func (r *Runtime) mapProto_forEach(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method Map.prototype.forEach called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	callbackFn := r.toCallable(call.Argument(0)) // FlowScript patch 140: "undefined is not a function", as V8 says
	t := call.Argument(1)
	iter := mo.m.newIter()
	for {
		entry := iter.next()
		if entry == nil {
			break
		}
		callbackFn(FunctionCall{This: t, Arguments: []Value{entry.value, entry.key, thisObj}})
	}

	return _undefined
}

func (r *Runtime) mapProto_keys(call FunctionCall) Value {
	return r.createMapIterator(call.This, iterationKindKey)
}

func (r *Runtime) mapProto_values(call FunctionCall) Value {
	return r.createMapIterator(call.This, iterationKindValue)
}

func (r *Runtime) mapProto_getSize(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	mo, ok := thisObj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Method get Map.prototype.size called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	return intToValue(int64(mo.m.size))
}

func (r *Runtime) builtin_newMap(args []Value, newTarget *Object) *Object {
	if newTarget == nil {
		panic(r.needNew("Map"))
	}
	proto := r.getPrototypeFromCtor(newTarget, r.global.Map, r.global.MapPrototype)
	o := &Object{runtime: r}

	mo := &mapObject{}
	mo.class = classObject
	mo.val = o
	mo.extensible = true
	o.self = mo
	mo.prototype = proto
	mo.init()
	if len(args) > 0 {
		if arg := args[0]; arg != nil && arg != _undefined && arg != _null {
			adder := mo.getStr("set", nil)
			adderFn := toMethod(adder)
			if adderFn == nil {
				panic(r.NewTypeError("Map.set in missing"))
			}
			iter := r.getIterator(arg, nil)
			i0 := valueInt(0)
			i1 := valueInt(1)
			if adder == r.global.mapAdder {
				iter.iterate(func(item Value) {
					itemObj, ok := item.(*Object)
					if !ok { // V8's words (FlowScript patch 55)
						panic(r.NewTypeError("Iterator value %s is not an entry object", item))
					}
					k := nilSafe(itemObj.self.getIdx(i0, nil))
					v := nilSafe(itemObj.self.getIdx(i1, nil))
					mo.m.set(k, v)
				})
			} else {
				iter.iterate(func(item Value) {
					itemObj, ok := item.(*Object)
					if !ok { // V8's words (FlowScript patch 55)
						panic(r.NewTypeError("Iterator value %s is not an entry object", item))
					}
					k := itemObj.self.getIdx(i0, nil)
					v := itemObj.self.getIdx(i1, nil)
					adderFn(FunctionCall{This: o, Arguments: []Value{k, v}})
				})
			}
		}
	}
	return o
}

func (r *Runtime) createMapIterator(mapValue Value, kind iterationKind) Value {
	obj := r.toObject(mapValue)
	mapObj, ok := obj.self.(*mapObject)
	if !ok {
		panic(r.NewTypeError("Object is not a Map"))
	}

	o := &Object{runtime: r}

	mi := &mapIterObject{
		iter: mapObj.m.newIter(),
		kind: kind,
	}
	mi.class = classObject
	mi.val = o
	mi.extensible = true
	o.self = mi
	mi.prototype = r.getMapIteratorPrototype()
	mi.init()

	return o
}

func (r *Runtime) mapIterProto_next(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	if iter, ok := thisObj.self.(*mapIterObject); ok {
		return iter.next()
	}
	panic(r.NewTypeError("Method Map Iterator.prototype.next called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
}

// createMapProtoTemplate describes Map.prototype, whose properties are made
// when first used (FlowScript patch: the prototype used to be built whole
// on a runtime's first Map). set is kept in r.global when made, for the
// fast path that compares against it.
func createMapProtoTemplate() *objectTemplate {
	t := newObjectTemplate()
	t.protoFactory = func(r *Runtime) *Object {
		return r.global.ObjectPrototype
	}

	t.putStr("constructor", func(r *Runtime) Value { return valueProp(r.getMap(), true, false, true) })
	t.putStr("clear", func(r *Runtime) Value { return r.methodProp(r.mapProto_clear, "clear", 0) })
	t.putStr("set", func(r *Runtime) Value {
		r.global.mapAdder = r.newNativeFunc(r.mapProto_set, "set", 2)
		return valueProp(r.global.mapAdder, true, false, true)
	})
	t.putStr("delete", func(r *Runtime) Value { return r.methodProp(r.mapProto_delete, "delete", 1) })
	t.putStr("forEach", func(r *Runtime) Value { return r.methodProp(r.mapProto_forEach, "forEach", 1) })
	t.putStr("has", func(r *Runtime) Value { return r.methodProp(r.mapProto_has, "has", 1) })
	t.putStr("get", func(r *Runtime) Value { return r.methodProp(r.mapProto_get, "get", 1) })
	t.putStr("size", accessorProp((*Runtime).mapProto_getSize, "get size", true))
	t.putStr("keys", func(r *Runtime) Value { return r.methodProp(r.mapProto_keys, "keys", 0) })
	t.putStr("values", func(r *Runtime) Value { return r.methodProp(r.mapProto_values, "values", 0) })
	t.putStr("entries", func(r *Runtime) Value { return valueProp(r.getMapEntries(), true, false, true) })
	t.putSym(SymIterator, func(r *Runtime) Value { return valueProp(r.getMapEntries(), true, false, true) })
	t.putSym(SymToStringTag, func(r *Runtime) Value { return valueProp(asciiString(classMap), false, false, true) })

	return t
}

var mapProtoTemplate *objectTemplate
var mapProtoTemplateOnce sync.Once

func getMapProtoTemplate() *objectTemplate {
	mapProtoTemplateOnce.Do(func() {
		mapProtoTemplate = createMapProtoTemplate()
	})
	return mapProtoTemplate
}

// getMapEntries is Map.prototype.entries, which is also its @@iterator.
func (r *Runtime) getMapEntries() *Object {
	if r.global.mapEntries == nil {
		r.global.mapEntries = r.newNativeFunc(r.mapProto_entries, "entries", 0)
	}
	return r.global.mapEntries
}

func (r *Runtime) createMap(val *Object) objectImpl {
	o := r.newNativeConstructOnly(val, r.builtin_newMap, r.getMapPrototype(), "Map", 0)
	r.putSpeciesReturnThis(o)

	return o
}

func (r *Runtime) createMapIterProto(val *Object) objectImpl {
	o := newBaseObjectObj(val, r.getIteratorPrototype(), classObject)

	r.global.mapIterNext = r.newNativeFunc(r.mapIterProto_next, "next", 0)
	o._putProp("next", r.global.mapIterNext, true, false, true)
	o._putSym(SymToStringTag, valueProp(asciiString(classMapIterator), false, false, true))

	return o
}

func (r *Runtime) getMapIteratorPrototype() *Object {
	var o *Object
	if o = r.global.MapIteratorPrototype; o == nil {
		o = &Object{runtime: r}
		r.global.MapIteratorPrototype = o
		o.self = r.createMapIterProto(o)
	}
	return o
}

func (r *Runtime) getMapPrototype() *Object {
	ret := r.global.MapPrototype
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.MapPrototype = ret
		r.newTemplatedObject(getMapProtoTemplate(), ret)
	}
	return ret
}

func (r *Runtime) getMap() *Object {
	ret := r.global.Map
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.Map = ret
		ret.self = r.createMap(ret)
	}
	return ret
}
