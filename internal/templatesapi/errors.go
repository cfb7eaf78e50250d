package templatesapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Error codes of the API. Part of the contract: never rename one.
const (
	CodeUnauthenticated      = "UNAUTHENTICATED"
	CodeForbidden            = "FORBIDDEN"
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeInvalidID            = "INVALID_ID"
	CodeInvalidJSON          = "INVALID_JSON"
	CodeDuplicateField       = "DUPLICATE_FIELD"
	CodeFieldCase            = "FIELD_CASE"
	CodeInvalidUTF8          = "INVALID_UTF8"
	CodeUnknownField         = "UNKNOWN_FIELD"
	CodeBodyTooLarge         = "BODY_TOO_LARGE"
	CodeRequestTimeout       = "REQUEST_TIMEOUT"
	CodeHeadersTooLarge      = "HEADERS_TOO_LARGE"
	CodeURITooLong           = "URI_TOO_LONG"
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	CodeValidationFailed     = "VALIDATION_FAILED"
	CodePreconditionFailed   = "PRECONDITION_FAILED"
	CodeSandboxBusy          = "SANDBOX_BUSY"
	CodeStoreUnavailable     = "STORE_UNAVAILABLE"
	CodeInternal             = "INTERNAL"
)

// errorBody is the one shape of every error answer.
type errorBody struct {
	Error apiError `json:"error"`
}

type apiError struct {
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []fieldError `json:"fields,omitempty"`
}

// fieldError is one problem with one field of the request. Line and Column
// (1-based, in the source) are set for problems found in a script.
type fieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// httpError is an answer a handler decided on.
type httpError struct {
	status int
	apiError
	header http.Header
}

func (e *httpError) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, message string, fields ...fieldError) *httpError {
	return &httpError{status: status, apiError: apiError{Code: code, Message: message, Fields: fields}}
}

func (e *httpError) with(key, value string) *httpError {
	if e.header == nil {
		e.header = http.Header{}
	}
	e.header.Set(key, value)
	return e
}

func writeError(w http.ResponseWriter, e *httpError) {
	for k, v := range e.header {
		w.Header()[k] = v
	}
	writeJSON(w, e.status, errorBody{Error: e.apiError})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		status, body = errEncoding()
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client is gone; nothing to do
}

// encodeJSON is the body of an answer holding v.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // messages quote <token> and the like
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// errEncoding is the answer when an answer could not be encoded.
func errEncoding() (int, []byte) {
	return http.StatusInternalServerError, []byte(`{"error":{"code":"INTERNAL","message":"the answer could not be encoded"}}` + "\n")
}

// moreProblems tells how many problems besides the first are in fields.
func moreProblems(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (and 1 more problem, listed in fields)"
	}
	return fmt.Sprintf(" (and %d more problems, listed in fields)", n)
}
