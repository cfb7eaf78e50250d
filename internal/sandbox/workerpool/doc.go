// Package workerpool runs untrusted scripts in sandbox worker processes: the
// running binary re-executed in a hidden worker mode, one request at a time
// per worker, fed length-prefixed frames over stdin and stdout (frame.go,
// codec.go). A request is a job (Run, TryRun: run a script) or a check
// (Check: compile a source with the program builder and run the save-time
// guardrails on it, without running it — goja's parser never sees an
// author's text in a service's own process).
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
//     "Maximum call stack size exceeded"; SCRIPT_SYNTAX_ERROR when it
//     overflowed compiling — any overflow in a check, or one whose deepest
//     frames are goja's parser or compiler) from any other crash
//     (SANDBOX_CRASH, retryable), and replaces the dead worker.
//
// SANDBOX_MEMORY_MB is the live heap a job may hold on top of the worker's
// baseline: what the worker keeps between jobs (the runtime's own share,
// about 0.5 MB, and the compiled programs it caches), measured with a GC
// whenever it may be stale. Programs cached by earlier jobs are never
// charged to a later one, and the cache is bounded by bytes (half the
// script's share, at least 8 MB). The heap is sampled every 5 ms and checked
// again when a job ends, where the heap's address space (which never
// shrinks) also shows a buffer the GC freed before anyone looked: a job
// that took it past 1.5 × SANDBOX_MEMORY_MB plus the stack limit, above
// what the jobs before it left (for a worker's first job, the heap its
// garbage spans anyway: the GC's first target), fails for memory and its
// worker retires. The OS limit is about 2.5 ×
// SANDBOX_MEMORY_MB + the cache bound + 172 MB of address space above the
// worker's start-up footprint (see hardBudget), the bound no script can pass.
//
// A worker that answers and then exits on purpose — its job took the heap
// past its share, its baseline grew past the cache bound plus half the
// script's share, or its own code panicked — says so in its answer (a
// planned retirement): the pool replaces it at once, with no back-off,
// reports the restart as "retired" ("panic" for the last), and logs no
// warning. Only a worker that dies without answering is a crash.
//
// Between requests a worker waits for the next one in ppoll(2) made as a raw
// system call, for up to 50 ms, before its read blocks as usual
// (awaitInput): the Go runtime then neither takes the worker's only
// processor away nor wakes its monitor thread for every request. Under a
// drain that took the workers from 4.3 to 1.9 context switches per job and
// their CPU per job down by a fifth; one request at a time on an idle
// machine, it adds about 8 µs (BenchmarkPerJob's overhead, 29 → 37 µs, under
// its 50 µs target), the cost of waking a halted virtual CPU that the
// monitor's polling used to keep busy.
//
// Before it says ready, a worker maps the heap its garbage will reach under
// load (the GC's first target at the worker's GOGC of 800, 32 MB, or its
// memory limit when lower) without touching it, advises it for transparent
// huge pages and returns it to the OS (prepareHeap): its resident memory is
// unchanged, and each 2 MB of the heap is later faulted in once instead of
// 512 times. On a virtual machine where a fault goes through the hypervisor
// that took the workers' CPU per drained job from 256–292 µs to 150–203 µs
// (docs/performance.md). It needs transparent huge pages at "madvise" or
// "always" (/sys/kernel/mm/transparent_hugepage/enabled); at "never" it
// changes nothing. Race builds skip it. The heap's free pages are returned
// to the OS before the allocation that maps it, so that the Go runtime does
// not clear it (it clears an allocation that overlaps pages it used before):
// without that, one worker in five wrote the whole 25 MB at start-up, and a
// pool of 8 took 239–261 ms to start instead of 146–164
// (BenchmarkPoolStart).
//
// The protocol is request and reply under one id, read through one loop on
// the parent's side (Pool.await): frames a worker will send in the middle of
// a request (host calls, answered by the parent) are one more case there.
//
// Every binary that creates a Pool must call MaybeRunWorker first thing in
// main (and test binaries in TestMain): that is where a re-executed worker
// takes over.
//
// This package must never pass the parent's environment, files or live Go
// values to a worker, never run a script or parse a source in the parent
// process, and never let one job's failure or memory fail or delay another
// job beyond its own limits.
package workerpool
