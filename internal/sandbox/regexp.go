package sandbox

import "github.com/dlclark/regexp2/v2"

// goja runs regular expressions that Go's regexp cannot (lookaround,
// backreferences, large repeat counts) on regexp2, and it reads any error
// regexp2 returns as "no match". regexp2 stops a match at a limit of its own
// — a backtracking stack of 100,000 entries by default — so
// /^(?:(?!DROP)[\s\S])*DROP/ was true on 10,000 characters and false on
// 20,000: an author's blocklist check failed open on long input.
//
// The sandbox therefore gives regexp2 no limit of its own, so a match ends
// only with the right answer or by the job's limits, which are reported as
// such (DESIGN.md §3: a regex that hits a limit is a timeout or an error,
// never a silent "no match"):
//   - time: a match runs in native code that Runtime.Interrupt does not
//     reach; in a worker the parent kills it KillMargin after the deadline
//     (SCRIPT_TIMEOUT), and a result that is only ready after the deadline
//     is a timeout anyway (see Program.run);
//   - memory: the backtracking stack grows on the heap, where the worker's
//     watchdog counts it against SANDBOX_MEMORY_MB (SCRIPT_MEMORY_LIMIT).
//
// A MatchTimeout would give regexp2 a time limit, but it too surfaces as
// "no match"; tied to the deadline it would only save the kill of a worker
// now and then, at the cost of a clock goroutine in every worker.
// Patching goja to surface the error was the other choice, declined: a fork
// of the engine to carry for one call site.
//
// The setting is process-wide and made once, before any regular expression
// is compiled: only goja uses regexp2 here.
func init() {
	regexp2.DefaultOptimizationOptions.MaxBacktrackingStackSize = -1
}
