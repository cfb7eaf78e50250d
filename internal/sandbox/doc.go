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
// generated one (see Assemble). The compiled program's positions are the
// author's lines and columns (the parsed tree is moved back by the
// wrapper's length and compiled against the source alone), so errors,
// stack frames and error.stack read them straight from goja, after any
// line terminator (\n, \r\n, \r, U+2028, U+2029).
//
// Deep nesting is a syntax error at the author's line, found before
// anything recursive reads the text: brackets nested past MaxNesting (a
// linear scan before goja's parser), a parsed tree deeper than
// MaxSyntaxDepth (a walk without recursion before goja's compiler). goja's
// parser and compiler recurse once per level in Go; past these bounds a
// hostile source ends a Go process with a stack overflow that recover
// cannot catch. A worker's stack limit contains what these bounds miss
// (very long chains of unary operators, which the parser recurses over
// before any tree exists), and the pool reports it as a syntax error too.
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
// shared safely between goroutines; the cache is bounded by what the
// programs cost in bytes (what compiling them allocated), not by how many
// they are (SetProgramCacheBytes).
//
// Go makes every call into the script — the generated execute, the
// author's own execute, the result's serialization, the error's description
// — through Function.prototype.call inside Runtime.Try: the script's stack
// traces hold its own frames only, and goja's promise job queue is never
// drained, so nothing of the script (a promise callback, an await's
// continuation) runs after its result is taken. A result that is ready only
// after the deadline is a timeout.
//
// A Go panic inside goja while it runs a script (BigInt.asUintN(2**53 - 1,
// -1n) asks for a slice of 2^53 bits) is the script's error:
// SCRIPT_MEMORY_LIMIT when goja could not allocate a size, SCRIPT_ERROR with
// the panic's text otherwise. Never SANDBOX_CRASH: running it again fails
// the same way.
//
// Regular expressions that goja runs on regexp2 have no backtracking limit
// of their own (see regexp.go): a limit there reads as "no match". A match
// ends with the right answer, or with the job's time or memory limit.
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
// Execute, InProcess, Compile and Validate are the trusted-code path. goja
// has no heap limit and its interrupt is only seen between bytecode
// instructions, so native built-ins run on past the deadline and some
// scripts — some sources, even, while they are only compiled — can end the
// whole Go process. Hostile scripts run through internal/sandbox/workerpool,
// which calls Execute inside killable worker processes with OS limits; a
// service that must check a source it will not run (a template save) asks
// the pool (workerpool.Pool.Check), never Compile in its own process.
//
// This package must never hand a live Go value to a script, and never let
// a limit inside the engine read as a result. Its callers must never give
// it untrusted text outside a worker.
package sandbox
