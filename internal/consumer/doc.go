// Package consumer is the executor's JetStream side: it provisions the JOBS,
// RESULTS and DLQ streams and the durable pull consumer that every executor
// replica shares, pulls a job only when one of the replica's sandbox slots is
// free, runs it through the action rules (internal/actions) and a
// sandbox.Runner, stores exactly one result event per job id, and settles the
// message with exactly one ack action per outcome.
//
// The guarantees it keeps (DESIGN.md §5):
//
//   - In flight per replica never exceeds Config.Parallel: each slot issues
//     its own pull request for one message, and only when it is idle.
//   - The first result stored for a job id wins, even when the job is
//     redelivered or runs twice at once: results are published with an
//     expected last sequence of 0 on the job's result subject, so the broker
//     refuses a second one ("wrong last sequence"), which the handler treats
//     as "already done" and acks.
//   - A good job is acked only after its result is stored; a bad one is
//     dead-lettered (original payload, reason, delivery count, original
//     headers) before it is terminated, and gets a failed result when it names
//     its job and session ids.
//   - Transient failures (the result store is unreachable, a sandbox worker
//     crashed) are retried with exponential backoff, bounded; the last
//     delivery turns them into a failed result plus a dead letter.
//   - Stopping never burns an attempt on a job it interrupts: the job is
//     negatively acknowledged for redelivery, never terminated.
//
// Every delivery is a "process" span, a child of the engine's traceparent
// in the job headers, with the sandbox run and the result (and dead
// letter) publishes as its children; the stored result carries the trace
// context on. With Options.Metrics it counts finished jobs by outcome and
// code, script durations, publish → result latency, jobs in flight and dead
// letters; Executor.Pending reads the consumer lag. Job log lines are
// logged with the span's context and the job id (package telemetry).
//
// This package must never decide what a script outcome means for a session
// (internal/actions does), never run JavaScript itself (the injected
// sandbox.Runner does), and never mock the broker in its tests.
package consumer
