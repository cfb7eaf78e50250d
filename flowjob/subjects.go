package flowjob

import "strings"

// Subjects and headers of the messaging contract (DESIGN.md §5). Stream names
// are the executor's defaults; deployments may rename them.
const (
	// DefaultSubjectPrefix roots every subject of a default deployment.
	DefaultSubjectPrefix = "flowscript"

	// JobsSubjectPrefix: engines publish jobs on JobsSubjectPrefix + "." + any
	// token (JobsSubject is the default).
	JobsSubjectPrefix = DefaultSubjectPrefix + ".jobs"
	// JobsSubject is the subject the client publishes on.
	JobsSubject = JobsSubjectPrefix + ".execute"
	// ResultsSubjectPrefix: the result of job X is on ResultsSubjectPrefix + "." + X.
	ResultsSubjectPrefix = DefaultSubjectPrefix + ".results"
	// DeadLetterSubjectPrefix: dead letters of job X go to DeadLetterSubjectPrefix + "." + X.
	DeadLetterSubjectPrefix = DefaultSubjectPrefix + ".dlq"

	DefaultJobsStream    = "JOBS"
	DefaultResultsStream = "RESULTS"
	DefaultDLQStream     = "DLQ"
	DefaultConsumer      = "executor"

	// HeaderMsgID deduplicates publishes within the stream's window; its
	// value is the job id.
	HeaderMsgID = "Nats-Msg-Id"
	// HeaderReplyTo names an inbox the executor also sends the result to.
	HeaderReplyTo = "Reply-To"
	// HeaderVersion carries ContractVersion.
	HeaderVersion = "Flowscript-Version"
	// HeaderTraceParent and HeaderTraceState carry the W3C trace context.
	HeaderTraceParent = "traceparent"
	HeaderTraceState  = "tracestate"
)

// Subjects builds every subject of one deployment from its prefix: the one
// place engines (the client) and executors (the consumer) take them from.
// The zero value uses DefaultSubjectPrefix.
type Subjects struct {
	// Prefix roots every subject ("flowscript" when empty).
	Prefix string
}

func (s Subjects) prefix() string {
	if s.Prefix == "" {
		return DefaultSubjectPrefix
	}
	return s.Prefix
}

// Jobs is the subject engines publish jobs on: <prefix>.jobs.execute.
func (s Subjects) Jobs() string { return s.prefix() + ".jobs.execute" }

// JobsFilter is the JOBS stream's subject filter: <prefix>.jobs.>.
func (s Subjects) JobsFilter() string { return s.prefix() + ".jobs.>" }

// Results is the prefix of result subjects: the result of job X is on
// Results() + "." + X.
func (s Subjects) Results() string { return s.prefix() + ".results" }

// ResultsFilter is the RESULTS stream's subject filter.
func (s Subjects) ResultsFilter() string { return s.Results() + ".>" }

// Result is the subject the result of jobID is stored on.
func (s Subjects) Result(jobID string) string { return s.Results() + "." + jobID }

// DeadLettersFilter is the DLQ stream's subject filter.
func (s Subjects) DeadLettersFilter() string { return s.prefix() + ".dlq.>" }

// DeadLetter is the subject a dead letter of jobID goes to; a message that
// named no usable job id (see ValidID) goes to <prefix>.dlq.unknown.
func (s Subjects) DeadLetter(jobID string) string {
	if !ValidID(jobID) {
		jobID = "unknown"
	}
	return s.prefix() + ".dlq." + jobID
}

// FailuresFilter is the failure records stream's subject filter.
func (s Subjects) FailuresFilter() string { return s.prefix() + ".failures.>" }

// Failure is the subject the failure record of jobID (a job whose script
// failed, kept for replay) is stored on: <prefix>.failures.<job id>.
func (s Subjects) Failure(jobID string) string { return s.prefix() + ".failures." + jobID }

// ResultSubject is the subject the result of job id is stored on, with the
// default prefix.
func ResultSubject(jobID string) string { return Subjects{}.Result(jobID) }

// DeadLetterSubject is the subject a dead letter of job id is stored on,
// with the default prefix. An id that is not usable (a message that was not
// a job) goes to "unknown".
func DeadLetterSubject(jobID string) string { return Subjects{}.DeadLetter(jobID) }

// MaxStreamNameBytes bounds a stream or consumer name: the executor derives
// others from them (<JOBS>_JOURNALS, KV_<bucket>), which must stay within
// what brokers accept.
const MaxStreamNameBytes = 64

// ValidStreamName reports whether s can name a stream or a consumer: 1 to
// MaxStreamNameBytes letters, digits, '-' or '_'.
func ValidStreamName(s string) bool {
	if s == "" || len(s) > MaxStreamNameBytes {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// ValidSubjectPrefix reports whether p can root the subjects
// (Subjects.Prefix): dot-separated tokens of at most 256 bytes, without
// wildcards or white space.
func ValidSubjectPrefix(p string) bool {
	if p == "" {
		return false
	}
	for tok := range strings.SplitSeq(p, ".") {
		if tok == "" || len(tok) > 256 || strings.ContainsAny(tok, "*> \t\r\n") {
			return false
		}
	}
	return true
}
