// Package flowjob is the wire contract between flow engines and FlowScript
// executors: the executeScript job an engine publishes, the result event an
// executor publishes back, the subject and header names (Subjects builds
// every subject), and the rules a job must satisfy (Decode, Validate). The
// engine client that carries them over NATS is package flowclient.
//
// Engines import this package; it must stay light: it depends on the
// standard library and FlowScript's tiny identifier rule (internal/jsident,
// so that an engine's check before publishing and the executor's check
// agree), never on a transport. It never runs a script.
package flowjob
