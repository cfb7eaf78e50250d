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
// line terminator (\n, \r\n, \r, U+2028, U+2029). The columns of the
// errors a run returns are then counted in UTF-16 units, as editors count
// them (Column); error.stack inside a script keeps goja's byte columns.
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
// Every run gets a fresh runtime: nothing survives between scripts. The
// language built-ins are there, and the host's globals of DESIGN.md §9
// (hostvm.go): console, capabilities, api, kv and approval, native
// functions on frozen objects, named by ordinary globals (writable and
// configurable, not enumerable, as Node's console: a sloppy assignment to
// one of those names replaces it for the run); eval is deleted and the Function
// constructor, reached by any path (the global, ({}).constructor.constructor,
// the async, generator and async generator function constructors,
// Reflect.construct), throws an EvalError. Inputs enter as primitive
// strings; results leave as one string serialized inside the VM under the
// script's deadline, with an output cap. The call stack depth is capped.
// Date works in the zone UseTimeZone sets (UTC by default in workers).
// A runtime sets up only what its program can reach, read from the syntax
// tree when the program is compiled (features in astwalk.go): the host's
// globals when it names one of them, globalThis or this; JSON before the
// script when it names JSON; the locks of the generator and async kinds
// when it has such functions. A script that reaches the global object
// without naming it (through an accessor on Object.prototype) finds no
// host globals and goja's own JSON.parse there (the same values, other
// error messages): leaving them out grants it nothing, at a third of the
// cost. eval and GoError are removed from every runtime.
// JSON.parse is the sandbox's own (jsonparse.go): values built directly,
// the standard's semantics, V8's errors and positions.
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
// A Go panic inside goja while it runs a script is the script's error:
// SCRIPT_MEMORY_LIMIT when goja could not allocate a size, SCRIPT_ERROR with
// the panic's text otherwise; one while it parses or compiles the source
// (the lexer once panicked on "\u{10FFFF}") is SCRIPT_SYNTAX_ERROR. Never
// SANDBOX_CRASH: running it again fails the same way.
//
// Regular expressions that goja runs on regexp2 have no backtracking limit
// of their own (see regexp.go): a limit there reads as "no match". A match
// ends with the right answer, or with the job's time or memory limit.
//
// # Host functions
//
// A run's Host answers the granted host calls (Request.Capabilities): the
// arguments cross as JSON text — the array and its primitives written in
// Go, objects through the engine's own JSON.stringify, so nothing the
// script put on a prototype changes the shape the host gets — and the
// answer comes back parsed by the sandbox's JSON.parse, called from Go. A call of
// a capability that is not granted throws CAPABILITY_DENIED without
// reaching the host. Errors the host throws with a code (CAPABILITY_DENIED,
// HOST_CALL_LIMIT, SCRIPT_TIMEOUT) are known by identity: left uncaught,
// the run fails with that code at the call's line; a script cannot forge
// one. MeterHost caps the calls and their bytes. Console lines are kept
// within the run's caps and come back with the result, success or not; a
// returned {success: false, error: {code, message}} is a SCRIPT_ERROR with
// the author's code as Reason.
//
// Built-in prototypes are NOT frozen, a deliberate departure from
// DESIGN.md §3 measured here: freezing them materializes every lazily built
// built-in and costs about 2 ms per runtime against about 60 µs for a whole
// cached run of the seed's cpf script (BenchmarkExecuteCached). Revisited
// for host functions (issue 15), the decision stands: a runtime lives for
// one job; the host's objects are frozen native functions, not JavaScript
// that a patched prototype could redirect; what they send is built from
// built-ins taken before the script runs; and the host never trusts what
// crosses — it parses the JSON again in Go and checks every argument, its
// caps and its deadline on its own side. A script that changes a built-in
// changes only its own run, and can send its own granted host only what it
// could have sent anyway.
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
