// Package consumer is the executor's JetStream side: it provisions the JOBS,
// RESULTS and DLQ streams and the durable pull consumer that every executor
// replica shares, pulls a job only when one of the replica's sandbox slots is
// free, runs it through the action rules (internal/actions) and a
// sandbox.Runner, stores exactly one result event per job id, and settles the
// message with exactly one ack action per outcome.
//
// A delivery's walk reads top-down (job_handler.go): one report
// (jobHandler.attempt: bad input, already answered, out of attempts, past
// its deadline, or the sandbox's run), one verdict
// (actions.Policy.Decide), one commit (jobHandler.commit: the result
// stored and sent to Reply-To, the dead letter), one outcome that gives
// the ack action, the log label and the metric labels (outcome.go).
//
// The guarantees it keeps (DESIGN.md §5):
//
//   - In flight per replica never exceeds Config.Parallel: the dispatcher
//     asks for as many jobs as sandbox slots are idle and not yet covered by
//     an open pull request, in one request on one of its long-lived reply
//     subscriptions (puller.go), and hands each job to an idle slot. From 8
//     slots it waits until a quarter of them are uncovered before it asks,
//     or pullBatchWait (2 ms) at most: under a backlog that halves the pull
//     requests at the default 8 (dispatcher.batched). A job
//     gives its slot back once its script has run: its result is stored and
//     its ack confirmed while the slot's worker runs the next job, so a
//     replica holds at most Parallel jobs in its slots and as many again
//     storing their results, and never a job waiting for a worker
//     (Executor.handlers).
//   - The first result stored for a job id wins, even when the job is
//     redelivered or runs twice at once: results are published with an
//     expected last sequence of 0 on the job's result subject, so the broker
//     refuses a second one ("wrong last sequence"), which the handler treats
//     as "already done". A redelivered job whose result is stored is
//     answered from the store without running again, and its Reply-To inbox
//     is told only when the stored result has not told that inbox already.
//     A store whose answer was lost (a leader change) but which stored the
//     result after all knows it for its own by a writer token stored with
//     it: its inbox is told, as for any first store.
//   - On a cluster (Replicas above 1) every delivery, not only a
//     redelivery, looks its result up before running (ResultLookup): a
//     replica whose copy of JOBS missed the acks while its node was down
//     (nats-server 2.9 keeps such jobs), or a consumer whose state went
//     back at a leader change, can deliver a finished job as if for the
//     first time, and it must not run twice. The lookup is one round trip
//     to the RESULTS leader; BenchmarkResultLookup measured it at 7–27 % of
//     a 3-node cluster's throughput (2.9 and 2.15, four runs) for a 100 µs
//     script on one 2-core machine that also runs the three brokers: a
//     price for trivial scripts on starved brokers, less where scripts take
//     longer or brokers have their own cores. Direct gets from any replica
//     (AllowDirect) measured no cheaper. One server does not deliver
//     finished jobs again, so it looks up on redeliveries only — but for a
//     job that may act on the world (it asks for capabilities, or resumes
//     a continuation), which looks up on its first delivery too: published
//     again after the duplicate window, as an engine retrying with the same
//     id does, it is answered from the store and its host calls never run
//     twice.
//   - A good job is acked only after its result is stored; a bad one (not
//     JSON, too large, breaking the contract) is answered with INVALID_JOB
//     under its id — or its Nats-Msg-Id when the body names none — and
//     dead-lettered (original payload, reason, delivery count, original
//     headers) before it is terminated. Acks and terms after a stored result
//     or dead letter are confirmed by the broker and retried across leader
//     changes; the DLQ deduplicates a dead letter written twice on the
//     job's stream sequence for longer than AckWait.
//   - A job whose script failed (failrecord.ScriptFailure) also leaves a
//     failure record in Config.FailuresStream, for replay
//     (failure_records.go): after its result, published asynchronously,
//     best effort (a record that cannot be kept is logged and counted,
//     never retried, never a reason to redeliver). The record keeps no
//     continuation token and only the variables the action reads. With
//     Config.NoFailureRecords there are none, and no failures stream.
//   - The executor owns the delivery budget: the consumer redelivers
//     without limit, and a job past MaxDeliver attempts — or whose last
//     attempt failed for a transient reason — is failed with
//     DELIVERY_EXHAUSTED and dead-lettered. Whatever happens to a delivery
//     (a shutdown, a worker crash, kill -9 of the replica, a lost ack, a
//     broker restart, a store that fails on the last attempt) the job is
//     delivered again until it has a stored result or a dead letter. A last
//     attempt whose result the store refused notes the refusal beside the
//     interruptions (key "<stream sequence>.failure"), and the result and
//     dead letter that end the job quote it.
//   - Stopping never burns an attempt on a job it interrupts: the job is
//     handed back and the interruption noted in a key-value bucket
//     (Config.InterruptionsBucket) that the attempt count leaves out, up to
//     MaxDeliver interruptions.
//   - A sandbox worker crash reruns the job once at once; a job that crashes
//     its worker again is poison: failed with SANDBOX_CRASH and
//     dead-lettered, not rerun until its attempts run out.
//   - Streams and the consumer are provisioned with retries (a broker that
//     is down or electing a leader is waited for), idempotently, by many
//     replicas at once. A replica applies its settings when it starts
//     (ApplyConfig: in a rollout the newest replica's win); re-provisioning
//     later only recreates what is missing (CreateMissing), so replicas of
//     two versions never overwrite each other's settings back and forth.
//     Provisioning creates first and looks up only when the create fails:
//     on a cluster, a stream another replica has just created answers no
//     lookup until its leader is elected, so replicas started together
//     waited out call timeouts (19 s for five replicas on 2.9; 1–6 s now).
//   - Readiness asks the leaders of the jobs stream and of the consumer
//     about their state every HealthInterval: a pull that times out looks
//     the same on an idle queue, on a dead connection and on a cluster
//     without a leader; an answer does not. Failed pulls are counted
//     (flowscript_pull_errors_total), empty ones are not.
//   - A run that asks for approval (DESIGN.md §10) is stored as a suspended
//     result only after its journal is in the journals bucket
//     (Config.JournalsBucket) and its continuation is signed
//     (Options.Continuations); a resume job is run only after its
//     continuation verified, matched its step and source, and was claimed
//     for it (package continuation) — a redelivery of the same resume job
//     claims it again, any other job gets CONTINUATION_USED.
//   - Jobs a nats-server before 2.10 leaves in JOBS below the ack floor
//     after a crash are removed when their result is stored, reported
//     otherwise (leftovers.go).
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
