package goja

import "unsafe"

// FlowScript patch 93: an allocation ceiling. A string, an ArrayBuffer or a
// typed array's buffer whose size is known before it is made (a repeat, a
// pad, a concatenation, the separators of a join, new Uint8Array(n), the
// slots new Array(n).fill(x) makes) and is over the ceiling ends the
// run at once, uncatchable like an interrupt, instead of being allocated.
//
// The embedder's memory limit stopped such a value only after the engine
// had asked the OS for it: a one-line 'x'.repeat(4e8) cost its worker
// process (the OS limit ended it) and the machine some 35 ms of CPU to
// fault the pages in and start a replacement, which its neighbours paid
// for in latency.

// SetAllocationCeiling ends the run before a string of more than bytes
// characters (each takes a byte at least), or a buffer or an array's slots
// of more than bytes bytes, is made: the runtime is interrupted with over(n), n the size asked
// for, and the Go call running the script returns an *InterruptedError
// holding it. A string past V8's maximum length is still its RangeError.
// bytes ≤ 0 removes the ceiling.
func (r *Runtime) SetAllocationCeiling(bytes int64, over func(n int64) interface{}) {
	if bytes <= 0 || over == nil {
		r.allocCeiling, r.allocOver, r.stringCeiling = 0, nil, maxStringLength
		return
	}
	r.allocCeiling, r.allocOver, r.stringCeiling = bytes, over, min(bytes, maxStringLength)
}

// valueBytes is what one slot of an array's values takes.
const valueBytes = int64(unsafe.Sizeof(Value(nil)))

// checkAllocation ends the run when n bytes are over the ceiling.
func (r *Runtime) checkAllocation(n int64) {
	if r.allocOver == nil || n <= r.allocCeiling {
		return
	}
	v := r.allocOver(n)
	r.vm.Interrupt(v)
	e := &InterruptedError{iface: v}
	e.stack = r.vm.captureStack(nil, 0)
	panic(e)
}

// allocByteSlice is upstream's allocByteSlice, with the ceiling checked
// before the bytes are made.
func (r *Runtime) allocByteSlice(size int) []byte {
	if size > 0 {
		r.checkAllocation(int64(size))
	}
	return allocByteSlice(size)
}
