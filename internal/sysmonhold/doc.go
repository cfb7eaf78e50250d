// Package sysmonhold keeps the Go runtime's monitor thread at its slow
// pace in a process that goes busy and idle many times a second, such as
// an executor at a steady trickle of jobs.
//
// The runtime's monitor thread (sysmon) wakes every 20 µs while the
// process is busy and backs off to every 10 ms once nothing needs it. When
// every processor (P) is idle it sleeps until the next system call wakes
// it, and then starts again at 20 µs. An executor between two jobs is idle
// for a few hundred microseconds, so the monitor never backs off: measured
// on a 2-core PVM guest at half the maximum job rate, it woke about 6,700
// times a second, 39 % of the executor's context switches and 12 % of its
// CPU, and each wake-up on such a guest is dear.
//
// Hold gives the process one more processor than it had and keeps a
// goroutine on that one, asleep in raw nanosleep(2) calls the runtime does
// not see as system calls: to the monitor one processor is always running
// a goroutine, so it never goes to sleep and is never woken back into its
// fast pace. The monitor preempts that goroutine every 10–20 ms as it
// would any goroutine that computes (a signal ends its sleep); its
// processor's timers then run, and the garbage collector stops it the same
// way. The other processors are unchanged: the work has as many as before.
//
// The hold costs 1–2 % of a core on such a guest, and a calm monitor saved
// 40–100 µs of the executor's CPU per job, so it pays only from a few
// hundred jobs a second: it is taken once the process uses a tenth of a
// core or more (checked every 50 ms) and let go below a twentieth (checked
// every 250 ms), so an idle replica costs one wake-up every 50 ms more
// than before.
//
// Measured with the executor binary (BenchmarkDrainRatio and
// BenchmarkBinaryLatency in internal/executorapp; figures in docs/performance.md):
// the executor's context switches per job halved, and its CPU per job fell
// by 15–25 %.
//
// Setting GOMAXPROCS in the program (as Hold does) turns off the runtime's
// updates of it when the container's CPU limit changes; the limit at start
// still decides. Off Linux, Hold does nothing.
package sysmonhold
