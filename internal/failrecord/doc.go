// Package failrecord is the failure record of a job whose script failed:
// what the executor keeps of it (Record, New), where (the failures stream,
// read with Load), and how it is run again (Replay), by the flowscript
// replay command and the templates API alike.
//
// A record holds the job as the engine sent it, minus anything that could
// act as a credential, plus the original error and the time limit the run
// had. What it leaves out, and why:
//
//   - resume.token: a signed continuation may resume a suspended job once;
//     a replay never needs it (the resolution is kept).
//   - variables the action never reads: interpolation reads only the
//     variables that inputVariables and errorMessage name, so those are
//     all a replay needs; the rest of the session stays out of the stream.
//
// A job carries no other secret (DESIGN.md §1, §9, §10): capabilities are
// names, connector secrets live in the executor's environment and never in
// a job, and the headers (Reply-To, traceparent) are not kept.
//
// It must never publish a result, and never run a script outside the
// sandbox.Runner it is given.
package failrecord
