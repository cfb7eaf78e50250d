package sysmonhold

import (
	"syscall"
	"time"
	"unsafe"
)

const supported = true

// rawSleep sleeps d in nanosleep(2) made as a raw system call, so that the
// runtime still counts the goroutine's processor as running. A signal (a
// preemption, the garbage collector stopping the world) ends it early.
func rawSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	_, _, _ = syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// processCPU is the CPU time the process has used, its children not
// included (0 when it cannot be read).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
