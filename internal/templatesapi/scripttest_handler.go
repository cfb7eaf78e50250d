package templatesapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/jsident"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
)

// MaxTestInputs caps the input variables of one test run: as many as a
// job's action may take, so every script that runs can be tested.
const MaxTestInputs = flowjob.MaxInputVariables

// MaxTestResolutions caps the approvals one test run answers: each is one
// more run of the script.
const MaxTestResolutions = 10

// testRequest is the body of POST {base}/scripts/test. TenantID and
// Capabilities ask for host functions as a job does: the run is granted
// those the service's policy (CAPABILITIES_POLICY_FILE, the executor's)
// allows the tenant, so an author sees CAPABILITY_DENIED before
// publishing. Its connectors are called for real; kv starts empty for
// every test run and is gone after it. Resolutions answer the script's
// approval requests in order (DESIGN.md §10): each suspension is resumed
// in memory, replaying the run as an executor would, with no continuation
// signed or stored.
type testRequest struct {
	Source         string            `json:"source"`
	InputVariables []sandbox.Input   `json:"inputVariables"`
	TenantID       string            `json:"tenantId"`
	Capabilities   []string          `json:"capabilities"`
	Resolutions    []json.RawMessage `json:"resolutions"`
}

// approvalStep is one approval request of a test run and the resolution
// that answered it; Resolution is absent for the request the run is
// suspended on.
type approvalStep struct {
	Request    json.RawMessage `json:"request"`
	Resolution json.RawMessage `json:"resolution,omitempty"`
}

// testResponse is the outcome of a test run: the output on success, the
// script's error otherwise, always the duration, the guardrail findings
// (warnings and errors: a test run is where an author learns) and the
// capabilities and connectors the source uses.
type testResponse struct {
	OK bool `json:"ok"`
	// Status is succeeded, failed, or suspended when the script asked for
	// more approvals than the request had resolutions.
	Status        flowjob.Status       `json:"status"`
	Approvals     []approvalStep       `json:"approvals"`
	Output        *string              `json:"output,omitempty"`
	Error         *sandbox.Error       `json:"error,omitempty"`
	DurationMs    float64              `json:"durationMs"`
	Findings      []guardrails.Finding `json:"findings"`
	Uses          guardrails.Uses      `json:"uses"`
	Granted       []string             `json:"granted"`
	Logs          []sandbox.LogEntry   `json:"logs"`
	LogsTruncated bool                 `json:"logsTruncated,omitempty"`
}

func (s *Server) testBodyLimit() int64 {
	return int64(6*(s.cfg.Sandbox.MaxSourceBytes+s.cfg.Sandbox.MaxInputBytes)) + 64<<10
}

func (s *Server) testScript(w http.ResponseWriter, r *http.Request) {
	var body testRequest
	if herr := decodeJSON(w, r, s.testBodyLimit(), &body); herr != nil {
		writeError(w, herr)
		return
	}
	if herr := s.validateTest(body); herr != nil {
		writeError(w, herr)
		return
	}

	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		writeError(w, busy(s.cfg.Sandbox.MaxParallel))
		return
	}

	names := make([]string, len(body.InputVariables))
	for i, in := range body.InputVariables {
		names[i] = in.Name
	}
	// The builder and the guardrails look at the source in a worker first:
	// a source that does not compile is not run, and one that cannot be
	// compiled within the sandbox's limits fails here, once.
	checked := s.check(r.Context(), guardrails.CheckRequest{Source: body.Source, InputNames: names})
	findings, uses := checked.Report.Findings, checked.Report.Uses
	if findings == nil {
		findings = []guardrails.Finding{}
	}
	if uses.Capabilities == nil || uses.Connectors == nil { // the check did not run
		uses = guardrails.Uses{Capabilities: []string{}, Connectors: []string{}}
	}
	res := sandbox.Result{Err: checked.Err, Duration: checked.Duration}
	if res.Err == nil {
		res.Err = checked.Report.Compile
	}
	req := sandbox.Request{Source: body.Source, Inputs: body.InputVariables}
	if len(body.Capabilities) > 0 {
		caps := capabilities.New(s.policy, s.api, sessionkv.NewMemory(sessionkv.Config{}))
		req.Capabilities, req.Host = caps.HostFor(&flowjob.Job{TenantID: body.TenantID, SessionID: "test-run", Capabilities: body.Capabilities})
	}
	var requests []json.RawMessage
	if res.Err == nil {
		res, requests = sandbox.Resolve(r.Context(), s.runner, req, body.Resolutions)
	}
	if res.Err != nil {
		switch res.Err.Code {
		case sandbox.CodeBusy: // the sandbox itself was full (a pool shared with others)
			writeError(w, busy(s.cfg.Sandbox.MaxParallel))
			return
		case sandbox.CodeInvalidInput:
			writeError(w, newError(http.StatusUnprocessableEntity, CodeValidationFailed, res.Err.Message,
				fieldError{Field: "inputVariables", Code: string(res.Err.Code), Message: res.Err.Message}))
			return
		}
	}
	out := testResponse{
		OK:            res.OK() && res.Suspended == nil,
		Error:         res.Err,
		DurationMs:    float64(res.Duration.Microseconds()) / 1000,
		Findings:      findings,
		Uses:          uses,
		Granted:       req.Capabilities,
		Logs:          res.Logs,
		LogsTruncated: res.LogsTruncated,
		Status:        flowjob.StatusFailed,
		Approvals:     make([]approvalStep, len(requests)),
	}
	for i, rq := range requests {
		out.Approvals[i].Request = rq
		if i < len(body.Resolutions) {
			out.Approvals[i].Resolution = body.Resolutions[i]
		}
	}
	switch {
	case res.Suspended != nil:
		out.Status = flowjob.StatusSuspended
	case out.OK:
		out.Status = flowjob.StatusSucceeded
	}
	if out.Granted == nil {
		out.Granted = []string{}
	}
	if out.Logs == nil {
		out.Logs = []sandbox.LogEntry{}
	}
	if out.OK {
		out.Output = &res.Output
	}
	writeJSON(w, http.StatusOK, out)
}

func busy(limit int) *httpError {
	return newError(http.StatusTooManyRequests, CodeSandboxBusy, sandbox.BusyMessage(limit)).with("Retry-After", "1")
}

// validateTest checks what a run would refuse as the caller's mistake, so
// it is a 422 naming the field and not a script result.
func (s *Server) validateTest(body testRequest) *httpError {
	var fields []fieldError
	for _, f := range templates.ValidateSource(body.Source, s.cfg.Sandbox.MaxSourceBytes) {
		fields = append(fields, fieldError{Field: f.Field, Code: f.Code, Message: f.Message})
	}
	// The capabilities are checked as a job's are (flowjob refuses unknown
	// and repeated names), so a list the test accepts is one a job may carry.
	firstAt := map[string]int{}
	for i, c := range body.Capabilities {
		field := fmt.Sprintf("capabilities[%d]", i)
		if j, dup := firstAt[c]; dup {
			fields = append(fields, fieldError{Field: field, Code: "DUPLICATE_CAPABILITY",
				Message: fmt.Sprintf("%s %q is already capabilities[%d]; name each capability once", field, c, j)})
			continue
		}
		firstAt[c] = i
		if !slices.Contains(flowjob.KnownCapabilities, c) {
			fields = append(fields, fieldError{Field: field, Code: "UNKNOWN_CAPABILITY",
				Message: fmt.Sprintf("unknown capability %q: known are %s (console needs none)", c, strings.Join(flowjob.KnownCapabilities, ", "))})
		}
	}
	if len(body.Resolutions) > MaxTestResolutions {
		fields = append(fields, fieldError{Field: "resolutions", Code: templates.CodeTooLong,
			Message: fmt.Sprintf("resolutions has %d entries, over the limit of %d", len(body.Resolutions), MaxTestResolutions)})
	}
	if len(body.InputVariables) > MaxTestInputs {
		fields = append(fields, fieldError{Field: "inputVariables", Code: templates.CodeTooLong,
			Message: fmt.Sprintf("inputVariables has %d entries, over the limit of %d", len(body.InputVariables), MaxTestInputs)})
	} else {
		seen := map[string]int{}
		size := 0
		for i, in := range body.InputVariables {
			field := fmt.Sprintf("inputVariables[%d].name", i)
			size += len(in.Name) + len(in.Value)
			if err := jsident.Check(in.Name); err != nil {
				fields = append(fields, fieldError{Field: field, Code: "INVALID_NAME",
					Message: fmt.Sprintf("%s %q is not a usable JavaScript parameter name: %v", field, in.Name, err)})
				continue
			}
			if j, dup := seen[in.Name]; dup {
				fields = append(fields, fieldError{Field: field, Code: "DUPLICATE_NAME",
					Message: fmt.Sprintf("%s %q is already used by inputVariables[%d]; each input needs its own name", field, in.Name, j)})
				continue
			}
			seen[in.Name] = i
		}
		if size > s.cfg.Sandbox.MaxInputBytes {
			fields = append(fields, fieldError{Field: "inputVariables", Code: templates.CodeTooLong,
				Message: fmt.Sprintf("inputVariables are %d bytes in all, over the limit of %d (SANDBOX_MAX_INPUT_BYTES)", size, s.cfg.Sandbox.MaxInputBytes)})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	msg := "the script was not run: " + fields[0].Message
	msg += moreProblems(len(fields) - 1)
	return newError(http.StatusUnprocessableEntity, CodeValidationFailed, msg, fields...)
}
