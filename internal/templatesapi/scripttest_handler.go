package templatesapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/jsident"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/textcut"
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
// signed or stored. The runs share the one time limit (SANDBOX_TIMEOUT_MS,
// or timeoutMs when lower), and durationMs is their sum.
type testRequest struct {
	Source         string               `json:"source"`
	InputVariables []*sandbox.InputJSON `json:"inputVariables"`
	TenantID       string               `json:"tenantId"`
	Capabilities   []string             `json:"capabilities"`
	Resolutions    []json.RawMessage    `json:"resolutions"`
	// TimeoutMs shortens the run's time limit as a job's timeoutMs does;
	// it never raises it above SANDBOX_TIMEOUT_MS.
	TimeoutMs wholeNumber `json:"timeoutMs"`
}

// inputs are the request's inputs for the sandbox (validateTest has
// refused null entries and values).
func (b testRequest) inputs() []sandbox.Input { return sandbox.InputsOf(b.InputVariables) }

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

func (s *Server) testScript(w http.ResponseWriter, r *http.Request) {
	// A test run that finds every slot taken is answered at once, with
	// none of its body read (up to testBodyBytes, and several times that
	// while decoded). Its slot is taken once the body is in: a body that
	// comes slowly holds its connection and its share of the body budget,
	// never a slot other authors' runs need.
	if !s.slotFree() {
		writeError(w, busy(cap(s.slots)))
		return
	}
	var body testRequest
	release, herr := s.readJSON(w, r, s.cfg.testBodyBytes(), &body)
	if herr != nil {
		writeError(w, herr)
		return
	}
	defer release()
	if !s.takeSlot() { // the last one went to another run while this body came
		writeError(w, busy(cap(s.slots)))
		return
	}
	defer s.giveSlot()
	if herr := s.validateTest(body); herr != nil {
		writeError(w, herr)
		return
	}

	if len(body.Capabilities) > 0 {
		if herr := s.tenantRefused(r, body.TenantID, "run a test with the host functions"); herr != nil {
			writeError(w, herr)
			return
		}
	}

	inputs := body.inputs()
	names := make([]string, len(inputs))
	for i, in := range inputs {
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
	req := sandbox.Request{Source: body.Source, Inputs: inputs}
	if ms := int64(body.TimeoutMs); ms > 0 && ms < s.cfg.Sandbox.Timeout.Milliseconds() {
		req.Timeout = time.Duration(ms) * time.Millisecond // compared first: a huge value never wraps
	}
	if len(body.Capabilities) > 0 {
		caps := capabilities.New(s.policy, s.api, sessionkv.NewMemory(sessionkv.Config{}))
		req.Capabilities, req.Host = caps.HostFor(&flowjob.Job{TenantID: body.TenantID, SessionID: "test-run", Capabilities: body.Capabilities})
	}
	var requests []json.RawMessage
	if res.Err == nil {
		res, requests = sandbox.Resolve(r.Context(), s.runner, req, body.Resolutions, s.cfg.Sandbox.Timeout)
	}
	if res.OK() && res.Suspended == nil {
		res = s.tooLargeForBroker(res)
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

// takeSlot takes one of the test runs' and replays' slots, or reports
// false at once when none is free: an author is never queued.
func (s *Server) takeSlot() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// slotFree reports whether a slot is free now; the request that asks
// reads its body next and then takes one, or is refused if it is gone.
func (s *Server) slotFree() bool { return len(s.slots) < cap(s.slots) }

// giveSlot gives back a slot takeSlot took.
func (s *Server) giveSlot() { <-s.slots }

func busy(limit int) *httpError {
	return newError(http.StatusTooManyRequests, CodeSandboxBusy, sandbox.BusyMessage(limit)).with("Retry-After", "1")
}

// validateTest checks what a job carrying the same script would refuse
// (flowjob's rules and the sandbox's limits), so it is a 422 naming the
// field and not a script result. Like a job's, the list stops at
// flowjob.MaxFieldErrors problems, and values the caller sent are quoted
// cut to 40 bytes.
func (s *Server) validateTest(body testRequest) *httpError {
	var fields []fieldError
	unlisted := 0
	add := func(field, code, format string, args ...any) {
		if len(fields) == flowjob.MaxFieldErrors {
			unlisted++
			return
		}
		fields = append(fields, fieldError{Field: field, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range templates.ValidateRunnableSource(body.Source, s.cfg.Sandbox.MaxSourceBytes) {
		add(f.Field, f.Code, "%s", f.Message)
	}
	if body.TimeoutMs < 0 {
		add("timeoutMs", "INVALID_TIMEOUT", "timeoutMs must be 0 (the service's SANDBOX_TIMEOUT_MS) or a positive number of milliseconds, got %d", body.TimeoutMs)
	}
	switch {
	case len(body.TenantID) > flowjob.MaxRefBytes:
		add("tenantId", templates.CodeTooLong, "tenantId is %d bytes, over the limit of %d", len(body.TenantID), flowjob.MaxRefBytes)
	case body.TenantID != "" && strings.TrimSpace(body.TenantID) == "":
		// A job refuses it too: it names no tenant a policy could grant.
		add("tenantId", templates.CodeInvalidText, "tenantId is only white space, got %s: send the tenant's id, or leave the field out", quoted(body.TenantID))
	}
	// The capabilities are checked as a job's are (flowjob refuses unknown
	// and repeated names), so a list the test accepts is one a job may
	// carry; a list longer than the known names must repeat one.
	if len(body.Capabilities) > len(flowjob.KnownCapabilities) {
		add("capabilities", templates.CodeTooLong, "capabilities has %d entries, over the limit of %d: a job asks for each of %s at most once",
			len(body.Capabilities), len(flowjob.KnownCapabilities), strings.Join(flowjob.KnownCapabilities, ", "))
	} else {
		firstAt := map[string]int{}
		for i, c := range body.Capabilities {
			field := fmt.Sprintf("capabilities[%d]", i)
			if j, dup := firstAt[c]; dup {
				add(field, "DUPLICATE_CAPABILITY", "%s %s is already capabilities[%d]; name each capability once", field, quoted(c), j)
				continue
			}
			firstAt[c] = i
			if !slices.Contains(flowjob.KnownCapabilities, c) {
				add(field, "UNKNOWN_CAPABILITY", "unknown capability %s: known are %s (console needs none)", quoted(c), strings.Join(flowjob.KnownCapabilities, ", "))
			}
		}
	}
	if len(body.Resolutions) > MaxTestResolutions {
		add("resolutions", templates.CodeTooLong, "resolutions has %d entries, over the limit of %d", len(body.Resolutions), MaxTestResolutions)
	}
	for i, res := range body.Resolutions {
		// As the executor refuses a resume job's resolution (INVALID_JOB),
		// before the script gets it from approval.request().
		if flowjob.JSONNesting(res) > sandbox.MaxJSONNesting {
			add(fmt.Sprintf("resolutions[%d]", i), "TOO_DEEP",
				"resolutions[%d] nests arrays and objects more than %d levels deep: send a flatter resolution", i, sandbox.MaxJSONNesting)
		}
	}
	if len(body.InputVariables) > MaxTestInputs {
		add("inputVariables", templates.CodeTooLong, "inputVariables has %d entries, over the limit of %d", len(body.InputVariables), MaxTestInputs)
	} else {
		seen := map[string]int{}
		size := 0
		for i, in := range body.InputVariables {
			if in == nil {
				add(fmt.Sprintf("inputVariables[%d]", i), "INVALID_INPUT", "inputVariables[%d] must be an object with a name and a value, got null", i)
				continue
			}
			if in.Value == nil {
				add(fmt.Sprintf("inputVariables[%d].value", i), templates.CodeRequired,
					"inputVariables[%d].value is required: a string, which may be \"\"", i)
			} else {
				size += len(*in.Value)
			}
			size += len(in.Name)
			field := fmt.Sprintf("inputVariables[%d].name", i)
			if err := jsident.Check(in.Name); err != nil {
				add(field, "INVALID_NAME", "%s %s is not a usable JavaScript parameter name: %v", field, quoted(in.Name), err)
				continue
			}
			if j, dup := seen[in.Name]; dup {
				add(field, "DUPLICATE_NAME", "%s %s is already used by inputVariables[%d]; each input needs its own name", field, quoted(in.Name), j)
				continue
			}
			seen[in.Name] = i
		}
		if size > s.cfg.Sandbox.MaxInputBytes {
			add("inputVariables", templates.CodeTooLong, "inputVariables are %d bytes in all, over the limit of %d (SANDBOX_MAX_INPUT_BYTES)", size, s.cfg.Sandbox.MaxInputBytes)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	msg := "the script was not run: " + fields[0].Message
	if unlisted > 0 {
		msg += fmt.Sprintf(" (and %d more problems, the first %d listed in fields)", len(fields)-1+unlisted, len(fields)-1)
	} else {
		msg += moreProblems(len(fields) - 1)
	}
	return newError(http.StatusUnprocessableEntity, CodeValidationFailed, msg, fields...)
}

// quoted is a value the caller sent, quoted for a message and cut as a
// job's messages cut it (40 bytes).
func quoted(v string) string { return textcut.Quote(v, 40) }

// tooLargeForBroker fails res as the executor fails a run whose result
// event would not fit a broker message (OUTPUT_TOO_LARGE), so a test run
// never succeeds where every production run of the script fails: an
// output within SANDBOX_MAX_OUTPUT_BYTES grows once JSON escapes it (a
// quote is 2 bytes, a control character 6). A test run has no job: the
// ids and the variable's name are taken at their longest.
func (s *Server) tooLargeForBroker(res sandbox.Result) sandbox.Result {
	id := strings.Repeat("i", flowjob.MaxIDBytes)
	logs := actions.LogsOf(res.Logs)
	event := flowjob.Result{JobID: id, SessionID: id, FlowID: id, BlockID: id, Status: flowjob.StatusSucceeded,
		Variables: map[string]string{strings.Repeat("v", flowjob.MaxNameBytes): res.Output}, Logs: logs}
	if e := resultTooLarge(event, s.cfg.BrokerMaxPayload); e != nil {
		res.Output = ""
		res.Err = &sandbox.Error{Code: sandbox.CodeOutputTooLarge, Message: e.Message}
	}
	return res
}

// resultTooLarge is the OUTPUT_TOO_LARGE error the executor gives the
// result event r, or nil when r fits a broker message of maxPayload
// bytes beside its headers.
func resultTooLarge(r flowjob.Result, maxPayload int) *flowjob.Error {
	if size, limit := consumer.ResultEventSize(&r, int64(maxPayload)); size > limit {
		return &flowjob.Error{Code: flowjob.CodeOutputTooLarge, Message: consumer.OutputTooLargeMessage(size, limit, r.Logs)}
	}
	return nil
}
