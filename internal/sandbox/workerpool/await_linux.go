package workerpool

import (
	"runtime"
	"syscall"
	"unsafe"
)

// awaitSlice and awaitSlices bound how long awaitInput holds the worker's
// processor: slices of 10 ms, 5 of them, then the read blocks as usual.
const (
	awaitSlice  = 10_000_000 // ns
	awaitSlices = 5
)

// awaitInput waits until fd (the request pipe) has something to read, or
// about 50 ms pass, in ppoll(2) made as a raw system call: the Go runtime
// does not see the thread enter a system call, so its monitor thread does
// not take the worker's only processor away while it waits, and is not
// woken to do so again for every request (see the package doc for the
// figures). A signal (the GC stopping the world, the monitor asking for
// preemption) ends a slice early; between slices the goroutine yields, so
// timers and the GC run; after the last, the blocking read lets the process
// sleep until the next request.
func awaitInput(fd int) {
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	for range awaitSlices {
		ts := syscall.Timespec{Nsec: awaitSlice} // ppoll writes the time left back into it
		n, _, errno := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1,
			uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if errno == 0 && n > 0 || errno != 0 && errno != syscall.EINTR {
			return // readable, closed, or an error the read will report
		}
		runtime.Gosched()
	}
}
