// The messaging contract (DESIGN.md §5), as the Go package flowjob says it
// in subjects.go, job.go and validate.go. Tests compare these with the Go
// source.

/** The version of the JSON contract this package speaks (flowjob.ContractVersion). */
export const CONTRACT_VERSION = 1;

/** The executor's default SUBJECT_PREFIX: jobs on `<prefix>.jobs.>`, results on `<prefix>.results.<jobId>`. */
export const DEFAULT_SUBJECT_PREFIX = "flowscript";
/** The executor's default RESULTS_STREAM. */
export const DEFAULT_RESULTS_STREAM = "RESULTS";

/** Deduplicates publishes within the JOBS stream's window; its value is the job id. */
export const HEADER_MSG_ID = "Nats-Msg-Id";
/** Names an inbox the executor also sends the result to. */
export const HEADER_REPLY_TO = "Reply-To";
/** Carries CONTRACT_VERSION. */
export const HEADER_VERSION = "Flowscript-Version";
/** W3C trace context. */
export const HEADER_TRACEPARENT = "traceparent";
export const HEADER_TRACESTATE = "tracestate";

/** The subject jobs are published on under a prefix (flowjob.JobsSubject). */
export function jobsSubject(prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  return `${prefix}.jobs.execute`;
}

/** The prefix results are stored under (flowjob.ResultsSubjectPrefix). */
export function resultsSubjectPrefix(prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  return `${prefix}.results`;
}

/**
 * Caps of the contract that the JSON Schema cannot say exactly (it counts
 * characters; these are bytes of UTF-8), from flowjob/validate.go.
 */
export const LIMITS = {
  maxJobBytes: 1 << 20,
  maxIdBytes: 128,
  maxRefBytes: 256,
  maxSourceBytes: 256 << 10,
  maxInputVariables: 128,
  maxInputNameBytes: 128,
  maxNameBytes: 256,
  maxErrorMessageBytes: 4 << 10,
  maxVariables: 4096,
  maxVariablesBytes: 1 << 20,
  maxTokenBytes: 4 << 10,
  /** How deeply resume.resolution may nest arrays and objects (flowjob.MaxResolutionNesting). */
  maxResolutionNesting: 500,
} as const;
