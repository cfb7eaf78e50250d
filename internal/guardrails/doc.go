// Package guardrails finds, before a script is saved, the uses of host
// globals that do not exist in the FlowScript sandbox (DESIGN.md §3, seed
// 001), so an author learns at save time, with a line and a column, what
// would otherwise fail at run time; and it reports which capabilities and
// connectors the script needs granted (DESIGN.md §9), so an author knows
// before publishing what the tenant's grants must allow.
//
// It parses the source with goja's own parser, wrapped exactly as the
// sandbox's program builder wraps it (the body of a function named execute
// whose parameters are the input names), and walks the syntax tree with a
// scope chain: only free references count. A local variable, parameter,
// function or class named process is the author's own and is not a finding;
// neither is a property named process (obj.process, {process: 1}).
// A reference under typeof (typeof process === "undefined") is a feature
// test that works in the sandbox and is not a finding either.
//
// What refuses the save (SeverityError) and what only warns
// (SeverityWarning):
//
//   - error: a free reference to require, module, exports, __dirname,
//     __filename, process, fetch, XMLHttpRequest, WebSocket,
//     setTimeout, setInterval, setImmediate, their clear* partners,
//     queueMicrotask, Buffer, global, window, document or eval. None exists
//     in the sandbox: reaching the line throws a ReferenceError (or, for
//     eval, is refused), so a script that names one is broken.
//   - error (GUARDRAIL_CONSOLE): console.clear, console.profile and the
//     other methods of Node's console the sandbox's console lacks (it has
//     log, info, warn, error, debug and, written as those, Node's dir,
//     table, trace, assert, count, time and group): calling one throws a
//     TypeError.
//   - error: import, as a statement, a call or import.meta. goja cannot parse
//     it, so the source is also a syntax error; the finding says why.
//   - error: the Function constructor, called or constructed directly
//     (Function("..."), new Function(...), Function.call/apply/bind) or
//     reached through .constructor of a function or of .constructor
//     (({}).constructor.constructor("...")): a function or class literal,
//     a name a function or class declaration binds (execute included), a
//     member of a built-in namespace (Math.max), Function.prototype; also
//     globalThis.Function and Function handed to a call
//     (Reflect.construct(Function, ...)). A function held in a variable
//     (const f = () => 1; f.constructor(...)) is not followed: the check
//     reads names, not values. The sandbox disables the constructor
//     whatever the check saw; a finding only says so at save time.
//   - error: an async execute (async function execute, or a top-level
//     execute bound to an async function or arrow): it always fails with
//     "Script assíncrono não é suportado".
//   - warning: any other async function or arrow: it runs, but a Promise
//     that reaches the result fails the script.
//   - warning: globalThis.process, globalThis["fetch"] and the like: the
//     property is undefined in the sandbox, which a guarded read may expect.
//   - error: a source that closes the function it runs in and goes on
//     outside it (an unmatched closing brace). The sandbox's builder refuses
//     it too (a SyntaxError at that brace); the finding names the problem.
//   - warning (GUARDRAIL_BIDI_CONTROL): a bidirectional embedding,
//     override or isolate (U+202A–U+202E, U+2066–U+2069) anywhere in the
//     source, comments and strings included: invisible, it makes the code
//     display otherwise than it runs ("Trojan Source"). At most five.
//   - warning (GUARDRAIL_CONNECTOR_UNKNOWN, "connector not known at save
//     time"): an api.get/post/put/patch/delete call whose first argument is
//     not a string literal (or a template literal without substitutions),
//     and any other use of api (const g = api.get, helper(api), api[m](…)):
//     the report cannot list the connectors it reaches. Also a literal
//     longer than MaxConnectorBytes, and the first connector past
//     MaxConnectors.
//   - not a finding: Function used as a value (x instanceof Function,
//     Function.prototype), and any name the script declares itself;
//     console and its five methods (always present: the sandbox captures
//     its logs), and the capability globals api, kv, approval and
//     capabilities.
//
// Uses (Scan, Report.Uses): a free reference to api, kv or approval — or
// globalThis.api and the like — is a use of that capability, whether it is
// a call (kv.set(...), approval.request(...), api['post'](...)) or not (a
// script that passes kv to a helper needs kv granted just the same); a
// reference under typeof is a feature test and is not. A local variable,
// parameter or input named api or kv is the author's and is not a use. The
// connectors are the string-literal first arguments of api's methods.
// Capabilities and connectors are sorted and deduplicated; at most
// MaxConnectors connectors of at most MaxConnectorBytes each are listed,
// so a report stays small whatever the source.
//
// When the parser stops on the reserved word import, the word at the
// position the parser reports is read to say so; that is the only time the
// package looks at the text itself. A source nested deeper than the
// sandbox's builder allows is refused as a syntax error before the parser
// or the walk recurse over it (sandbox.CheckNesting, sandbox.TooDeep).
//
// Where it runs: goja's parser and the walk recurse in Go, and a hostile
// source can make them take seconds, gigabytes, or a stack overflow that
// ends the process. Inspect (the builder's verdict and the findings
// together) is meant to run inside a sandbox worker: services hold a
// Checker — the worker pool, workerpool.Pool — and never call Check or
// Inspect on an author's text themselves. InProcess is for tests and tools.
//
// The package must never decide whether a source is valid JavaScript — the
// sandbox's Compile is the authority; Check's syntax error only says the
// guardrails could not look at the source. It must never inspect user code
// with regular expressions or string searches, and never run it. Columns are
// UTF-16 code units from the line's start plus one, as JavaScript engines
// and editors count them (sandbox.Column); lines count every line
// terminator (\n, \r\n, \r, U+2028, U+2029).
package guardrails
