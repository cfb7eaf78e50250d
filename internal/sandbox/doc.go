// Package sandbox runs an author's executeScript source in a locked-down
// goja runtime. It knows JavaScript and nothing of NATS, HTTP or storage.
//
// # Program assembly
//
// Compile serves both formats of the seed's "#461" — a full file that
// declares function execute(...) beside helpers, and the legacy body of
// execute — with one text and no inspection of the author's code: the
// source becomes the body of a generated function execute whose parameters
// are the input names, and a tail that runs only when the source did not
// return calls the author's execute when its declaration shadowed the
// generated one (see Assemble). Positions in errors are the author's lines
// and columns.
//
// # The runtime
//
// Every run gets a fresh runtime: nothing survives between scripts. Only the
// language built-ins are there; eval is deleted and the Function
// constructor, reached by any path (the global, ({}).constructor.constructor,
// the async, generator and async generator function constructors,
// Reflect.construct), throws an EvalError. Inputs enter as primitive
// strings; results leave as one string serialized inside the VM under the
// script's deadline, with an output cap. The call stack depth is capped.
// Date works in the zone UseTimeZone sets (UTC by default in workers).
// Compiled programs are cached by a hash of source and input names and are
// shared safely between goroutines.
//
// Built-in prototypes are NOT frozen, a deliberate departure from
// DESIGN.md §3 measured here: freezing them materializes every lazily built
// built-in and costs about 2 ms per runtime against about 60 µs for a whole
// cached run of the seed's cpf script (BenchmarkExecuteCached). Freezing
// would buy nothing: a runtime lives for one job, no host object or host
// code lives in it, and the serializer holds its own reference to
// JSON.stringify captured before the script runs. A script that changes a
// built-in changes only its own run.
//
// # Trust
//
// Execute and InProcess are the trusted-code path. goja has no heap limit and
// its interrupt is only seen between bytecode instructions, so native
// built-ins run on past the deadline and some scripts can end the whole Go
// process. Hostile scripts run through internal/sandbox/workerpool, which
// calls Execute inside killable worker processes with OS limits.
package sandbox
