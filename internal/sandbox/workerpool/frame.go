package workerpool

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// A frame on the worker pipes is an 8-byte header, the magic "FSW1" and the
// body length as a big-endian uint32, followed by the body: one JSON object.
// The magic makes a worker that prints anything else on stdout fail on the
// first byte instead of leaving the parent waiting for a random length.
const (
	frameMagic  = "FSW1"
	headerBytes = 8
)

// Frame kinds. The parent sends config once, then jobs; the worker answers
// config with ready and every job with a result carrying the job's id.
const (
	kindConfig = "config"
	kindReady  = "ready"
	kindJob    = "job"
	kindResult = "result"
)

// frame is every message on the pipes; Kind says which pointer is set.
type frame struct {
	Kind   string           `json:"kind"`
	ID     uint64           `json:"id,omitempty"`
	Config *workerConfig    `json:"config,omitempty"`
	Ready  *readyInfo       `json:"ready,omitempty"`
	Job    *sandbox.Request `json:"job,omitempty"`
	Result *sandbox.Result  `json:"result,omitempty"`
	// Exiting, on a result, says the worker exits after this answer.
	Exiting bool `json:"exiting,omitempty"`
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
	// Error is set when the worker could not start; it exits after saying so.
	Error string `json:"error,omitempty"`
}

// errMalformed marks a frame that breaks the protocol (as opposed to a pipe
// that closed).
var errMalformed = errors.New("malformed frame")

// appendFrame encodes f as one frame: header and body in a single buffer so
// it goes out in one write.
func appendFrame(buf []byte, f *frame) ([]byte, error) {
	body, err := json.Marshal(f)
	if err != nil {
		return buf, fmt.Errorf("encoding %s frame: %w", f.Kind, err)
	}
	if uint64(len(body)) > uint64(^uint32(0)) {
		return buf, fmt.Errorf("encoding %s frame: %d bytes is over the 4 GiB frame limit", f.Kind, len(body))
	}
	buf = append(buf, frameMagic...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(body)))
	return append(buf, body...), nil
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
	f := new(frame)
	if err := json.Unmarshal(body, f); err != nil {
		return nil, fmt.Errorf("%w: decoding body: %w", errMalformed, err)
	}
	return f, nil
}

// maxJobFrame bounds a job frame for limits l: JSON may escape every byte of
// the source and the inputs as \u00XX (6 bytes), plus room for the names of
// the fields. The parent never sends a request over its caps (see
// Pool.oversized), so a bigger frame is garbage.
func maxJobFrame(l sandbox.Limits) int {
	return 6*(l.MaxSourceBytes+l.MaxInputBytes) + 64<<10
}

// maxResultFrame bounds a result frame: the output cap, escaped, plus an
// error message the worker truncates to maxErrorMessage.
func maxResultFrame(l sandbox.Limits) int {
	return 6*(l.MaxOutputBytes+maxErrorMessage) + 64<<10
}

// maxErrorMessage caps the error message a worker sends back: a script can
// throw a string of any size.
const maxErrorMessage = 8 << 10

// maxControlFrame bounds config and ready frames.
const maxControlFrame = 64 << 10
