package flowjob

import (
	"encoding/json"
	"time"
)

// Status is the outcome of a job.
type Status string

const (
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	// StatusSuspended: the script asked for approval (DESIGN.md §10).
	// Nothing of the result is final but its continuation: publish a
	// resume job with it and the resolution.
	StatusSuspended Status = "suspended"
)

// DirectiveType tells the engine what to do with the session next.
type DirectiveType string

const (
	// DirectiveContinue: set the variables and go on with the flow.
	DirectiveContinue DirectiveType = "continue"
	// DirectiveFreezeHandoff: freeze the session and hand it off to a human,
	// with Message.
	DirectiveFreezeHandoff DirectiveType = "freeze_handoff"
	// DirectiveRedirect: send Message to the contact and go to BlockID; the
	// session stays in flow mode.
	DirectiveRedirect DirectiveType = "redirect"
	// DirectiveThrow: rethrow Message to the caller of the Tool.
	DirectiveThrow DirectiveType = "throw"
	// DirectiveSuspend: the step waits for approval; Request is what the
	// script asked ({message, data}); resume with the result's
	// Continuation.
	DirectiveSuspend DirectiveType = "suspend"
)

// Directive is the executor's decision for the session.
type Directive struct {
	Type    DirectiveType `json:"type"`
	BlockID string        `json:"blockId,omitempty"`
	Message string        `json:"message,omitempty"`
	// Request is the approval request of a suspend directive, as the
	// script gave it ({message, data}, or null).
	Request json.RawMessage `json:"request,omitempty"`
}

// Error codes a result can carry. The script codes come from the sandbox;
// INVALID_JOB is a job that broke the contract; DELIVERY_EXHAUSTED is a job
// that got no stored result in any of its attempts.
const (
	CodeScriptError       = "SCRIPT_ERROR"
	CodeSyntaxError       = "SCRIPT_SYNTAX_ERROR"
	CodeTimeout           = "SCRIPT_TIMEOUT"
	CodeMemoryLimit       = "SCRIPT_MEMORY_LIMIT"
	CodeAsyncUnsupported  = "SCRIPT_ASYNC_UNSUPPORTED"
	CodeBusy              = "SANDBOX_BUSY"
	CodeOutputTooLarge    = "OUTPUT_TOO_LARGE"
	CodeInvalidJob        = "INVALID_JOB"
	CodeSandboxCrash      = "SANDBOX_CRASH"
	CodeDeadlineExceeded  = "JOB_DEADLINE_EXCEEDED"
	CodeDeliveryExhausted = "DELIVERY_EXHAUSTED"
	// CodeCapabilityDenied: the script called a host function it was not
	// granted, or a connector, method or path the policy does not allow.
	CodeCapabilityDenied = "CAPABILITY_DENIED"
	// CodeHostCallLimit: more host calls, or more bytes through them, than
	// one job may make.
	CodeHostCallLimit = "HOST_CALL_LIMIT"
	// The codes of a resume job whose continuation cannot be used:
	// a bad signature, an unknown or expired continuation; one another job
	// resumed already; a source that is not the suspended one; a replay
	// that asked for other host calls than the journal holds.
	CodeInvalidContinuation      = "INVALID_CONTINUATION"
	CodeContinuationUsed         = "CONTINUATION_USED"
	CodeContinuationSourceChange = "CONTINUATION_SOURCE_MISMATCH"
	CodeContinuationDiverged     = "CONTINUATION_DIVERGED"
)

// Error is why a job failed. Line and Column are 1-based positions in the
// author's source, the column in UTF-16 code units as JavaScript editors
// count it (an accented letter is one, most emoji two); 0 when unknown.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Reason is the author's own code when the script returned a
	// structured failure ({success: false, error: {code, message}}); the
	// Code is then SCRIPT_ERROR.
	Reason string `json:"reason,omitempty"`
}

// LogLevel is the level of a captured console line.
type LogLevel string

const (
	LogDebug LogLevel = "debug"
	LogInfo  LogLevel = "info"
	LogLog   LogLevel = "log"
	LogWarn  LogLevel = "warn"
	LogError LogLevel = "error"
)

// LogEntry is one console line of the script: its level, its text and the
// author's line it was written from (0 when unknown).
type LogEntry struct {
	Level   LogLevel `json:"level"`
	Message string   `json:"message"`
	Line    int      `json:"line,omitempty"`
}

// Result is the one event an executor publishes per job.
type Result struct {
	Version   int     `json:"version"`
	JobID     string  `json:"jobId"`
	SessionID string  `json:"sessionId"`
	FlowID    string  `json:"flowId"`
	BlockID   string  `json:"blockId"`
	Context   Context `json:"context"`
	Status    Status  `json:"status"`
	// Variables are the session (or Tool) variables to set, by name.
	Variables  map[string]string `json:"variables"`
	Error      *Error            `json:"error,omitempty"`
	Directive  Directive         `json:"directive"`
	DurationMs int64             `json:"durationMs"`
	// Attempt is the delivery that produced this result (1 for the first).
	Attempt     int       `json:"attempt"`
	CompletedAt time.Time `json:"completedAt"`
	// Logs are the script's console lines, in order, within the executor's
	// caps; LogsTruncated says some were left out.
	Logs          []LogEntry `json:"logs,omitempty"`
	LogsTruncated bool       `json:"logsTruncated,omitempty"`
	// Continuation is a suspended result's signed token: a resume job
	// carries it (Job.Resume) with the resolution.
	Continuation string `json:"continuation,omitempty"`
	// SourceSHA256 is the SHA-256 (lowercase hex, see SourceSHA256) of the
	// source a failed job carried; TemplateID and TemplateVersion are the
	// job's, when it named them. Set on failed results only: they say which
	// code failed, so that it can be found and replayed.
	SourceSHA256    string `json:"sourceSha256,omitempty"`
	TemplateID      string `json:"templateId,omitempty"`
	TemplateVersion int    `json:"templateVersion,omitempty"`
}
