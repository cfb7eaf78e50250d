// Package flowjob is the wire contract between flow engines and FlowScript
// executors: the executeScript job an engine publishes, the result event an
// executor publishes back, the subject and header names, the rules a job must
// satisfy (Validate), and a client that publishes a job and awaits its result.
//
// Engines import this package; it must stay light: its only dependencies are
// nats.go (for the client) and FlowScript's tiny identifier rule
// (internal/jsident, so that an engine's check before publishing and the
// executor's check agree). It never runs a script.
package flowjob
