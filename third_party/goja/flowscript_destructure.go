package goja

// FlowScript patch 151: an array pattern over an ordinary array reads its
// elements by index, without the iterator object and record GetIterator
// makes, while nothing could tell the difference.
//
// Destructuring a pair ([k, v] = entry, a comparator's ([, a], [, b]) =>
// b - a) made an array iterator, its record and a property map, and looked
// up Symbol.iterator, next and return through their prototypes each time:
// a sort of 50,000 entries by a destructured count took 5 times as long as
// one indexing them. The iteration is the standard one when the array's
// Symbol.iterator is Array.prototype's built-in values and
// %ArrayIteratorPrototype%.next is the built-in next, each a data property
// (checked as GetIterator would find them, reading nothing that runs
// script). The iterator object is unobservable until something calls a
// method on it: an element that is not a plain value of the array (a hole,
// an accessor), an array made sparse, or a return method that closing it
// would call. At any of these the item turns into the record GetIterator
// would have made, at the same position, and the standard way goes on.

// arrayCursor is an iterStackItem's array read by index.
type arrayCursor struct {
	arr  *Object // the array; nil: not a cursor
	idx  int64
	done bool
}

// plainArrayIteration reports whether iterating v is the standard
// iteration of an ordinary array (see the file's comment).
func (r *Runtime) plainArrayIteration(v Value) bool {
	o, ok := v.(*Object)
	if !ok {
		return false
	}
	a, ok := o.self.(*arrayObject)
	if !ok || a.prototype == nil || a.prototype != r.global.ArrayPrototype || a.getOwnPropSym(SymIterator) != nil {
		return false
	}
	if p, ok := a.prototype.self.getOwnPropSym(SymIterator).(*valueProperty); !ok || p.accessor || p.value != r.getArrayValues() {
		return false
	}
	p, ok := r.getArrayIteratorPrototype().self.getOwnPropStr("next").(*valueProperty)
	return ok && !p.accessor && p.value == r.global.arrayIterNext
}

// step is the cursor's next value, as the standard next would return it
// (nil when done); ok false when reading it is not plain (materialise,
// then step).
func (c *arrayCursor) step() (v Value, ok bool) {
	if c.done {
		return nil, true
	}
	v, done, ok := plainElement(c.arr, c.idx)
	switch {
	case !ok:
	case done:
		c.done = true
	default:
		c.idx++
	}
	return v, ok
}

// materialise turns it into the record GetIterator would have made for
// its array, at its position: the array's values iterator with the built-in
// next (the one found when the iteration began).
func (vm *vm) materialise(it *iterStackItem) {
	r := vm.r
	c := &it.cursor
	if c.done {
		it.iter = &iteratorRecord{} // closed
	} else {
		o := r.createArrayIterator(c.arr, iterationKindValue).(*Object)
		ai := o.self.(*arrayIterObject)
		ai.nextIdx = c.idx
		next, _ := r.global.arrayIterNext.self.assertCallable()
		it.iter = &iteratorRecord{iterator: o, next: next, array: ai}
	}
	*c = arrayCursor{}
}

// closeNeedsCall reports whether closing an unfinished cursor would call
// something: a return method, or a Proxy's trap, on the prototypes of an
// array iterator (it has no own properties). No script runs to find out.
func (r *Runtime) closeNeedsCall() bool {
	for p := r.getArrayIteratorPrototype(); p != nil; p = p.self.proto() {
		if _, isProxy := p.self.(*proxyObject); isProxy {
			return true
		}
		if p.self.getOwnPropStr("return") != nil {
			return true
		}
	}
	return false
}

// closeIter closes what it iterates, as IteratorClose: a cursor calls
// nothing unless closeNeedsCall, when it is materialised first.
func (vm *vm) closeIter(it *iterStackItem) {
	if it.cursor.arr != nil {
		if it.cursor.done || !vm.r.closeNeedsCall() {
			return
		}
		vm.materialise(it)
	}
	if iter := it.iter; iter != nil {
		iter.returnIter()
	}
}

// _iterateArray is _iterate for an array pattern: a cursor over a plain
// array, the standard record otherwise.
type _iterateArray struct{ from string }

func (i _iterateArray) exec(vm *vm) {
	v := vm.stack[vm.sp-1]
	if vm.r.plainArrayIteration(v) {
		vm.iterStack = append(vm.iterStack, iterStackItem{cursor: arrayCursor{arr: v.(*Object)}})
		vm.pc++
		return
	}
	_iterate(i).exec(vm)
}
