package telemetry

// Metric names as Prometheus shows them on the admin port's /metrics. The
// Grafana dashboard, the HPA and the alert rules in deployments/ use these
// exact names; a test checks them against this list, so renaming one here
// without renaming it there fails the build.
const (
	// MetricJobs counts finished jobs by outcome (succeeded, failed,
	// dead_lettered, retried) and error code ("" on success).
	MetricJobs = "flowscript_jobs_total"
	// MetricSandboxDuration is how long scripts ran, in seconds, by code.
	MetricSandboxDuration = "flowscript_sandbox_duration_seconds"
	// MetricJobLatency is publish → result stored, in seconds.
	MetricJobLatency = "flowscript_job_latency_seconds"
	// MetricInFlight is how many jobs this replica is running now.
	MetricInFlight = "flowscript_jobs_in_flight"
	// MetricWorkerRestarts counts sandbox worker processes replaced, by reason.
	MetricWorkerRestarts = "flowscript_worker_restarts_total"
	// MetricConsumerPending is the consumer's pending (not yet delivered)
	// jobs: the lag autoscaling reads.
	MetricConsumerPending = "flowscript_consumer_pending"
	// MetricDeadLetters counts jobs dead-lettered, by reason.
	MetricDeadLetters = "flowscript_dead_letters_total"
	// MetricPullErrors counts pulls that failed (not the empty pulls of an
	// idle queue), by reason.
	MetricPullErrors = "flowscript_pull_errors_total"
	// MetricLeftoversRemoved counts answered jobs removed from JOBS below
	// the consumer's ack floor (left there by a nats-server 2.9 crash).
	MetricLeftoversRemoved = "flowscript_leftover_jobs_removed_total"
	// MetricFailureRecords counts the failure records of jobs whose script
	// failed, by outcome (FailureRecordOutcomes).
	MetricFailureRecords = "flowscript_failure_records_total"
)

// MetricNames lists every metric the executor exports.
var MetricNames = []string{
	MetricJobs, MetricSandboxDuration, MetricJobLatency, MetricInFlight,
	MetricWorkerRestarts, MetricConsumerPending, MetricDeadLetters,
	MetricPullErrors, MetricLeftoversRemoved, MetricFailureRecords,
}

// Metric label keys. Prometheus shows them as they are written here.
const (
	// LabelOutcome is the outcome of a finished job (one of the Outcome
	// values).
	LabelOutcome = "outcome"
	// LabelCode is the error code of a failed job or script ("" on success).
	LabelCode = "code"
	// LabelReason says why a worker was restarted, a job dead-lettered or
	// a pull failed.
	LabelReason = "reason"
)

// FailureRecordOutcomes are the values of LabelOutcome on
// MetricFailureRecords: stored in the failures stream, failed (the
// publish was refused, timed out or could not be queued), too_large (over
// the broker's payload limit: not kept).
var FailureRecordOutcomes = []string{"stored", "failed", "too_large"}

// DeadLetterReasons are the values of LabelReason on MetricDeadLetters:
// the codes after which a job never runs again (actions' dead-letter
// codes; a test holds the two lists equal).
var DeadLetterReasons = []string{"INVALID_JOB", "DELIVERY_EXHAUSTED", "SANDBOX_CRASH"}

// WorkerRestartReasons are the values of LabelReason on MetricWorkerRestarts
// (the worker pool's reasons for replacing a worker).
var WorkerRestartReasons = []string{"crash", "protocol", "memory", "timeout", "retired", "panic"}

// PullErrorReasons are the values of LabelReason on MetricPullErrors.
var PullErrorReasons = []string{"disconnected", "consumer_missing", "no_responders", "other"}

// Outcomes of a job, the values of LabelOutcome and of the span attribute
// AttrJobOutcome.
const (
	OutcomeSucceeded    = "succeeded"
	OutcomeFailed       = "failed"
	OutcomeDeadLettered = "dead_lettered"
	OutcomeRetried      = "retried"
	// OutcomeSuspended: the script asked for approval and paused (its
	// result is StatusSuspended, DESIGN.md §10): no failure.
	OutcomeSuspended = "suspended"
	// OutcomeInterrupted: the replica stopped and handed the job back; the
	// delivery does not count as one of the job's attempts.
	OutcomeInterrupted = "interrupted"
)

// Span attribute keys FlowScript adds to the OpenTelemetry messaging
// conventions (the semconv package has the standard ones).
const (
	// AttrJobOutcome is the outcome of the job or of the script run.
	AttrJobOutcome = "flowscript.job.outcome"
	// AttrDeliveryCount is how many times JetStream delivered the message
	// (1 on the first delivery). NATS has no key of its own in semconv.
	AttrDeliveryCount = "messaging.nats.message.delivery_count"
)

// Log attribute keys every job line carries.
const (
	LogKeyTraceID = "trace_id"
	LogKeySpanID  = "span_id"
	// LogKeyJobID is added by callers: logger.With(LogKeyJobID, job.ID).
	LogKeyJobID = "job_id"
)
