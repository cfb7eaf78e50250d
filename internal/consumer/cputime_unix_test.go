//go:build unix

package consumer

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used: the
// executor, its in-process sandbox and the embedded broker, not the worker
// processes of the pool.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
