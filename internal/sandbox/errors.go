package sandbox

import (
	"errors"
	"fmt"
)

// Code is the stable, machine-readable class of a script failure. Codes are
// part of the wire contract (they travel in result events and API answers):
// never rename one.
type Code string

// The codes of DESIGN.md §3, plus the two that only the process pool and
// the caller's input can produce.
const (
	CodeScriptError      Code = "SCRIPT_ERROR"
	CodeSyntaxError      Code = "SCRIPT_SYNTAX_ERROR"
	CodeTimeout          Code = "SCRIPT_TIMEOUT"
	CodeMemoryLimit      Code = "SCRIPT_MEMORY_LIMIT"
	CodeAsyncUnsupported Code = "SCRIPT_ASYNC_UNSUPPORTED"
	CodeBusy             Code = "SANDBOX_BUSY"
	CodeOutputTooLarge   Code = "OUTPUT_TOO_LARGE"
	// CodeInvalidInput: the request itself is unusable (empty source, a
	// source or inputs over their caps, an input name that is not an
	// identifier). Never retried.
	CodeInvalidInput Code = "INVALID_SCRIPT_INPUT"
	// CodeCrash: the worker process died or spoke garbage for a reason that
	// is not the script's limits, nor anything the pool could attribute to
	// the script (engine panics, out-of-memory deaths and stack overflows
	// are the script's codes). Retryable once: a crash is usually the
	// platform's, but a job that crashes a worker twice in a row is what
	// crashes it — fail it with this code rather than run it again.
	CodeCrash Code = "SANDBOX_CRASH"
	// CodeCapabilityDenied: the script called a host function it was not
	// granted, or one the host refused for policy (a connector, method or
	// path the operator does not allow). Nothing was sent.
	CodeCapabilityDenied Code = "CAPABILITY_DENIED"
	// CodeHostCallLimit: more host calls, or more bytes through them, than
	// one job may make (SANDBOX_MAX_HOST_CALLS, SANDBOX_MAX_HOST_BYTES).
	CodeHostCallLimit Code = "HOST_CALL_LIMIT"
)

// Seed messages (DESIGN.md §3). The users of the platform know these texts.
const (
	MsgTimeout          = "Script execution timed out"
	MsgAsyncUnsupported = "Script assíncrono não é suportado"
)

// BusyMessage is the seed's message for a caller over the concurrency limit.
func BusyMessage(limit int) string {
	return fmt.Sprintf("Limite de %d scripts simultâneos atingido. Tente novamente em instantes.", limit)
}

// Error is a script failure. Line and Column are 1-based positions in the
// author's source (not the generated wrapper), the column in UTF-16 units
// as editors count it (see Column); 0 means unknown.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Reason is the author's own code of a structured failure: a script
	// that returned {success: false, error: {code, message}} (CodeScriptError).
	Reason string `json:"reason,omitempty"`
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: %s (line %d, column %d)", e.Code, e.Message, e.Line, e.Column)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Retryable reports whether the failure is the platform's and not the
// script's: running the same script again may succeed. Only CodeCrash is,
// and only once in a row (see CodeCrash).
func (e *Error) Retryable() bool { return e.Code == CodeCrash }

// AsError returns the *Error in err's chain, or nil.
func AsError(err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return nil
}
