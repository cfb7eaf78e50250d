// The job and the result event (flowjob/job.go, flowjob/result.go), field
// for field. The JSON Schemas in flowjob/schema are the contract; the
// tests check these types' fields and enums against them.

/** What a failed script does to the session. */
export const ON_ERROR = ["blocking", "continue"] as const;
export type OnError = (typeof ON_ERROR)[number];

/** Where the action runs: a flow block, or a step of a Tool. */
export const CONTEXTS = ["flow", "tool"] as const;
export type JobContext = (typeof CONTEXTS)[number];

export const ACTION_TYPE_EXECUTE_SCRIPT = "executeScript";

/** Host functions a job may ask for (DESIGN.md §9); console needs none. */
export const CAPABILITIES = ["api", "kv", "approval"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** A script parameter: name in the script's scope, value a `{{...}}` template. */
export interface InputVariable {
  name: string;
  value: string;
}

/** The executeScript action, field for field as the flow platform defines it. */
export interface ExecuteScriptAction {
  type: typeof ACTION_TYPE_EXECUTE_SCRIPT;
  /** A whole file that declares `function execute(...)`, or the body of execute. */
  source: string;
  /** The script's parameters, in order; `[]` when it takes none. */
  inputVariables: InputVariable[] | null;
  /** The session variable the script's result is written to. */
  outputVariable: string;
  /** The session variable the error message is written to on failure. */
  errorVariable?: string | null;
  onError: OnError;
  /** Template of the message sent to the contact on a blocking failure. */
  errorMessage?: string | null;
  /** Blocking, in a flow: absent/true freezes and hands off; false redirects to defaultExceptionBlockId. */
  errorHandoff?: boolean | null;
}

/** One executeScript step to run for one session. */
export interface Job {
  /** Contract version; absent means 1. */
  version?: number | null;
  /** Unique: 1 to 128 ASCII letters, digits, '-' or '_' (a UUID will do). */
  id: string;
  sessionId: string;
  flowId: string;
  blockId: string;
  context: JobContext;
  action: ExecuteScriptAction;
  /** The session's variables by name (dotted names are plain keys). */
  variables?: Record<string, string> | null;
  /** Required in a flow when onError is blocking and errorHandoff is false. */
  defaultExceptionBlockId?: string | null;
  /** Shortens the executor's script time limit; never raises it. */
  timeoutMs?: number | null;
  /** RFC 3339 instant after which the job fails without running, and at which a running script is stopped (JOB_DEADLINE_EXCEEDED). */
  deadline?: string | null;
  /** The tenant the job runs for: capabilities are granted per tenant, kv is scoped to it. */
  tenantId?: string | null;
  /** Host functions the step asks for; the executor grants those its policy allows the tenant. */
  capabilities?: Capability[] | null;
  /** Continues a suspended job (DESIGN.md §10): same source, session and block. */
  resume?: Resume | null;
  /** The script template the action's source was taken from: provenance only, copied onto a failed result. */
  templateId?: string | null;
  /** The version of templateId the source is (1 for the first); needs templateId. */
  templateVersion?: number | null;
}

/** What a resume job carries: the suspended result's continuation and the answer. */
export interface Resume {
  /** The suspended result's continuation, as the executor gave it. */
  token: string;
  /** Any JSON value, null included: what approval.request returns on replay. */
  resolution: unknown;
}

/** suspended: the script asked for approval; resume with the result's continuation. */
export const STATUSES = ["succeeded", "failed", "suspended"] as const;
export type ResultStatus = (typeof STATUSES)[number];

/** What the engine does with the session next. */
export const DIRECTIVE_TYPES = ["continue", "freeze_handoff", "redirect", "throw", "suspend"] as const;
export type DirectiveType = (typeof DIRECTIVE_TYPES)[number];

/** The error codes a result can carry (DESIGN.md §3, flowjob/result.go). */
export const ERROR_CODES = [
  "SCRIPT_ERROR",
  "SCRIPT_SYNTAX_ERROR",
  "SCRIPT_TIMEOUT",
  "SCRIPT_MEMORY_LIMIT",
  "SCRIPT_ASYNC_UNSUPPORTED",
  "SANDBOX_BUSY",
  "OUTPUT_TOO_LARGE",
  "INVALID_JOB",
  "SANDBOX_CRASH",
  "JOB_DEADLINE_EXCEEDED",
  "DELIVERY_EXHAUSTED",
  "CAPABILITY_DENIED",
  "HOST_CALL_LIMIT",
  "INVALID_CONTINUATION",
  "CONTINUATION_USED",
  "CONTINUATION_SOURCE_MISMATCH",
  "CONTINUATION_DIVERGED",
] as const;
/** A known code, or one added by a newer executor. */
export type ErrorCode = (typeof ERROR_CODES)[number] | (string & {});

/** The executor's decision for the session. */
export interface Directive {
  /** continue: set the variables and go on; freeze_handoff: freeze and hand off to a human with message; redirect: send message and go to blockId; throw: rethrow message to the Tool's caller; suspend: wait for approval. */
  type: DirectiveType;
  blockId?: string;
  message?: string;
  /** A suspend directive's approval request, as the script gave it. */
  request?: unknown;
}

/** Why a job failed; line and column are 1-based in the author's source. */
export interface ResultError {
  code: ErrorCode;
  message: string;
  line?: number;
  column?: number;
  /** The author's own code of a structured failure ({success: false, error: {code, message}}). */
  reason?: string;
}

export const LOG_LEVELS = ["debug", "info", "log", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One console line of the script. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  /** The author's line it was written from. */
  line?: number;
}

/** The one event an executor publishes per job. */
export interface Result {
  version: number;
  jobId: string;
  sessionId: string;
  flowId: string;
  blockId: string;
  /** "" when the job's context was invalid. */
  context: JobContext | "";
  status: ResultStatus;
  /** The session (or Tool) variables to set. */
  variables: Record<string, string>;
  /** Present when status is failed. */
  error?: ResultError;
  directive: Directive;
  durationMs: number;
  /** The delivery that produced this result (1 for the first). */
  attempt: number;
  /** RFC 3339. */
  completedAt: string;
  /** The script's console lines, within the executor's caps. */
  logs?: LogEntry[];
  /** true when console lines were left out. */
  logsTruncated?: boolean;
  /** A suspended result's signed token: publish a resume job with it. */
  continuation?: string;
  /** A failed result's: the SHA-256 (lowercase hex) of the source the job carried. */
  sourceSha256?: string;
  /** A failed result's: the job's templateId and templateVersion, when it named them. */
  templateId?: string;
  templateVersion?: number;
}

// Every field of every type, listed so that a test can compare them with
// the JSON Schemas; the checks below make the compiler refuse a list that
// misses a field of its type.
type Exhaustive<T, L extends readonly (keyof T)[]> = Exclude<keyof T, L[number]> extends never ? L : never;
function fields<T>() {
  return <const L extends readonly (keyof T)[]>(list: Exhaustive<T, L>) => list;
}

/** The JSON members of each contract type, for tools and tests. */
export const FIELDS = {
  job: fields<Job>()([
    "version", "id", "sessionId", "flowId", "blockId", "context", "action", "variables",
    "defaultExceptionBlockId", "timeoutMs", "deadline", "tenantId", "capabilities", "resume",
    "templateId", "templateVersion",
  ]),
  resume: fields<Resume>()(["token", "resolution"]),
  action: fields<ExecuteScriptAction>()([
    "type", "source", "inputVariables", "outputVariable", "errorVariable", "onError", "errorMessage", "errorHandoff",
  ]),
  inputVariable: fields<InputVariable>()(["name", "value"]),
  result: fields<Result>()([
    "version", "jobId", "sessionId", "flowId", "blockId", "context", "status", "variables", "error",
    "directive", "durationMs", "attempt", "completedAt", "logs", "logsTruncated", "continuation",
    "sourceSha256", "templateId", "templateVersion",
  ]),
  directive: fields<Directive>()(["type", "blockId", "message", "request"]),
  error: fields<ResultError>()(["code", "message", "line", "column", "reason"]),
  logEntry: fields<LogEntry>()(["level", "message", "line"]),
} as const;
