// Package flowjob is the wire contract between flow engines and FlowScript
// executors: the executeScript job an engine publishes, the result event an
// executor publishes back, the subject and header names, the rules a job must
// satisfy (Validate), and a client that publishes a job and awaits its result.
//
// Engines import this package; it must stay light. It never imports anything
// of FlowScript's internals and never runs a script.
package flowjob
