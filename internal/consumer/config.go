package consumer

import (
	"errors"
	"fmt"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/failrecord"
)

// Config names the streams and the consumer and sets their limits. The zero
// value is not usable: call WithDefaults, then Validate.
type Config struct {
	// JobsStream, ResultsStream and DLQStream are the stream names.
	JobsStream    string
	ResultsStream string
	DLQStream     string
	// Consumer is the durable pull consumer all replicas share.
	Consumer string
	// SubjectPrefix roots every subject: jobs on <prefix>.jobs.>, results on
	// <prefix>.results.<job id>, dead letters on <prefix>.dlq.<job id>. The
	// default, "flowscript", is what engines using package flowjob publish on.
	SubjectPrefix string

	// Parallel is how many jobs this replica runs at once
	// (SANDBOX_MAX_PARALLEL); each slot pulls one job only when it is idle.
	Parallel int
	// ScriptTimeout is the sandbox's time limit (SANDBOX_TIMEOUT_MS). It is
	// the upper bound of a job's run and sets the default AckWait.
	ScriptTimeout time.Duration
	// MaxDeliver bounds the attempts of one job. The executor, not the
	// broker, keeps this budget (the consumer redelivers without limit): a
	// transient failure on the last attempt, or a delivery past it (the
	// replica running the last attempt died), ends in a failed
	// DELIVERY_EXHAUSTED result and a dead letter. Deliveries interrupted
	// by a replica's shutdown do not count, up to MaxDeliver of them.
	MaxDeliver int
	// AckWait is how long the broker waits for an ack before redelivering.
	// Default: 3 × ScriptTimeout, at least 30s.
	AckWait time.Duration
	// ProgressInterval is how often a running job tells the broker it is
	// still in progress (so long retries do not exceed AckWait). Default
	// AckWait/3; negative disables progress acks.
	ProgressInterval time.Duration
	// DuplicateWindow is the JOBS stream's deduplication window on
	// Nats-Msg-Id (the job id).
	DuplicateWindow time.Duration
	// JobsMaxMsgs and JobsMaxBytes bound the JOBS stream; when full, new
	// publishes are refused (discard new) so the engine sees back-pressure.
	JobsMaxMsgs  int64
	JobsMaxBytes int64
	// ResultsMaxAge and DLQMaxAge are how long results and dead letters are
	// kept. A result must outlive any redelivery of its job: keep
	// ResultsMaxAge well above MaxDeliver × AckWait.
	ResultsMaxAge time.Duration
	DLQMaxAge     time.Duration
	// ResultsMaxBytes, ResultsMaxMsgs, DLQMaxBytes and DLQMaxMsgs bound the
	// RESULTS and DLQ streams (-1: no limit); past them the oldest messages
	// go, so a flood of bad input cannot fill the disk JOBS shares.
	ResultsMaxBytes int64
	ResultsMaxMsgs  int64
	DLQMaxBytes     int64
	DLQMaxMsgs      int64
	// FailuresMaxAge, FailuresMaxBytes and FailuresMaxMsgs bound the
	// failures stream (FailuresStream): the records of jobs whose script
	// failed, kept for replay. Past them the oldest records go (-1: no
	// limit for bytes and messages).
	FailuresMaxAge   time.Duration
	FailuresMaxBytes int64
	FailuresMaxMsgs  int64
	// NoFailureRecords turns the failure records off (FAILURE_RECORDS=off),
	// for deployments that may not keep session variables past the job:
	// no failures stream is provisioned and nothing is published to one
	// that exists (it is left as it is, for its records to age out).
	NoFailureRecords bool
	// ContinuationTTL is how long a suspended job can be resumed
	// (CONTINUATION_TTL): its token's lifetime and its journal's, in the
	// journals bucket.
	ContinuationTTL time.Duration
	// Replicas is the number of stream replicas in a clustered broker.
	Replicas int
	// ResultLookup says which deliveries look their job's result up before
	// running it. The default, LookupAuto, is every delivery when Replicas
	// is above 1 and redeliveries only otherwise (see ResultLookup).
	ResultLookup ResultLookup
	// MaxJobBytes caps a job message; a larger one is dead-lettered.
	MaxJobBytes int
	// MaxAckPending bounds the jobs in flight across all replicas
	// (MAX_ACK_PENDING).
	MaxAckPending int

	// HealthInterval is how often the replica asks the broker about its
	// consumer; /readyz turns 503 when no answer came for 3 intervals.
	HealthInterval time.Duration
	// LeftoverSweepInterval is how often the replica looks for jobs left in
	// JOBS below the consumer's ack floor (see sweepLeftovers).
	LeftoverSweepInterval time.Duration

	// PullWait is how long one idle slot's pull request waits for a job.
	// It bounds how long stopping takes when the replica is idle.
	PullWait time.Duration
	// ShutdownGrace is how long in-flight jobs may run once stopping starts;
	// jobs still running after it are interrupted and redelivered.
	ShutdownGrace time.Duration
	// StoreRetryMaxElapsed bounds the retries of one store or dead-letter
	// publish inside one delivery.
	StoreRetryMaxElapsed time.Duration
	// CrashRetries is how many times one delivery reruns a job whose sandbox
	// worker crashed. A job that still crashes it is failed (SANDBOX_CRASH)
	// and dead-lettered: a job that kills its worker every time is poison,
	// not bad luck, and rerunning it until its attempts run out only
	// delays its answer.
	CrashRetries int
	// RedeliveryDelay is the first delay of a job handed back after a
	// transient failure; it doubles per delivery up to MaxRedeliveryDelay.
	RedeliveryDelay    time.Duration
	MaxRedeliveryDelay time.Duration
}

// ResultLookup says which deliveries of a job look its result up in
// RESULTS before running it; a job whose result is stored is answered
// from the store and never runs again.
//
// A redelivery always looks up: an earlier delivery may have stored the
// result and lost its ack. A first delivery (NumDelivered 1) can be a job
// that was already answered too, on a cluster: a replica's copy of JOBS
// that missed the acks while its node was down (nats-server 2.9 keeps
// such jobs), or a consumer whose state went back to an earlier point at
// a leader change, delivers a finished job again as if for the first
// time. On one server that does not happen, and the lookup would cost a
// round trip per job for nothing.
type ResultLookup int

const (
	// LookupAuto is LookupEveryDelivery when Replicas > 1, and
	// LookupRedeliveries otherwise.
	LookupAuto ResultLookup = iota
	// LookupRedeliveries looks up only when NumDelivered > 1.
	LookupRedeliveries
	// LookupEveryDelivery looks up before every run.
	LookupEveryDelivery
)

// LooksUpEveryDelivery reports whether a first delivery looks its result
// up too (see ResultLookup).
func (c Config) LooksUpEveryDelivery() bool {
	if c.ResultLookup == LookupAuto {
		return c.Replicas > 1
	}
	return c.ResultLookup == LookupEveryDelivery
}

// Defaults.
const (
	DefaultMaxDeliver            = 5
	DefaultDuplicateWindow       = 5 * time.Minute
	DefaultJobsMaxMsgs           = 1_000_000
	DefaultJobsMaxBytes          = 1 << 30
	DefaultResultsMaxAge         = 24 * time.Hour
	DefaultContinuationTTL       = 24 * time.Hour
	DefaultDLQMaxAge             = 14 * 24 * time.Hour
	DefaultResultsMaxBytes       = 2 << 30
	DefaultResultsMaxMsgs        = 5_000_000
	DefaultDLQMaxBytes           = 512 << 20
	DefaultDLQMaxMsgs            = 100_000
	DefaultFailuresMaxAge        = 7 * 24 * time.Hour
	DefaultFailuresMaxBytes      = 256 << 20
	DefaultFailuresMaxMsgs       = 50_000
	DefaultHealthInterval        = 2 * time.Second
	DefaultLeftoverSweepInterval = time.Minute
	DefaultMaxJobBytes           = flowjob.MaxJobBytes
	DefaultMaxAckPending         = 1000
	DefaultPullWait              = time.Second
	DefaultShutdownGrace         = 30 * time.Second
	DefaultStoreRetryMaxElapsed  = 10 * time.Second
	DefaultCrashRetries          = 1
	DefaultRedeliveryDelay       = time.Second
	DefaultMaxRedeliveryDelay    = 30 * time.Second
	DefaultSubjectPrefix         = flowjob.DefaultSubjectPrefix
	minAckWait                   = 30 * time.Second
)

// WithDefaults returns c with every unset field set to its default.
func (c Config) WithDefaults() Config {
	setString(&c.JobsStream, flowjob.DefaultJobsStream)
	setString(&c.ResultsStream, flowjob.DefaultResultsStream)
	setString(&c.DLQStream, flowjob.DefaultDLQStream)
	setString(&c.Consumer, flowjob.DefaultConsumer)
	setString(&c.SubjectPrefix, DefaultSubjectPrefix)
	setInt(&c.Parallel, 8)
	setDuration(&c.ScriptTimeout, 5*time.Second)
	setInt(&c.MaxDeliver, DefaultMaxDeliver)
	setDuration(&c.AckWait, max(3*c.ScriptTimeout, minAckWait))
	setDuration(&c.ProgressInterval, c.AckWait/3)
	setDuration(&c.DuplicateWindow, DefaultDuplicateWindow)
	setInt64(&c.JobsMaxMsgs, DefaultJobsMaxMsgs)
	setInt64(&c.JobsMaxBytes, DefaultJobsMaxBytes)
	setDuration(&c.ResultsMaxAge, DefaultResultsMaxAge)
	setDuration(&c.DLQMaxAge, DefaultDLQMaxAge)
	setDuration(&c.ContinuationTTL, DefaultContinuationTTL)
	setInt64(&c.ResultsMaxBytes, DefaultResultsMaxBytes)
	setInt64(&c.ResultsMaxMsgs, DefaultResultsMaxMsgs)
	setInt64(&c.DLQMaxBytes, DefaultDLQMaxBytes)
	setInt64(&c.DLQMaxMsgs, DefaultDLQMaxMsgs)
	setDuration(&c.FailuresMaxAge, DefaultFailuresMaxAge)
	setInt64(&c.FailuresMaxBytes, DefaultFailuresMaxBytes)
	setInt64(&c.FailuresMaxMsgs, DefaultFailuresMaxMsgs)
	setDuration(&c.HealthInterval, DefaultHealthInterval)
	setDuration(&c.LeftoverSweepInterval, DefaultLeftoverSweepInterval)
	setInt(&c.Replicas, 1)
	setInt(&c.MaxJobBytes, DefaultMaxJobBytes)
	setInt(&c.MaxAckPending, DefaultMaxAckPending)
	setDuration(&c.PullWait, DefaultPullWait)
	setDuration(&c.ShutdownGrace, DefaultShutdownGrace)
	setDuration(&c.StoreRetryMaxElapsed, DefaultStoreRetryMaxElapsed)
	setInt(&c.CrashRetries, DefaultCrashRetries)
	setDuration(&c.RedeliveryDelay, DefaultRedeliveryDelay)
	setDuration(&c.MaxRedeliveryDelay, DefaultMaxRedeliveryDelay)
	return c
}

// Validate reports every field out of range, naming its environment
// variable where it has one.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	for _, n := range []struct{ env, value string }{
		{"JOBS_STREAM", c.JobsStream}, {"RESULTS_STREAM", c.ResultsStream},
		{"DLQ_STREAM", c.DLQStream}, {"CONSUMER_NAME", c.Consumer},
	} {
		check(flowjob.ValidStreamName(n.value), "%s must be a name of letters, digits, '-' or '_', got %q", n.env, n.value)
	}
	check(c.JobsStream != c.ResultsStream && c.JobsStream != c.DLQStream && c.ResultsStream != c.DLQStream,
		"JOBS_STREAM, RESULTS_STREAM and DLQ_STREAM must be three different names, got %q, %q and %q",
		c.JobsStream, c.ResultsStream, c.DLQStream)
	check(flowjob.ValidSubjectPrefix(c.SubjectPrefix), "SUBJECT_PREFIX must be dot-separated tokens without wildcards or spaces, got %q", c.SubjectPrefix)
	check(c.Parallel >= 1, "SANDBOX_MAX_PARALLEL must be at least 1, got %d", c.Parallel)
	check(c.ScriptTimeout > 0, "SANDBOX_TIMEOUT_MS must be positive, got %s", c.ScriptTimeout)
	check(c.MaxDeliver >= 1 && c.MaxDeliver <= 100, "MAX_DELIVER must be between 1 and 100, got %d", c.MaxDeliver)
	check(c.AckWait > c.ScriptTimeout, "ACK_WAIT (%s) must be above the script timeout SANDBOX_TIMEOUT_MS (%s), or jobs are redelivered while they run",
		c.AckWait, c.ScriptTimeout)
	check(c.ProgressInterval < c.AckWait, "the progress interval (%s) must be below ACK_WAIT (%s)", c.ProgressInterval, c.AckWait)
	check(c.DuplicateWindow >= time.Second, "DUPLICATE_WINDOW must be at least 1s, got %s", c.DuplicateWindow)
	check(c.JobsMaxMsgs >= 1 || c.JobsMaxMsgs == -1, "JOBS_MAX_MSGS must be positive (or -1 for no limit), got %d", c.JobsMaxMsgs)
	check(c.JobsMaxBytes >= 1 || c.JobsMaxBytes == -1, "JOBS_MAX_BYTES must be positive (or -1 for no limit), got %d", c.JobsMaxBytes)
	for _, n := range []struct {
		env   string
		value int64
	}{
		{"RESULTS_MAX_BYTES", c.ResultsMaxBytes}, {"RESULTS_MAX_MSGS", c.ResultsMaxMsgs},
		{"DLQ_MAX_BYTES", c.DLQMaxBytes}, {"DLQ_MAX_MSGS", c.DLQMaxMsgs},
		{"FAILURES_MAX_BYTES", c.FailuresMaxBytes}, {"FAILURES_MAX_MSGS", c.FailuresMaxMsgs},
	} {
		check(n.value >= 1 || n.value == -1, "%s must be positive (or -1 for no limit), got %d", n.env, n.value)
	}
	check(c.HealthInterval >= 10*time.Millisecond, "the health check interval must be at least 10ms, got %s", c.HealthInterval)
	check(c.LeftoverSweepInterval >= c.HealthInterval, "the leftover sweep interval (%s) must be at least the health interval (%s)",
		c.LeftoverSweepInterval, c.HealthInterval)
	check(c.ResultsMaxAge >= time.Minute, "RESULTS_MAX_AGE must be at least 1m, got %s", c.ResultsMaxAge)
	check(c.ResultsMaxAge >= c.DuplicateWindow, "RESULTS_MAX_AGE (%s) must be at least DUPLICATE_WINDOW (%s): an engine's retry after its result expired but within the window "+
		"would be dropped as a duplicate and never answered", c.ResultsMaxAge, c.DuplicateWindow)
	check(c.DLQMaxAge >= time.Minute, "DLQ_MAX_AGE must be at least 1m, got %s", c.DLQMaxAge)
	check(c.FailuresMaxAge >= time.Minute, "FAILURES_MAX_AGE must be at least 1m, got %s", c.FailuresMaxAge)
	check(c.FailuresStream() != c.ResultsStream && c.FailuresStream() != c.DLQStream,
		"RESULTS_STREAM and DLQ_STREAM must not be %q: that is the failures stream of JOBS_STREAM %q", c.FailuresStream(), c.JobsStream)
	check(c.ContinuationTTL >= time.Second, "CONTINUATION_TTL must be at least 1s, got %s", c.ContinuationTTL)
	check(c.Replicas >= 1 && c.Replicas <= 5, "STREAM_REPLICAS must be between 1 and 5, got %d", c.Replicas)
	check(c.ResultLookup >= LookupAuto && c.ResultLookup <= LookupEveryDelivery, "the result lookup policy %d is unknown", c.ResultLookup)
	check(c.MaxJobBytes >= 1024 && c.MaxJobBytes <= flowjob.MaxJobBytes,
		"MAX_JOB_BYTES must be between 1024 and %d (the contract's cap), got %d", flowjob.MaxJobBytes, c.MaxJobBytes)
	check(c.MaxAckPending >= c.Parallel, "MAX_ACK_PENDING (%d) must be at least SANDBOX_MAX_PARALLEL (%d): it caps the jobs in flight across all replicas", c.MaxAckPending, c.Parallel)
	check(c.PullWait >= 10*time.Millisecond, "the pull wait must be at least 10ms, got %s", c.PullWait)
	check(c.ShutdownGrace >= 0, "SHUTDOWN_GRACE must not be negative, got %s", c.ShutdownGrace)
	check(c.StoreRetryMaxElapsed > 0, "the store retry budget must be positive, got %s", c.StoreRetryMaxElapsed)
	check(c.CrashRetries >= 0, "the crash retries must not be negative, got %d", c.CrashRetries)
	check(c.RedeliveryDelay > 0 && c.MaxRedeliveryDelay >= c.RedeliveryDelay,
		"the redelivery delays must be positive with the maximum (%s) at least the first (%s)", c.MaxRedeliveryDelay, c.RedeliveryDelay)
	return errors.Join(errs...)
}

// Subjects builds the subjects of this deployment's prefix.
func (c Config) Subjects() flowjob.Subjects { return flowjob.Subjects{Prefix: c.SubjectPrefix} }

// InterruptionsBucket is the key-value bucket where a replica that hands a
// job back at shutdown notes it, so the interruption does not count as one
// of the job's attempts (see MaxDeliver).
func (c Config) InterruptionsBucket() string { return c.JobsStream + "_INTERRUPTED" }

// JournalsBucket is the key-value bucket where suspended jobs' journals
// and the claims on their continuations are kept (DESIGN.md §10).
func (c Config) JournalsBucket() string { return c.JobsStream + "_JOURNALS" }

// DLQDuplicateWindow is the DLQ stream's deduplication window: the same
// dead letter stored again by a redelivery whose first term was lost is
// dropped. It is longer than AckWait, the delay before such a redelivery.
// It never exceeds DLQMaxAge, which the broker requires.
func (c Config) DLQDuplicateWindow() time.Duration {
	return min(max(c.DuplicateWindow, 3*c.AckWait), c.DLQMaxAge)
}

// FailuresStream is the stream of failure records: the jobs whose script
// failed, kept for replay (failrecord.StreamName).
func (c Config) FailuresStream() string { return failrecord.StreamName(c.JobsStream) }

// FailuresDuplicateWindow is the failures stream's deduplication window
// (on the job id): a redelivered job whose result was stored again is
// recorded once. It never exceeds FailuresMaxAge.
func (c Config) FailuresDuplicateWindow() time.Duration {
	return min(2*time.Minute, c.FailuresMaxAge)
}

// Streams names every stream the executor provisions (the key-value
// bucket's too), for operators and for tests that clean up.
func (c Config) Streams() []string {
	return []string{c.JobsStream, c.ResultsStream, c.DLQStream, c.FailuresStream(), "KV_" + c.InterruptionsBucket(), "KV_" + c.JournalsBucket()}
}

func setString(dst *string, def string) {
	if *dst == "" {
		*dst = def
	}
}

func setInt(dst *int, def int) {
	if *dst == 0 {
		*dst = def
	}
}

func setInt64(dst *int64, def int64) {
	if *dst == 0 {
		*dst = def
	}
}

func setDuration(dst *time.Duration, def time.Duration) {
	if *dst == 0 {
		*dst = def
	}
}

// ShutdownGraceString is ShutdownGrace as logs show it: "0s" for no grace,
// which is kept as 1 ns (0 would be the default's 30 s).
func (c Config) ShutdownGraceString() string {
	if c.ShutdownGrace <= time.Nanosecond {
		return "0s"
	}
	return c.ShutdownGrace.String()
}
