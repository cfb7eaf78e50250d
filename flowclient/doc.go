// Package flowclient is the engine side of FlowScript's messaging contract
// (DESIGN.md §5): it publishes an executeScript job to the JOBS stream with
// the contract's headers (Nats-Msg-Id = job id, Reply-To, the contract
// version, trace context through a hook) and awaits its result event: from
// the Reply-To inbox first, from the RESULTS stream as a fallback (a lost
// reply, a late executor, a re-published job). The wire types are package
// flowjob's, which has no transport; this package brings nats.go.
//
// Results is the one result look-up: the executor answers a redelivered
// job through it too.
//
// It must never run a script or decide a job's outcome; it only carries
// jobs and results.
package flowclient
