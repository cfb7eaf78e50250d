package failrecord

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowscript/flowscript/flowjob"
)

// FormatVersion is the version of the record's JSON.
const FormatVersion = 1

// Record is what the executor keeps of a job whose script failed.
type Record struct {
	Version int `json:"version"`
	// Job is the job as the engine sent it, minus what Omitted lists.
	Job flowjob.Job `json:"job"`
	// Error is the failure the job's result carries.
	Error flowjob.Error `json:"error"`
	// SourceSHA256 is the SHA-256 of Job.Action.Source.
	SourceSHA256 string `json:"sourceSha256"`
	// TimeoutMs is the time limit the run had: the executor's
	// SANDBOX_TIMEOUT_MS, or the job's shorter timeoutMs.
	TimeoutMs int64 `json:"timeoutMs"`
	// Attempt is the delivery that failed (1 for the first).
	Attempt int `json:"attempt"`
	// FailedAt is when the result was decided (the result's completedAt).
	FailedAt time.Time `json:"failedAt"`
	// Omitted names what was left out of Job (see the package doc):
	// "resume.token", "variables" (those the action does not read).
	Omitted []string `json:"omitted,omitempty"`
}

// scriptCodes are the failures of the script itself: a record is kept for
// them. Bad input and crashes are dead-lettered instead (the DLQ), a
// passed deadline never ran, and a continuation that cannot be used is
// not the script's doing.
var scriptCodes = map[string]bool{
	flowjob.CodeScriptError:      true,
	flowjob.CodeSyntaxError:      true,
	flowjob.CodeTimeout:          true,
	flowjob.CodeMemoryLimit:      true,
	flowjob.CodeAsyncUnsupported: true,
	flowjob.CodeOutputTooLarge:   true,
	flowjob.CodeCapabilityDenied: true,
	flowjob.CodeHostCallLimit:    true,
}

// ScriptFailure reports whether a failed result with code is the script's
// own failure, one a record is kept for.
func ScriptFailure(code string) bool { return scriptCodes[code] }

// New is the record of job, whose script failed with res (a failed
// result), run with time limit timeout. The job is copied; the copy keeps
// only the variables the action reads and no continuation token.
func New(job *flowjob.Job, res flowjob.Result, timeout time.Duration) (Record, error) {
	if job == nil || res.Error == nil {
		return Record{}, errors.New("a failure record needs the job and a failed result")
	}
	r := Record{
		Version:      FormatVersion,
		Job:          *job,
		Error:        *res.Error,
		SourceSHA256: flowjob.SourceSHA256(job.Action.Source),
		TimeoutMs:    timeout.Milliseconds(),
		Attempt:      res.Attempt,
		FailedAt:     res.CompletedAt,
	}
	if job.Resume != nil {
		resume := *job.Resume
		resume.Token = ""
		r.Job.Resume = &resume
		r.Omitted = append(r.Omitted, "resume.token")
	}
	if used := usedVariables(job); len(used) < len(job.Variables) {
		r.Job.Variables = used
		r.Omitted = append(r.Omitted, "variables")
	}
	return r, nil
}

// usedVariables are the variables of job that its inputs and its error
// message reference: all that interpolation reads.
func usedVariables(job *flowjob.Job) map[string]string {
	templates := []string{job.Action.ErrorMessage}
	for _, in := range job.Action.InputVariables {
		templates = append(templates, in.Value)
	}
	used := map[string]string{}
	for _, t := range templates {
		for part := range flowjob.TemplateParts(t) {
			if v, ok := job.Variables[part.Text]; part.Ref && ok {
				used[part.Text] = v
			}
		}
	}
	return used
}

// Encode is the record's JSON.
func (r Record) Encode() ([]byte, error) {
	data, err := flowjob.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding the failure record of %s: %w", r.Job.ID, err)
	}
	return data, nil
}

// Decode reads a record's JSON.
func Decode(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("decoding a failure record: %w", err)
	}
	if r.Version < 1 || r.Version > FormatVersion {
		return Record{}, fmt.Errorf("decoding a failure record: format version %d is not %d: use a flowscript of the executor's version", r.Version, FormatVersion)
	}
	if r.Job.ID == "" || r.Job.Action.Source == "" {
		return Record{}, errors.New("decoding a failure record: it holds no job id or no source")
	}
	return r, nil
}
