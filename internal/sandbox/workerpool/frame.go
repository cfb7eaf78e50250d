package workerpool

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// A frame on the worker pipes is an 8-byte header, the magic "FSW2" and the
// body length as a big-endian uint32, followed by the body: a kind byte and
// the payload. The magic makes a worker that prints anything else on stdout
// fail on the first byte instead of leaving the parent waiting for a random
// length.
//
// Config and ready frames, sent once per worker, carry JSON. Job and result
// frames, sent for every script, carry a binary payload (see codec.go):
// encoding/json cost about 5 µs per job on both sides together, a share of
// the pool's overhead per job that the binary form brings under 1 µs.
// Check and report frames (a template's save-time check) are binary up to
// the report itself, which is JSON: they are rare.
//
// A request (a job or a check) carries an id; its reply carries the same id
// and ends the request. The parent reads every frame of a request through
// one loop (Pool.await), so frames that a worker will send in the middle of
// a request — a host call, answered by the parent under the same id — are
// one more case there, not a change of the protocol's shape.
const (
	frameMagic  = "FSW2"
	headerBytes = 8
)

// Frame kinds, each the first byte of a frame's body. The parent sends
// config once, then requests; the worker answers config with ready, every
// job with a result and every check with a report, carrying the request's
// id.
type frameKind byte

const (
	kindConfig frameKind = 'c'
	kindReady  frameKind = 'r'
	kindJob    frameKind = 'j'
	kindResult frameKind = 'R'
	kindCheck  frameKind = 'k'
	kindReport frameKind = 'K'
	// A job's host call (DESIGN.md §9): the worker sends it in the middle
	// of the job, under the job's id, and blocks until the parent answers
	// with a host reply under the same id.
	kindHostCall  frameKind = 'h'
	kindHostReply frameKind = 'H'
)

func (k frameKind) String() string {
	switch k {
	case kindConfig:
		return "config"
	case kindReady:
		return "ready"
	case kindJob:
		return "job"
	case kindResult:
		return "result"
	case kindCheck:
		return "check"
	case kindReport:
		return "report"
	case kindHostCall:
		return "host call"
	case kindHostReply:
		return "host reply"
	}
	return fmt.Sprintf("unknown (%#x)", byte(k))
}

// replyKind is the kind of the frame that ends a request of kind k.
func replyKind(k frameKind) frameKind {
	switch k {
	case kindJob:
		return kindResult
	case kindCheck:
		return kindReport
	}
	return 0
}

// frame is every message on the pipes; Kind says which pointer is set.
type frame struct {
	Kind   frameKind
	ID     uint64 // request and reply frames
	Config *workerConfig
	Ready  *readyInfo
	Job    *sandbox.Request
	Result *sandbox.Result
	Check  *checkRequest
	Report *checkReport
	// HostCall and HostReply: a job's host call and its answer.
	HostCall  *sandbox.HostCall
	HostReply *sandbox.HostReply
	// Retiring, on a reply, says the worker exits after this answer, on
	// purpose, and why (retireNone: it stays).
	Retiring retireReason
	// Collecting, on a reply, says the worker measures its baseline (a full
	// GC, a few milliseconds) after this answer, before it reads the next
	// request: the pool gives it a job only when no other worker is idle.
	Collecting bool
}

// retireReason says why a worker exits after answering: a planned
// retirement, which the pool replaces at once, with no back-off and no
// crash reported.
type retireReason byte

const (
	retireNone retireReason = iota
	// retireSpent: the job took the heap's address space past the
	// script's share (it failed for memory), or near it; the next job
	// starts clean.
	retireSpent
	// retireBaseline: the worker's own memory between jobs (runtime,
	// caches) grew past its bound.
	retireBaseline
	// retirePanic: the worker's own code panicked (not the engine on the
	// script's behalf); its state is suspect.
	retirePanic
	retireReasons // the number of reasons, for the decoder
)

func (r retireReason) String() string {
	switch r {
	case retireNone:
		return "none"
	case retireSpent:
		return "memory"
	case retireBaseline:
		return "baseline"
	case retirePanic:
		return "panic"
	}
	return fmt.Sprintf("unknown (%d)", byte(r))
}

// checkRequest is a check frame's payload: a source to compile and inspect
// without running it.
type checkRequest struct {
	Timeout    time.Duration
	Source     string
	InputNames []string
}

// checkReport is a report frame's payload: the check's outcome.
type checkReport struct {
	Report   guardrails.Report `json:"report"`
	Err      *sandbox.Error    `json:"error,omitempty"`
	Duration time.Duration     `json:"-"`
}

// workerConfig is what a worker needs to know, sent as the first frame:
// the worker has no environment to read it from.
type workerConfig struct {
	TimeoutMS        int64  `json:"timeoutMs"`
	MemoryMB         int    `json:"memoryMb"`
	MaxSourceBytes   int    `json:"maxSourceBytes"`
	MaxInputBytes    int    `json:"maxInputBytes"`
	MaxOutputBytes   int    `json:"maxOutputBytes"`
	MaxCallStackSize int    `json:"maxCallStackSize"`
	TimeZone         string `json:"timeZone"`
	MaxLogEntries    int    `json:"maxLogEntries"`
	MaxLogBytes      int    `json:"maxLogBytes"`
	MaxHostCalls     int    `json:"maxHostCalls"`
	MaxHostBytes     int    `json:"maxHostBytes"`
	// LogsFD, when set, is the descriptor of the log region the parent
	// shares (logregion.go), of LogsBytes bytes.
	LogsFD    int `json:"logsFd,omitempty"`
	LogsBytes int `json:"logsBytes,omitempty"`
}

// readyInfo is the worker's answer to its config: what it set up, or why it
// could not.
type readyInfo struct {
	PID int `json:"pid"`
	// EnvVars is how many environment variables the worker was started
	// with. Always 0; the tests assert it.
	EnvVars int `json:"envVars"`
	// EnvironBytes is the size of /proc/self/environ as the worker read
	// it: what the kernel holds of the environment it was started with.
	// Always 0; -1 when it could not be read.
	EnvironBytes int `json:"environBytes"`
	// RlimitASBytes is the RLIMIT_AS the worker set, 0 when none (race
	// builds).
	RlimitASBytes uint64 `json:"rlimitAsBytes"`
	// MaxStackBytes is the goroutine stack limit the worker set.
	MaxStackBytes int `json:"maxStackBytes"`
	// BaseHeapBytes is the live heap after the warm-up script: the share of
	// the runtime itself, not counted against a script's memory limit.
	BaseHeapBytes uint64 `json:"baseHeapBytes"`
	// PreparedHeapBytes is the heap the worker mapped for huge pages at
	// start (prepareHeap), 0 when none (race builds, other systems).
	PreparedHeapBytes uint64 `json:"preparedHeapBytes"`
	// Error is set when the worker could not start; it exits after saying so.
	Error string `json:"error,omitempty"`
}

// errMalformed marks a frame that breaks the protocol (as opposed to a pipe
// that closed).
var errMalformed = errors.New("malformed frame")

// appendFrame encodes f as one frame: header and body in a single buffer so
// it goes out in one write.
func appendFrame(buf []byte, f *frame) ([]byte, error) {
	start := len(buf)
	buf = append(buf, frameMagic...)
	buf = append(buf, 0, 0, 0, 0, byte(f.Kind)) // the length is filled in below
	var err error
	switch {
	case f.Kind == kindJob && f.Job != nil:
		buf = appendJob(buf, f.ID, f.Job)
	case f.Kind == kindResult && f.Result != nil:
		buf = appendResult(buf, f)
	case f.Kind == kindCheck && f.Check != nil:
		buf = appendCheck(buf, f.ID, f.Check)
	case f.Kind == kindReport && f.Report != nil:
		buf, err = appendReport(buf, f)
	case f.Kind == kindHostCall && f.HostCall != nil:
		buf = appendHostCall(buf, f.ID, f.HostCall)
	case f.Kind == kindHostReply && f.HostReply != nil:
		buf = appendHostReply(buf, f.ID, f.HostReply)
	case f.Kind == kindConfig && f.Config != nil:
		buf, err = appendJSON(buf, f.Config)
	case f.Kind == kindReady && f.Ready != nil:
		buf, err = appendJSON(buf, f.Ready)
	default:
		err = errors.New("no payload")
	}
	if err != nil {
		return buf[:start], fmt.Errorf("encoding a %s frame: %w", f.Kind, err)
	}
	n := len(buf) - start - headerBytes
	if uint64(n) > uint64(^uint32(0)) {
		return buf[:start], fmt.Errorf("encoding a %s frame: %d bytes is over the 4 GiB frame limit", f.Kind, n)
	}
	binary.BigEndian.PutUint32(buf[start+4:], uint32(n))
	return buf, nil
}

func appendJSON(buf []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(buf, b...), err
}

// writeFrame writes f to w in one Write call.
func writeFrame(w io.Writer, f *frame) error {
	buf, err := appendFrame(nil, f)
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("writing %s frame: %w", f.Kind, err)
	}
	return nil
}

// readFrame reads one frame whose body is at most maxBody bytes. io.EOF
// means the pipe closed cleanly between frames; errMalformed in the chain
// means the peer broke the protocol.
func readFrame(r *bufio.Reader, maxBody int) (*frame, error) {
	var header [headerBytes]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: the pipe closed inside a frame header", errMalformed)
		}
		return nil, err
	}
	if string(header[:4]) != frameMagic {
		rest, _ := r.Peek(min(r.Buffered(), 56))
		return nil, fmt.Errorf("%w: expected magic %q, got %q", errMalformed, frameMagic, string(header[:])+string(rest))
	}
	n := binary.BigEndian.Uint32(header[4:])
	if uint64(n) > uint64(maxBody) {
		return nil, fmt.Errorf("%w: body of %d bytes is over the %d-byte frame limit", errMalformed, n, maxBody)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("%w: the pipe closed inside a %d-byte frame body: %w", errMalformed, n, err)
	}
	f, err := decodeBody(body)
	if err != nil {
		return nil, fmt.Errorf("%w: decoding body: %w", errMalformed, err)
	}
	return f, nil
}

// decodeBody decodes a frame's body: its kind byte and payload.
func decodeBody(body []byte) (*frame, error) {
	if len(body) == 0 {
		return nil, errors.New("empty body")
	}
	var err error
	f := &frame{Kind: frameKind(body[0])}
	payload := body[1:]
	switch f.Kind {
	case kindJob:
		f.Job = new(sandbox.Request)
		f.ID, err = decodeJob(payload, f.Job)
	case kindResult:
		err = decodeResult(payload, f)
	case kindCheck:
		f.Check = new(checkRequest)
		f.ID, err = decodeCheck(payload, f.Check)
	case kindReport:
		err = decodeReport(payload, f)
	case kindHostCall:
		f.HostCall = new(sandbox.HostCall)
		f.ID, err = decodeHostCall(payload, f.HostCall)
	case kindHostReply:
		f.HostReply = new(sandbox.HostReply)
		f.ID, err = decodeHostReply(payload, f.HostReply)
	case kindConfig:
		f.Config = new(workerConfig)
		err = json.Unmarshal(payload, f.Config)
	case kindReady:
		f.Ready = new(readyInfo)
		err = json.Unmarshal(payload, f.Ready)
	default:
		err = fmt.Errorf("unknown kind byte %q", body[0])
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// maxJobFrame bounds a job or check frame for limits l: the source and the
// inputs, with a length prefix of at most 10 bytes for each string, plus
// slack. The parent never sends a request over its caps (see
// Pool.oversized), so a bigger frame is garbage.
func maxJobFrame(l sandbox.Limits) int {
	return l.MaxSourceBytes + 21*l.MaxInputBytes + sandbox.MaxJournalBytes + maxResolutionBytes + 64<<10
}

// maxResolutionBytes bounds a resume's resolution: it comes in a job, and
// a job is at most 1 MiB.
const maxResolutionBytes = 1 << 20

// maxHostFrame bounds a host call or a host reply: the JSON each way is
// capped at MaxHostBytes per run (sandbox.MeterHost), plus slack for the
// names and an error message.
func maxHostFrame(l sandbox.Limits) int {
	return l.MaxHostBytes + maxErrorMessage + 64<<10
}

// maxResultFrame bounds a result or report frame: the output cap plus an
// error message the worker truncates to maxErrorMessage, plus slack; a
// report's findings (at most guardrails.MaxFindings, each with a short
// message) fit in the slack of the smallest output cap, which is why a
// report counts them against maxReportFindings bytes.
func maxResultFrame(l sandbox.Limits) int {
	return max(l.MaxOutputBytes, maxReportFindings) + maxErrorMessage + maxLogsFrame(l) + sandbox.MaxJournalBytes + 64<<10
}

// maxLogsFrame bounds a result's console lines: their text is capped at
// MaxLogBytes, each line adds a level and a line number.
func maxLogsFrame(l sandbox.Limits) int { return l.MaxLogBytes + 24*l.MaxLogEntries }

// maxReportFindings bounds the JSON of a report's findings: MaxFindings of
// them, each well under 1 KB (their messages are the package's own).
const maxReportFindings = guardrails.MaxFindings << 10

// maxErrorMessage caps the error message a worker sends back: a script can
// throw a string of any size.
const maxErrorMessage = 8 << 10

// maxControlFrame bounds config and ready frames.
const maxControlFrame = 64 << 10
