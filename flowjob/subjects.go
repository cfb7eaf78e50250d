package flowjob

// Subjects and headers of the messaging contract (DESIGN.md §5). Stream names
// are the executor's defaults; deployments may rename them.
const (
	// JobsSubjectPrefix: engines publish jobs on JobsSubjectPrefix + "." + any
	// token (JobsSubject is the default).
	JobsSubjectPrefix = "flowscript.jobs"
	// JobsSubject is the subject the client publishes on.
	JobsSubject = JobsSubjectPrefix + ".execute"
	// ResultsSubjectPrefix: the result of job X is on ResultsSubjectPrefix + "." + X.
	ResultsSubjectPrefix = "flowscript.results"
	// DeadLetterSubjectPrefix: dead letters of job X go to DeadLetterSubjectPrefix + "." + X.
	DeadLetterSubjectPrefix = "flowscript.dlq"

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

// ResultSubject is the subject the result of job id is stored on.
func ResultSubject(jobID string) string { return ResultsSubjectPrefix + "." + jobID }

// DeadLetterSubject is the subject a dead letter of job id is stored on.
// An empty id (a message that was not a job) goes to "unknown".
func DeadLetterSubject(jobID string) string {
	if jobID == "" {
		jobID = "unknown"
	}
	return DeadLetterSubjectPrefix + "." + jobID
}
