package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/jsonkind"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/textcut"
)

// jobLine is one line of `flowscript run --jobs`.
type jobLine struct {
	ID             json.RawMessage      `json:"id"`
	Source         string               `json:"source"`
	InputVariables []*sandbox.InputJSON `json:"inputVariables"`
}

// inputs are the line's inputs for the sandbox (parseJobLine has refused
// null entries and values).
func (j jobLine) inputs() []sandbox.Input { return sandbox.InputsOf(j.InputVariables) }

// runJobs reads JSON Lines jobs from in, runs them on the whole pool and
// prints one JSON line per job as each finishes. A line that is not a job
// gets a result line too (with "line" instead of a result of the sandbox),
// and the run goes on.
func runJobs(ctx context.Context, env Env, pool *workerpool.Pool, in io.Reader) int {
	limits := pool.Limits()
	maxLine := 6*(limits.MaxSourceBytes+limits.MaxInputBytes) + 64<<10
	out := &lineWriter{w: env.Stdout}
	var failed atomic.Bool
	var wg sync.WaitGroup
	slots := make(chan struct{}, limits.MaxParallel)
	r := bufio.NewReaderSize(in, 64<<10)

	for n := 1; ; n++ {
		// Read the next line only when a worker is free, so a big input is
		// never held in memory beyond what runs.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		line, err := readLine(r, maxLine)
		if n == 1 { // a byte order mark an editor saved: not part of the first job
			line = trimByteOrderMark(line)
		}
		if errors.Is(err, io.EOF) && len(line) == 0 {
			<-slots
			break
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errLineTooLong) {
			<-slots
			_, _ = fmt.Fprintf(env.Stderr, "flowscript run: reading jobs: %v\n", err)
			failed.Store(true)
			break
		}
		if len(bytes.TrimSpace(line)) == 0 && !errors.Is(err, errLineTooLong) {
			<-slots
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		job, badLine := parseJobLine(n, line, err)
		if badLine != nil {
			<-slots
			failed.Store(true)
			out.write(env, badLine)
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			res := pool.Run(ctx, sandbox.Request{Source: job.Source, Inputs: job.inputs()})
			if !res.OK() {
				failed.Store(true)
			}
			out.write(env, newResultJSON(job.ID, res))
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		_, _ = fmt.Fprintln(env.Stderr, "flowscript run: interrupted; jobs not yet read were not run")
		return ExitFailed
	}
	if failed.Load() {
		return ExitFailed
	}
	return ExitOK
}

// parseJobLine decodes line n, or says why it is not a job.
func parseJobLine(n int, line []byte, readErr error) (jobLine, *resultJSON) {
	bad := func(id json.RawMessage, format string, args ...any) (jobLine, *resultJSON) {
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		return jobLine{}, &resultJSON{ID: id, Line: n, Error: &errorJSON{
			Code: flowjob.CodeInvalidJob, Message: fmt.Sprintf("line %d: ", n) + fmt.Sprintf(format, args...)}}
	}
	if errors.Is(readErr, errLineTooLong) {
		return bad(nil, "the line is over %d bytes, more than the SANDBOX_MAX_SOURCE_BYTES and SANDBOX_MAX_INPUT_BYTES limits allow", len(line))
	}
	if at := textcut.InvalidAt(line); at >= 0 {
		// encoding/json would turn the bad bytes into U+FFFD, and the job
		// would run with text its author never wrote.
		return bad(probeID(line), "not UTF-8 text (byte 0x%02X at offset %d of the line): save the jobs file as UTF-8", line[at], at)
	}
	var job jobLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&job); err != nil {
		return bad(probeID(line), "not a job: %s; want {\"id\", \"source\", \"inputVariables\": [{\"name\", \"value\"}]}", lineProblem(line, err))
	}
	if dec.More() {
		return bad(job.ID, "more than one JSON value on the line: put each job on its own line")
	}
	// The names are the sandbox's to check, with the job validator's rules
	// (INVALID_JOB when the job runs); what encoding/json lets
	// through as "" is refused here.
	var problems []string
	for i, in := range job.InputVariables {
		if len(problems) == flowjob.MaxFieldErrors {
			problems = append(problems, "and more")
			break
		}
		switch {
		case in == nil:
			problems = append(problems, fmt.Sprintf("inputVariables[%d]: must be an object with a name and a value, got null", i))
		case in.Value == nil:
			problems = append(problems, fmt.Sprintf(`inputVariables[%d].value: required (it may be "")`, i))
		}
	}
	if len(problems) > 0 {
		return bad(job.ID, "%s", strings.Join(problems, "; "))
	}
	if len(job.ID) == 0 {
		job.ID = json.RawMessage("null")
	}
	return job, nil
}

// lineProblem says what encoding/json found wrong with a job line, in
// the line's own terms: its fields and JSON's types, never Go's.
func lineProblem(line []byte, err error) string {
	var (
		typ    *json.UnmarshalTypeError
		syntax *json.SyntaxError
	)
	switch {
	case errors.As(err, &typ) && typ.Field == "":
		return "the line is " + jsonkind.Got(typ.Value) + ", not an object"
	case errors.As(err, &typ):
		field := typ.Field
		if inInput := strings.HasPrefix(field, "inputVariables."); inInput || field == "inputVariables" && typ.Type.Kind() == reflect.Struct {
			// encoding/json names no index: the first entry that fails is it.
			i, _ := badInput(line, false)
			entry := fmt.Sprintf("inputVariables[%d]", max(i, 0))
			if field = entry; inInput {
				field += strings.TrimPrefix(typ.Field, "inputVariables")
			}
		}
		return fmt.Sprintf("%s must be %s, got %s", field, jsonkind.Of(typ.Type), jsonkind.Got(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		problem := "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
		if !unknownAtTop(line) {
			if i, entryErr := badInput(line, true); i >= 0 && entryErr.Error() == err.Error() {
				problem = fmt.Sprintf("inputVariables[%d]: %s", i, problem)
			}
		}
		return problem
	case errors.As(err, &syntax):
		return fmt.Sprintf("not valid JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the line ends in the middle of a JSON value"
	}
	return err.Error()
}

// unknownAtTop reports whether line's object itself has a field a job
// line does not.
func unknownAtTop(line []byte) bool {
	var top struct {
		ID             json.RawMessage `json:"id"`
		Source         json.RawMessage `json:"source"`
		InputVariables json.RawMessage `json:"inputVariables"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&top)
	return err != nil && strings.HasPrefix(err.Error(), "json: unknown field ")
}

// badInput is the index of the first entry of line's inputVariables that
// does not decode as an input (or has a field an input does not have, when
// strict), and why; -1 when none.
func badInput(line []byte, strict bool) (int, error) {
	var job struct{ InputVariables []json.RawMessage }
	_ = json.Unmarshal(line, &job)
	for i, raw := range job.InputVariables {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if strict {
			dec.DisallowUnknownFields()
		}
		if err := dec.Decode(new(sandbox.InputJSON)); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// probeID is the id of a line that is not a job, when it can be read, so
// that its result line still names the job.
func probeID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &probe)
	return probe.ID
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline. A line longer than
// max is consumed to its end and returned cut, with errLineTooLong.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong = true
				line = append(line, chunk[:max+1-len(line)]...)
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if tooLong {
			return line, errLineTooLong
		}
		return line, err
	}
}

// lineWriter writes whole JSON lines from many goroutines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) write(env Env, v any) {
	line, err := flowjob.Marshal(v)
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript run: encoding a result: %v\n", err)
		return
	}
	line = append(line, '\n')
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_, _ = lw.w.Write(line)
}
