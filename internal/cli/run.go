package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func init() {
	register(&Command{
		Name:    "run",
		Summary: "run a script, or a stream of jobs, in the sandbox",
		Help:    runHelp,
		Run:     run,
	})
}

const runHelp = `Usage:
  flowscript run [--input name=value ...] [--json] [--tenant T --capability C ... --policy FILE] FILE|-
  flowscript run --jobs FILE|-

Runs a script in the sandbox the executor uses: a worker process with no
environment and the SANDBOX_* limits (time, memory, call stack, sizes).
FILE is the script, or - for standard input. A script is a full file that
declares function execute(...) and its helpers, or just the body of execute.

Flags:
  --input name=value  an input variable; the values reach execute as
                      arguments in the order the flags are given (repeatable)
  --json              print {"output", "error": {"code", "message", "line",
                      "column", "reason"}, "logs", "logsTruncated", "durationMs",
                      and "suspended", "request" for a suspended run}
                      instead of the bare output (console lines go to
                      standard error then)
  --tenant T          run as tenant T, for host functions (DESIGN.md §9)
  --capability C      ask for capability C: api, kv or approval (repeatable); granted
                      only when --policy allows it for --tenant, as the
                      executor grants it
  --policy FILE       the executor's capabilities policy (the file
                      CAPABILITIES_POLICY_FILE names): its connectors are
                      called for real, with secrets from this environment;
                      kv is kept in memory for the run
  --session S         the session kv is scoped to (default "local")
  --resolution JSON   the answer to the script's next approval.request
                      (capability approval; repeatable, in order): the run
                      is resumed in memory by replaying it, as an executor
                      resumes a suspended job (DESIGN.md §10). Without
                      enough of them the run ends suspended: its request is
                      printed and the exit status is 3; with more than
                      it asks for, the extra ones are named on standard
                      error
  --jobs              FILE holds JSON Lines, one job per line:
                        {"id": ..., "source": "...", "inputVariables": [{"name": "...", "value": "..."}]}
                      (every input needs a value, which may be "", as in a
                      job; a byte order mark at the start is skipped).
                      Each job's result is printed as one JSON line, with its
                      id, as soon as it finishes; jobs run on the whole pool

Exit status: 0 when the script (every job) succeeded, 1 when it failed,
2 for a usage error, 3 when it is suspended on an approval request.

Environment:
  SANDBOX_TIMEOUT_MS (5000), SANDBOX_MEMORY_MB (32), SANDBOX_MAX_PARALLEL (8),
  SANDBOX_MAX_SOURCE_BYTES, SANDBOX_MAX_INPUT_BYTES, SANDBOX_MAX_OUTPUT_BYTES,
  SANDBOX_MAX_CALL_STACK, SANDBOX_TIMEZONE (UTC)

Examples:
  flowscript run --input cpf=123.456.789-09 cpf.js
  echo 'return 1 + 1' | flowscript run -
  flowscript run --json --input 'nome=maria da silva' nome.js
  CRM_TOKEN=... flowscript run --tenant acme --capability api --policy policy.yaml lookup.js
  SANDBOX_MAX_PARALLEL=8 flowscript run --jobs jobs.jsonl > results.jsonl
`

// runOptions is the parsed command line of run.
type runOptions struct {
	inputs       []sandbox.Input
	json         bool
	jobs         bool
	file         string
	tenant       string
	session      string
	capabilities []string
	policy       string
	resolutions  []json.RawMessage
}

func run(ctx context.Context, env Env, args []string) int {
	opts, code, ok := parseRun(env, args)
	if !ok {
		return code
	}
	limits, err := sandbox.LimitsFromEnv(env.Getenv)
	if err != nil {
		return usageError(env, "run", "%v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	what := "the script"
	if opts.jobs {
		what = "the jobs file"
	}
	in, closeIn, err := openInput(env, opts.file, what)
	if err != nil {
		return usageError(env, "run", "%v", err)
	}
	defer closeIn()

	if !opts.jobs {
		limits.MaxParallel = 1 // one script: one worker is enough
	}
	pool, err := workerpool.New(ctx, workerpool.Config{
		Limits: limits,
		Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript run: %v\n", err)
		return ExitFailed
	}
	defer func() { _ = pool.Close() }()

	if opts.jobs {
		return runJobs(ctx, env, pool, in)
	}
	return runOne(ctx, env, pool, opts, in)
}

// parseRun reads run's flags and its one positional argument, which may
// come before, between or after the flags.
func parseRun(env Env, args []string) (opts runOptions, code int, ok bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var inputs []flowjob.InputVariable
	fs.Func("input", "", inputFlag(&inputs))
	fs.BoolVar(&opts.json, "json", false, "")
	fs.BoolVar(&opts.jobs, "jobs", false, "")
	fs.StringVar(&opts.tenant, "tenant", "", "")
	fs.StringVar(&opts.session, "session", "local", "")
	fs.Func("resolution", "", func(s string) error {
		if !json.Valid([]byte(s)) {
			return fmt.Errorf("--resolution must be JSON, such as true or '{\"approved\": true}', got %q", s)
		}
		if flowjob.JSONNesting([]byte(s)) > sandbox.MaxJSONNesting { // as the executor refuses it
			return fmt.Errorf("--resolution nests arrays and objects more than %d levels deep: send a flatter one", sandbox.MaxJSONNesting)
		}
		opts.resolutions = append(opts.resolutions, json.RawMessage(s))
		return nil
	})
	fs.StringVar(&opts.policy, "policy", "", "")
	fs.Func("capability", "", func(s string) error {
		if !slices.Contains(opts.capabilities, s) {
			opts.capabilities = append(opts.capabilities, s)
		}
		return nil
	})
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = fmt.Fprint(env.Stdout, runHelp)
		return opts, ExitOK, false
	}
	if err != nil {
		return opts, usageError(env, "run", "%v", err), false
	}
	for _, in := range inputs {
		opts.inputs = append(opts.inputs, sandbox.Input(in))
	}
	switch {
	case len(files) == 0 && opts.jobs:
		return opts, usageError(env, "run", "missing the jobs file: give a FILE, or - to read standard input"), false
	case len(files) == 0:
		return opts, usageError(env, "run", "missing the script: give a FILE, or - to read standard input"), false
	case len(files) > 1:
		return opts, usageError(env, "run", "one script at a time, got %d: %s", len(files), strings.Join(files, " ")), false
	case opts.jobs && (opts.json || len(opts.inputs) > 0):
		return opts, usageError(env, "run", "--jobs takes no --input or --json: each job line carries its inputs, and results are always JSON"), false
	case (len(opts.capabilities) > 0 || len(opts.resolutions) > 0) && opts.jobs:
		return opts, usageError(env, "run", "--capability and --resolution are for one script, not --jobs"), false
	case len(opts.resolutions) > 0 && !slices.Contains(opts.capabilities, "approval"):
		return opts, usageError(env, "run", "--resolution answers approval.request: add --capability approval (and a --policy that grants it)"), false
	}
	for _, c := range opts.capabilities {
		if !slices.Contains(flowjob.KnownCapabilities, c) {
			return opts, usageError(env, "run", "unknown capability %q: known are %s", c, strings.Join(flowjob.KnownCapabilities, ", ")), false
		}
	}
	opts.file = files[0]
	return opts, ExitOK, true
}

// openInput opens FILE, or standard input for "-"; what names it in
// errors ("the script", "the jobs file").
func openInput(env Env, file, what string) (io.Reader, func(), error) {
	if file == "-" {
		return env.Stdin, func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %w", what, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		_ = f.Close()
		return nil, nil, fmt.Errorf("%s %s is a directory: give a file, or - to read standard input", what, file)
	}
	return f, func() { _ = f.Close() }, nil
}

// runOne runs one script and prints its output or error.
func runOne(ctx context.Context, env Env, pool *workerpool.Pool, opts runOptions, in io.Reader) int {
	// Read one byte over the cap, so the sandbox reports the cap instead
	// of this command reading a huge file into memory.
	source, err := io.ReadAll(io.LimitReader(in, int64(pool.Limits().MaxSourceBytes)+1))
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript run: reading the script: %v\n", err)
		return ExitFailed
	}
	if limit := pool.Limits().MaxSourceBytes; len(source) > limit {
		// The sandbox would count only what was read: name the real size.
		return printResult(env, opts, sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeInvalidInput, Message: fmt.Sprintf(
			"source is %s the limit of %d (SANDBOX_MAX_SOURCE_BYTES): move data out of the script into input variables",
			sizeOf(in), limit)}})
	}
	req := sandbox.Request{Source: string(source), Inputs: opts.inputs}
	if len(opts.capabilities) > 0 {
		caps, err := loadRunCapabilities(env, opts.policy)
		if err != nil {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript run: %v\n", err)
			return ExitFailed
		}
		req.Capabilities, req.Host = caps.HostFor(&flowjob.Job{TenantID: opts.tenant, SessionID: opts.session, Capabilities: opts.capabilities})
		var denied []string
		for _, c := range opts.capabilities {
			if !slices.Contains(req.Capabilities, c) {
				denied = append(denied, c)
			}
		}
		switch {
		case len(denied) > 0 && opts.policy == "":
			_, _ = fmt.Fprintf(env.Stderr, "flowscript run: no --policy, so nothing is granted: a call of %s throws CAPABILITY_DENIED; give --policy FILE, the executors' policy\n",
				strings.Join(denied, ", "))
		case len(denied) > 0:
			_, _ = fmt.Fprintf(env.Stderr, "flowscript run: %s does not grant tenant %q %s: a call of it throws CAPABILITY_DENIED\n",
				opts.policy, opts.tenant, strings.Join(denied, ", "))
		}
	}
	res, requests := sandbox.Resolve(ctx, pool, req, opts.resolutions, pool.Limits().Timeout)
	if !opts.json {
		printLogs(env.Stderr, res)
		for i, rq := range requests {
			if i < len(opts.resolutions) {
				_, _ = fmt.Fprintf(env.Stderr, "[approval] %s answered %s\n", rq, opts.resolutions[i])
			}
		}
	}
	if unused := len(opts.resolutions) - len(requests); unused > 0 && res.Suspended == nil {
		asked, left := fmt.Sprintf("asked for approval %d times", len(requests)), fmt.Sprintf("the last %d --resolution values were", unused)
		switch len(requests) {
		case 0:
			asked = "never asked for approval"
		case 1:
			asked = "asked for approval once"
		}
		if unused == 1 {
			left = "the last --resolution was"
		}
		_, _ = fmt.Fprintf(env.Stderr, "flowscript run: the script %s; %s not used\n", asked, left)
	}
	if res.Suspended != nil {
		if opts.json {
			out := newResultJSON(nil, res)
			out.Suspended, out.Request = true, res.Suspended.Request
			line, _ := flowjob.Marshal(out) // plain values: cannot fail
			_, _ = fmt.Fprintf(env.Stdout, "%s\n", line)
		} else {
			_, _ = fmt.Fprintf(env.Stderr, "suspended: the script asks for approval of %s; answer it with --resolution JSON\n", res.Suspended.Request)
		}
		return ExitSuspended
	}
	return printResult(env, opts, res)
}

// sizeOf says how large a script over the limit is: a regular file's
// size, or only "over" for a stream read no further than the limit.
func sizeOf(in io.Reader) string {
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return fmt.Sprintf("%d bytes, over", st.Size())
		}
	}
	return "over"
}

// printResult prints a finished run's output, or its error, and returns the
// exit code.
func printResult(env Env, opts runOptions, res sandbox.Result) int {
	res.Err = asInJob(res.Err)
	if opts.json {
		line, err := flowjob.Marshal(newResultJSON(nil, res))
		if err != nil {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript run: encoding the result: %v\n", err)
			return ExitFailed
		}
		_, _ = fmt.Fprintf(env.Stdout, "%s\n", line)
	} else if res.OK() {
		_, _ = fmt.Fprintln(env.Stdout, res.Output)
	} else {
		_, _ = fmt.Fprintln(env.Stderr, res.Err)
	}
	if !res.OK() {
		return ExitFailed
	}
	return ExitOK
}

// resultJSON is the JSON shape of one result (--json, --jobs).
type resultJSON struct {
	// ID echoes the job's id (--jobs only), whatever its JSON type.
	ID json.RawMessage `json:"id,omitempty"`
	// Line is set, with an INVALID_JOB error, for a --jobs line
	// that is not a job.
	Line          int                `json:"line,omitempty"`
	Output        string             `json:"output"`
	Error         *errorJSON         `json:"error"`
	Logs          []sandbox.LogEntry `json:"logs,omitempty"`
	LogsTruncated bool               `json:"logsTruncated,omitempty"`
	DurationMs    float64            `json:"durationMs"`
	// Suspended and Request: the script asked for approval of Request and
	// no --resolution answered it.
	Suspended bool            `json:"suspended,omitempty"`
	Request   json.RawMessage `json:"request,omitempty"`
}

type errorJSON struct {
	Code    sandbox.Code `json:"code"`
	Message string       `json:"message"`
	Line    int          `json:"line"`
	Column  int          `json:"column"`
	Reason  string       `json:"reason,omitempty"`
}

func newResultJSON(id json.RawMessage, res sandbox.Result) resultJSON {
	out := resultJSON{ID: id, Output: res.Output, DurationMs: float64(res.Duration.Microseconds()) / 1000,
		Logs: res.Logs, LogsTruncated: res.LogsTruncated}
	if e := asInJob(res.Err); e != nil {
		out.Output = ""
		out.Error = &errorJSON{Code: e.Code, Message: e.Message, Line: e.Line, Column: e.Column, Reason: e.Reason}
	}
	return out
}

// asInJob is e with the code a job's result would carry: the sandbox's
// refusal of the request itself (an empty or oversized source, oversized
// inputs, a bad input name) is INVALID_JOB there (DESIGN.md §3), so the
// command shows the same code.
func asInJob(e *sandbox.Error) *sandbox.Error {
	if e == nil || e.Code != sandbox.CodeInvalidInput {
		return e
	}
	c := *e
	c.Code = flowjob.CodeInvalidJob
	return &c
}

// printLogs writes a run's console lines, one per line: "[level] line N: message".
func printLogs(w io.Writer, res sandbox.Result) {
	for _, l := range res.Logs {
		_, _ = fmt.Fprintf(w, "[%s] line %d: %s\n", l.Level, l.Line, l.Message)
	}
	if res.LogsTruncated {
		_, _ = fmt.Fprintln(w, "[console] more lines were left out (SANDBOX_MAX_LOG_ENTRIES, SANDBOX_MAX_LOG_BYTES)")
	}
}

// loadRunCapabilities reads the policy file for run's host functions:
// connectors with secrets from this environment, kv in memory. Without a
// file nothing is granted.
func loadRunCapabilities(env Env, file string) (*capabilities.Capabilities, error) {
	if file == "" {
		return capabilities.New(nil, nil, nil), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the policy: %w", err)
	}
	policy, err := capabilities.ParsePolicy(data)
	if err == nil {
		var limits sandbox.Limits
		if limits, err = sandbox.LimitsFromEnv(env.Getenv); err == nil {
			err = policy.FitsHostBytes(limits.MaxHostBytes)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	api, err := httpapi.New(policy.Connectors, env.Getenv, os.ReadFile)
	if err != nil {
		return nil, fmt.Errorf("%s: connectors: %w", file, err)
	}
	return capabilities.New(policy, api, sessionkv.NewMemory(sessionkv.Config{})), nil
}
