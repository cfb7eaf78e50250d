// Package workerpool runs untrusted scripts in sandbox worker processes: the
// running binary re-executed in a hidden worker mode, one script at a time
// per worker, fed length-prefixed frames over stdin and stdout (frame.go, codec.go).
//
// goja has no heap limit and native built-ins ignore Runtime.Interrupt, so a
// script can run on after its deadline or end the whole Go process with a
// fatal error that recover cannot catch (DESIGN.md §3, "Isolation"). A worker
// is therefore disposable and the parent owns the hard limits:
//
//   - the worker starts with an empty environment (no credentials reachable
//     even in theory), GOMAXPROCS=1, a small maximum goroutine stack, an OS
//     memory limit (RLIMIT_AS, not RLIMIT_DATA: see rlimit_linux.go; none
//     in race-detector builds) and a heap watchdog that interrupts the
//     script and reports SCRIPT_MEMORY_LIMIT cleanly where it can, and
//     exits the worker when a native built-in keeps allocating past its
//     budget;
//   - the parent kills a worker that overruns the deadline by KillMargin
//     (SCRIPT_TIMEOUT), reads the stderr of a worker that died to tell an
//     out-of-memory (SCRIPT_MEMORY_LIMIT) or a stack overflow (SCRIPT_ERROR,
//     "Maximum call stack size exceeded") from any other crash
//     (SANDBOX_CRASH, retryable), and replaces the dead worker.
//
// SANDBOX_MEMORY_MB is the live heap a script may hold, on top of what the
// runtime keeps on its own (measured at start, about 0.5 MB). It is sampled
// every 5 ms and checked again when a job ends, where the heap's address
// space (which never shrinks) also shows a buffer the GC freed before
// anyone looked: a job that took it past 1.5 × SANDBOX_MEMORY_MB plus the
// stack limit fails for memory and its worker retires. The OS limit is about
// 2 × SANDBOX_MEMORY_MB + 172 MB of address space above the worker's
// start-up footprint (see hardBudget), the bound no script can pass.
//
// Every binary that creates a Pool must call MaybeRunWorker first thing in
// main (and test binaries in TestMain): that is where a re-executed worker
// takes over.
//
// This package must never pass the parent's environment, files or live Go
// values to a worker, never run a script in the parent process, and never
// let one job's failure fail or delay another job beyond its own limits.
package workerpool
