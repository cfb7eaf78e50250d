package flowjob

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// ContractVersion is the version of the JSON contract this package speaks.
// A job or result without a version is version 1.
const ContractVersion = 1

// ActionTypeExecuteScript is the only action type FlowScript runs.
const ActionTypeExecuteScript = "executeScript"

// OnError says what a failed script does to the session.
type OnError string

const (
	// OnErrorBlocking stops the flow: freeze and hand off (default), redirect
	// to the exception block (errorHandoff false), or throw inside a Tool.
	OnErrorBlocking OnError = "blocking"
	// OnErrorContinue writes "" to the output variable, the message to the
	// error variable, and goes on.
	OnErrorContinue OnError = "continue"
)

// Context says where the action runs.
type Context string

const (
	// ContextFlow: a block of a flow run by the engine.
	ContextFlow Context = "flow"
	// ContextTool: a step of a published Tool (mini-flow); a blocking failure
	// is rethrown to the Tool's caller.
	ContextTool Context = "tool"
)

// InputVariable maps a name in the script's scope to a template whose
// interpolated value is passed as a string.
type InputVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ExecuteScriptAction is the seed's ExecuteScriptAction type, field for field
// (including errorMessage and errorHandoff, which the seed's Zod schema
// forgot).
type ExecuteScriptAction struct {
	Type           string          `json:"type"`
	Source         string          `json:"source"`
	InputVariables []InputVariable `json:"inputVariables"`
	OutputVariable string          `json:"outputVariable"`
	// ErrorVariable may be OutputVariable: on a failure it then holds the
	// message (written after the empty output).
	ErrorVariable string  `json:"errorVariable,omitempty"`
	OnError       OnError `json:"onError"`
	ErrorMessage  string  `json:"errorMessage,omitempty"`
	// ErrorHandoff, with OnError blocking: nil or true freezes the session
	// and hands it off to a human; false sends the error message and
	// redirects to the flow's exception block.
	ErrorHandoff *bool `json:"errorHandoff,omitempty"`
}

// Handoff reports whether a blocking failure hands the session off (the
// default when ErrorHandoff is absent).
func (a ExecuteScriptAction) Handoff() bool { return a.ErrorHandoff == nil || *a.ErrorHandoff }

// Job is one executeScript step to run for one session.
type Job struct {
	Version   int                 `json:"version,omitempty"`
	ID        string              `json:"id"`
	SessionID string              `json:"sessionId"`
	FlowID    string              `json:"flowId"`
	BlockID   string              `json:"blockId"`
	Context   Context             `json:"context"`
	Action    ExecuteScriptAction `json:"action"`
	// Variables are the session's variables, by name (dotted names such as
	// "contact.name" are plain keys). Values are strings.
	Variables map[string]string `json:"variables"`
	// DefaultExceptionBlockID is where a blocking failure with errorHandoff
	// false redirects. Required in that case.
	DefaultExceptionBlockID string `json:"defaultExceptionBlockId,omitempty"`
	// TimeoutMs optionally shortens the script's time limit; it never
	// raises it above the executor's SANDBOX_TIMEOUT_MS.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// Deadline, when set, is the instant after which the engine no longer
	// wants the job run; a job past its deadline fails without running, and
	// a script still running at it is stopped there (both
	// CodeDeadlineExceeded).
	Deadline *time.Time `json:"deadline,omitempty"`
	// TenantID names the tenant the job runs for: the executor's policy
	// grants capabilities per tenant, and a session's kv is scoped to it.
	TenantID string `json:"tenantId,omitempty"`
	// Capabilities are the host functions the step asks for (Capability*
	// names). The executor grants those its policy allows the tenant; the
	// script sees the granted ones in its capabilities array.
	Capabilities []string `json:"capabilities,omitempty"`
	// Resume, when set, continues a suspended job (a new job id, the same
	// source, session and block).
	Resume *Resume `json:"resume,omitempty"`
	// TemplateID and TemplateVersion name the script template (and its
	// version, 1 for the first) the action's source was taken from, when
	// the engine took it from one. They are provenance only: the executor
	// runs Action.Source and copies both onto a failed result and into the
	// failure record, so a failure can be traced to the template version
	// that produced it. TemplateVersion needs TemplateID.
	TemplateID      string `json:"templateId,omitempty"`
	TemplateVersion int    `json:"templateVersion,omitempty"`
}

// Capabilities a job may ask for (DESIGN.md §9). console needs none: it is
// always there.
const (
	// CapabilityAPI: api.get/post/put/patch/delete to operator-defined
	// connectors.
	CapabilityAPI = "api"
	// CapabilityKV: kv.get/set/delete, scoped to the tenant and session.
	CapabilityKV = "kv"
	// CapabilityApproval: approval.request({message, data}?) suspends the
	// run until a resume job answers it (DESIGN.md §10).
	CapabilityApproval = "approval"
)

// KnownCapabilities lists the capabilities this contract version knows.
var KnownCapabilities = []string{CapabilityAPI, CapabilityKV, CapabilityApproval}

// Resume makes a job the continuation of a suspended one (DESIGN.md §10):
// the job carries the same source, and the executor replays the suspended
// run from its journal, with Resolution as approval.request's answer.
type Resume struct {
	// Token is the continuation of the suspended job's result.
	Token string `json:"token"`
	// Resolution is any JSON value: what approval.request returns.
	Resolution json.RawMessage `json:"resolution"`
}

// ResumeWith returns the resume job of j, a job whose result was suspended:
// the same step and source under the new id, carrying the result's
// continuation and the resolution (any JSON; nil is null), which
// approval.request returns when the executor replays the run.
//
// The resume job is a copy: its variables, inputs and capabilities are its
// own, so changing j's (or the map j was built with) afterwards does not
// change it. It has no Deadline: j's was for the first run, and an approval
// may come hours later; set one on the returned job if the resume itself
// should have one.
func (j *Job) ResumeWith(id, continuation string, resolution json.RawMessage) *Job {
	r := *j
	r.ID = id
	r.Deadline = nil
	r.Variables = maps.Clone(j.Variables)
	r.Capabilities = slices.Clone(j.Capabilities)
	r.Action.InputVariables = slices.Clone(j.Action.InputVariables)
	if h := j.Action.ErrorHandoff; h != nil {
		r.Action.ErrorHandoff = new(*h)
	}
	if resolution == nil {
		resolution = json.RawMessage("null")
	}
	r.Resume = &Resume{Token: continuation, Resolution: slices.Clone(resolution)}
	return &r
}
