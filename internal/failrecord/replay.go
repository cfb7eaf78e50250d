package failrecord

import (
	"context"
	"encoding/json"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Grants gives a replayed job the host functions it is granted, as the
// executor's policy would (capabilities.Capabilities.HostFor); nil grants
// none, so host calls throw CAPABILITY_DENIED.
type Grants func(job *flowjob.Job) ([]string, sandbox.Host)

// Options change what a replay runs.
type Options struct {
	// Source replaces the recorded source when it is not empty: a fix, or
	// another version of the template.
	Source string
	// SourceLabel says where Source came from ("file fix.js", "template
	// version 2"); "recorded" when Source is empty.
	SourceLabel string
	// Grants: see Grants.
	Grants Grants
	// Timeout is the runner's time limit (SANDBOX_TIMEOUT_MS; the
	// sandbox's default when 0). A resume job's replay and its recorded
	// resolution share it, or the recorded timeoutMs when lower, as they
	// do in an executor.
	Timeout time.Duration
}

// Report is a replay side by side with the original failure.
type Report struct {
	JobID           string   `json:"jobId"`
	TemplateID      string   `json:"templateId,omitempty"`
	TemplateVersion int      `json:"templateVersion,omitempty"`
	Original        Original `json:"original"`
	Replay          Outcome  `json:"replay"`
	// SameError is true when the replay failed with the original code,
	// line and column: the failure is reproduced.
	SameError bool `json:"sameError"`
}

// Original is the recorded failure.
type Original struct {
	SourceSHA256 string        `json:"sourceSha256"`
	Error        flowjob.Error `json:"error"`
	FailedAt     time.Time     `json:"failedAt"`
	Attempt      int           `json:"attempt"`
}

// Outcome is what the replay came to.
type Outcome struct {
	// Source is "recorded" or Options.SourceLabel.
	Source       string             `json:"source"`
	SourceSHA256 string             `json:"sourceSha256"`
	Status       flowjob.Status     `json:"status"`
	Output       *string            `json:"output,omitempty"`
	Error        *flowjob.Error     `json:"error,omitempty"`
	DurationMs   float64            `json:"durationMs"`
	Logs         []sandbox.LogEntry `json:"logs"`
	// LogsTruncated: console lines were left out.
	LogsTruncated bool `json:"logsTruncated,omitempty"`
	// Request is the approval request a replay is suspended on (a job
	// that asks for approval again after its recorded resolution).
	Request json.RawMessage `json:"request,omitempty"`
}

// Replay runs the recorded job again through runner, with the inputs
// interpolated from its recorded variables, under the time limit it had
// (never above the runner's own), and compares the outcome with the
// recorded failure. A resume job's recorded resolution answers its first
// approval request: the run starts from the beginning, and host calls
// before that request run again (or are denied, without Grants). Nothing
// is published anywhere.
func Replay(ctx context.Context, runner sandbox.Runner, rec Record, opts Options) Report {
	job := rec.Job
	out := Outcome{Source: "recorded"}
	if opts.Source != "" {
		job.Action.Source = opts.Source
		out.Source = opts.SourceLabel
	}
	out.SourceSHA256 = flowjob.SourceSHA256(job.Action.Source)
	req := actions.Request(&job, time.Duration(rec.TimeoutMs)*time.Millisecond)
	if opts.Grants != nil && len(job.Capabilities) > 0 {
		req.Capabilities, req.Host = opts.Grants(&job)
	}
	var resolutions []json.RawMessage
	if job.Resume != nil && job.Resume.Resolution != nil {
		resolutions = []json.RawMessage{job.Resume.Resolution}
	}
	res, _ := sandbox.Resolve(ctx, runner, req, resolutions, opts.Timeout)
	ran := actions.Ran(res, 0)
	out.DurationMs = float64(res.Duration.Microseconds()) / 1000
	out.Logs, out.LogsTruncated = res.Logs, res.LogsTruncated
	if out.Logs == nil {
		out.Logs = []sandbox.LogEntry{}
	}
	switch {
	case res.Suspended != nil:
		out.Status, out.Request = flowjob.StatusSuspended, res.Suspended.Request
	case ran.Err != nil:
		out.Status, out.Error = flowjob.StatusFailed, ran.Err
	default:
		out.Status, out.Output = flowjob.StatusSucceeded, &ran.Output
	}
	r := Report{
		JobID:           rec.Job.ID,
		TemplateID:      rec.Job.TemplateID,
		TemplateVersion: rec.Job.TemplateVersion,
		Original:        Original{SourceSHA256: rec.SourceSHA256, Error: rec.Error, FailedAt: rec.FailedAt, Attempt: rec.Attempt},
		Replay:          out,
	}
	if e := out.Error; e != nil {
		r.SameError = e.Code == rec.Error.Code && e.Line == rec.Error.Line && e.Column == rec.Error.Column
	}
	return r
}
