package workerpool

import (
	"runtime/debug"
	"syscall"
)

// prepareHeap maps n bytes of heap for the worker's garbage before any job
// runs, without touching them, and asks the kernel to back them with huge
// pages (madvise MADV_HUGEPAGE). It reports the bytes prepared: 0 when n
// is below two huge pages or the kernel refused the advice.
//
// Why: a worker's heap grows to its GC target (workerGCPercent) before its
// first collection, and every page of that growth is faulted in the first
// time a job writes to it. Where a page fault is dear (a virtual machine
// whose page tables go through the hypervisor: 18–41 µs a 4 KB page on
// this project's machine) a fresh pool spent a third of its workers' CPU
// on them, and again after every idle release (idleRelease). Backed by
// 2 MB pages, the same heap takes 1/512 of the faults; the process
// keeps no more memory than the heap it would have grown to anyway.
//
// How: the heap's free pages are first returned to the OS
// (debug.FreeOSMemory), so that the allocation of n bytes that follows
// lies on pages the Go runtime knows to be zero, returned or never used,
// and does not clear: nothing is touched. (Without that first return, an
// allocation that overlapped a page the warm-up had used and freed was
// cleared in full: 25 MB written 4 KB at a time, about 100 ms of a worker's
// start-up on this project's machine, in about one worker of five.) The
// advice marks the allocation's mapping; the allocation is dropped and the
// pages returned again, so the worker's resident and mapped memory are
// what they were. The mapping keeps the advice: the heap's later
// allocations reuse those pages, lowest addresses first, and each 2 MB of
// them is faulted in once, as one page. With transparent huge pages off
// (/sys/kernel/mm/transparent_hugepage/enabled "never"), the advice
// changes nothing.
func prepareHeap(n uint64) uint64 {
	const hugePage = 2 << 20
	if n < 2*hugePage {
		return 0
	}
	debug.FreeOSMemory()
	err := syscall.Madvise(make([]byte, n), syscall.MADV_HUGEPAGE)
	debug.FreeOSMemory() // collects the allocation, now garbage, and returns its pages
	if err != nil {
		return 0
	}
	return n
}
