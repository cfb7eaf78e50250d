package sandbox

import (
	"context"
	"encoding/json"
	"time"
)

// Input is one input variable: Name becomes a parameter of the generated
// execute function (and a name visible in the whole file), Value its
// argument, always a string.
type Input struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type jobIDKey struct{}

// WithJobID names the job a run is for: a runner's logs about the run (a
// worker it had to replace) carry it as job_id.
func WithJobID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, jobIDKey{}, id)
}

// JobIDFrom is the job id WithJobID put in ctx, or "".
func JobIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(jobIDKey{}).(string)
	return id
}

// InputJSON is an input as a request body or a jobs file carries it: its
// value is required, as a job's is (it may be ""), so an absent or null one
// is the caller's mistake, which its reader refuses, not an empty input.
type InputJSON struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// InputsOf are the sandbox's inputs of ins, which their reader checked:
// no nil entry, no nil value.
func InputsOf(ins []*InputJSON) []Input {
	in := make([]Input, len(ins))
	for i, v := range ins {
		in[i] = Input{Name: v.Name, Value: *v.Value}
	}
	return in
}

// Request is one script to run.
type Request struct {
	Source string  `json:"source"`
	Inputs []Input `json:"inputVariables"`
	// Timeout, when positive and lower than the runner's limit, shortens the
	// time limit for this request. It never raises it.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Capabilities are the host functions granted to this run (DESIGN.md
	// §9): the script's capabilities array, and the only ones whose calls
	// reach Host. A call of any other throws CAPABILITY_DENIED.
	Capabilities []string `json:"capabilities,omitempty"`
	// Host answers the granted host calls (trusted code, outside the
	// sandbox). nil: every host function is denied.
	Host Host `json:"-"`
	// Journal, when set, is the journal of a suspended run of the same
	// source, to replay (DESIGN.md §10); Resolution answers the approval
	// request it ends with.
	Journal    json.RawMessage `json:"journal,omitempty"`
	Resolution json.RawMessage `json:"resolution,omitempty"`
	// Logs, when set, is told the run's console lines as they are kept:
	// what a worker copies where its parent can read them when it has to
	// end the worker mid-run. It is never sent to a worker.
	Logs LogMirror `json:"-"`
}

// LogMirror follows a run's console lines. Mirror is called each time the
// log book changes, with all it holds: entries (the slice is the book's:
// copy what is kept) and whether lines were left out. gen changes when the
// book starts over (a resumed run's live part): entries then begin anew.
type LogMirror interface {
	Mirror(gen int, entries []LogEntry, truncated bool)
}

// Result is the outcome of one run: exactly one of Output (on success, "" is
// a valid output) or Err is meaningful.
type Result struct {
	Output   string        `json:"output"`
	Err      *Error        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	// Logs are the script's console lines, success or not, within
	// Limits.MaxLogEntries and MaxLogBytes; LogsTruncated says some were
	// left out.
	Logs          []LogEntry `json:"logs,omitempty"`
	LogsTruncated bool       `json:"logsTruncated,omitempty"`
	// Suspended is set, with no Err and no Output, when approval.request
	// stopped the run: resume it with its journal and a resolution.
	Suspended *Suspension `json:"suspended,omitempty"`
}

// LogEntry is one console line: log, info, warn, error or debug; the
// formatted arguments; the author's line it was written from (0 unknown).
type LogEntry struct {
	Level   string `json:"level"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

// OK reports whether the script succeeded.
func (r Result) OK() bool { return r.Err == nil }

// Runner runs scripts. The in-process runner of this package and the worker
// pool both implement it. Run blocks until a slot is free or ctx ends; a ctx
// that ends while the script runs interrupts it (CodeTimeout).
type Runner interface {
	Run(ctx context.Context, req Request) Result
}
