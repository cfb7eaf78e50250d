package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"

	"github.com/flowscript/flowscript/internal/jsident"
	"github.com/flowscript/flowscript/internal/natsurl"
	"github.com/flowscript/flowscript/internal/textcut"
)

func init() {
	register(&Command{
		Name:    "submit",
		Summary: "publish a job to NATS and print its result event",
		Help:    submitHelp,
		Run:     submit,
	})
}

const submitHelp = `Usage:
  flowscript submit [broker flags] [--timeout 30s] --file FILE|- [job flags]
  flowscript submit [broker flags] [--timeout 30s] --source FILE|- [--input name=value ...]
                    [--output-var NAME] [--error-var NAME] [--on-error blocking|continue]
                    [--error-message TEXT] [job flags]

Publishes one executeScript job to NATS, as an engine does (package flowjob),
waits for its result event and prints it as one JSON line. The job is
validated first: a job that breaks the contract is not published, and every
problem is printed with the name of its field.

The job comes from a JSON file (--file, the JSON an engine publishes; see
examples/*.json) or is built from flags (--source and the action flags).
Each --input becomes a session variable passed to the script unchanged.
The job's id is its identity: submitting the same id again answers with the
result already stored. A file without an id, and a job built from flags,
get a new id; --id sets one.

Job flags (they replace the file's fields when given):
  --id ID              the job id (default: a new one, cli-<random>)
  --session ID         sessionId (default cli-session)
  --flow ID            flowId (default cli-flow)
  --block ID           blockId (default cli-block)
  --context flow|tool  where the action runs (default flow)
  --tenant T           tenantId: the executor grants capabilities per tenant
  --capability C       ask for capability C: api, kv or approval (repeatable)

Resuming a suspended job (DESIGN.md §10; give the suspended job again,
same --file or same flags, so that the source and the step match):
  --resume TOKEN       the continuation of the suspended result
  --resolution JSON    what approval.request returns (any JSON; default null)
  The resume job gets a new id unless --id is given: a continuation resumes
  once, so retry a resume with the same --id.

Action flags (with --source only):
  --input name=value   an input variable of the script (repeatable, in the
                       order of execute's parameters)
  --output-var NAME    the session variable the output goes to (default result)
  --error-var NAME     the session variable the error message goes to
  --on-error MODE      blocking (stop the flow; default) or continue
  --error-message TEXT the message a blocking failure sends to the contact

Broker flags:
  --nats URL             NATS URL (default $NATS_URL, else nats://127.0.0.1:4222)
  --creds FILE           NATS .creds file (default $NATS_CREDS)
  --subject-prefix P     the executor's SUBJECT_PREFIX (default $SUBJECT_PREFIX,
                         else flowscript)
  --results-stream NAME  the executor's RESULTS_STREAM (default $RESULTS_STREAM,
                         else RESULTS)

  --timeout D          how long to wait for the result, connecting and
                       publishing included (default 30s)

Exit status: 0 when the result's status is succeeded or suspended (its
continuation is in the printed result), 1 when it is failed or
no result came within --timeout (the job stays queued, or keeps running:
its result is stored when it ends), 2 for a usage error or a job that
breaks the contract.

Examples:
  flowscript submit --file examples/01-success-cpf.json
  flowscript submit --source examples/cpf.js --input cpf=123.456.789-09 --output-var resultado
  echo 'return nome.toUpperCase()' | flowscript submit --source - --input nome=maria --on-error continue
  NATS_URL=nats://nats:4222 flowscript submit --timeout 5s --file job.json --id retry-2 | jq .variables
  token=$(flowscript submit --file refund.json | jq -r .continuation)
  flowscript submit --file refund.json --resume "$token" --resolution '{"approved": true}'
`

// submitOptions is the parsed command line of submit.
type submitOptions struct {
	broker  brokerFlags
	timeout time.Duration
	file    string
	source  string
	inputs  []flowjob.InputVariable
	set     map[string]bool // flags given on the command line

	id, session, flow, block, context          string
	outputVar, errorVar, onError, errorMessage string
	tenant                                     string
	capabilities                               []string
	resume, resolution                         string
}

func submit(ctx context.Context, env Env, args []string) int {
	opts, code, ok := parseSubmit(env, args)
	if !ok {
		return code
	}
	job, code, ok := buildJob(env, opts)
	if !ok {
		return code
	}

	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	res, queued, err := submitJob(ctx, opts.broker, job)
	if err != nil {
		switch {
		case errors.Is(err, flowclient.ErrNotAcknowledged):
			within := ""
			if errors.Is(err, context.DeadlineExceeded) {
				within = " within " + opts.timeout.String()
			}
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: the broker at %s did not acknowledge job %s%s: it may or may not be queued. "+
				"Submit the same job again with --id %s within the executors' DUPLICATE_WINDOW (5m by default): it is queued once, and you get its one result.\n",
				natsurl.Redact(opts.broker.url), job.ID, within, job.ID)
		case errors.Is(err, context.DeadlineExceeded) && !queued:
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: job %s was not queued within %s: %v\nTry again, with a longer --timeout if the broker is slow.\n",
				job.ID, opts.timeout, err)
		case errors.Is(err, context.DeadlineExceeded):
			names := opts.broker.names()
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: no result for job %s within %s: it is still queued or still running "+
				"(is an executor running on %s with SUBJECT_PREFIX=%s?). It runs when an executor takes it; its result will be stored on %s "+
				"in stream %s: submit the same job again with --id %s to wait for it.\n",
				job.ID, opts.timeout, natsurl.Redact(opts.broker.url), names.SubjectPrefix, names.Subjects().Result(job.ID), names.ResultsStream, job.ID)
		case errors.Is(err, context.Canceled) && !queued:
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: interrupted before job %s was queued: nothing was sent\n", job.ID)
		case errors.Is(err, context.Canceled):
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: interrupted while waiting for the result of job %s\n", job.ID)
		case errors.Is(err, jetstream.ErrNoStreamResponse):
			// The stream was found a moment before: its leader is changing,
			// or it was deleted since.
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: the JOBS stream at %s did not answer the publish of job %s (its leader may be changing): "+
				"nothing was queued; submit it again\n", natsurl.Redact(opts.broker.url), job.ID)
		default:
			_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: %v\n", err)
		}
		return ExitFailed
	}
	line, err := flowjob.Marshal(res)
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript submit: encoding the result: %v\n", err)
		return ExitFailed
	}
	_, _ = fmt.Fprintf(env.Stdout, "%s\n", line)
	if res.Status == flowjob.StatusFailed {
		return ExitFailed
	}
	return ExitOK
}

// submitJob connects, checks that an executor's streams exist, publishes
// job and waits for its result until ctx ends. queued is whether the broker
// acknowledged the job.
func submitJob(ctx context.Context, b brokerFlags, job *flowjob.Job) (res *flowjob.Result, queued bool, err error) {
	nc, err := b.connect(ctx, "submit")
	if err != nil {
		return nil, false, err
	}
	defer nc.Close()
	if err := b.checkJobsStream(ctx, nc); err != nil {
		return nil, false, err
	}
	var acked atomic.Bool
	client, err := b.client(nc, flowclient.WithPublishHook(func(ctx context.Context, _, _ string, _ nats.Header) (context.Context, func(error)) {
		return ctx, func(err error) { acked.Store(err == nil) }
	}))
	if err != nil {
		return nil, false, err
	}
	res, err = client.Run(ctx, job)
	return res, acked.Load(), err
}

func parseSubmit(env Env, args []string) (opts submitOptions, code int, ok bool) {
	fs := flag.NewFlagSet("submit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.broker.register(fs, env)
	fs.DurationVar(&opts.timeout, "timeout", 30*time.Second, "")
	fs.StringVar(&opts.file, "file", "", "")
	fs.StringVar(&opts.source, "source", "", "")
	fs.Func("input", "", inputFlag(&opts.inputs))
	fs.StringVar(&opts.id, "id", "", "")
	fs.StringVar(&opts.session, "session", "cli-session", "")
	fs.StringVar(&opts.flow, "flow", "cli-flow", "")
	fs.StringVar(&opts.block, "block", "cli-block", "")
	fs.StringVar(&opts.context, "context", string(flowjob.ContextFlow), "")
	fs.StringVar(&opts.outputVar, "output-var", "result", "")
	fs.StringVar(&opts.errorVar, "error-var", "", "")
	fs.StringVar(&opts.onError, "on-error", string(flowjob.OnErrorBlocking), "")
	fs.StringVar(&opts.errorMessage, "error-message", "", "")
	fs.StringVar(&opts.tenant, "tenant", "", "")
	fs.Func("capability", "", func(c string) error {
		if !slices.Contains(flowjob.KnownCapabilities, c) {
			return fmt.Errorf("unknown capability %q: known are %s", c, strings.Join(flowjob.KnownCapabilities, ", "))
		}
		opts.capabilities = append(opts.capabilities, c)
		return nil
	})
	fs.StringVar(&opts.resume, "resume", "", "")
	fs.StringVar(&opts.resolution, "resolution", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = fmt.Fprint(env.Stdout, submitHelp)
			return opts, ExitOK, false
		}
		return opts, usageError(env, "submit", "%v", err), false
	}
	opts.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { opts.set[f.Name] = true })

	var actionFlags []string
	for _, name := range []string{"source", "input", "output-var", "error-var", "on-error", "error-message"} {
		if opts.set[name] {
			actionFlags = append(actionFlags, "--"+name)
		}
	}
	switch {
	case fs.NArg() > 0:
		return opts, usageError(env, "submit", "unexpected argument %q: give the job with --file FILE or --source FILE", fs.Arg(0)), false
	case opts.file == "" && opts.source == "":
		return opts, usageError(env, "submit", "missing the job: give --file FILE (a job as JSON) or --source FILE (a script)"), false
	case opts.file != "" && len(actionFlags) > 0:
		return opts, usageError(env, "submit", "--file takes the action from the file: drop %s", strings.Join(actionFlags, " ")), false
	case opts.timeout <= 0:
		return opts, usageError(env, "submit", "--timeout must be positive, such as 30s, got %s", opts.timeout), false
	case opts.set["resolution"] && opts.resume == "":
		return opts, usageError(env, "submit", "--resolution answers a suspended job: give its continuation with --resume TOKEN"), false
	case opts.set["resolution"] && !json.Valid([]byte(opts.resolution)):
		return opts, usageError(env, "submit", "--resolution must be JSON, such as true, '\"yes\"' or '{\"approved\": true}', got %q", opts.resolution), false
	}
	if err := opts.broker.check(); err != nil {
		return opts, usageError(env, "submit", "%v", err), false
	}
	return opts, ExitOK, true
}

// buildJob reads or builds the job and validates it. A job that breaks the
// contract is reported field by field with ExitUsage.
func buildJob(env Env, opts submitOptions) (*flowjob.Job, int, bool) {
	var job *flowjob.Job
	if opts.file != "" {
		raw, err := readAll(env, opts.file, flowjob.MaxJobBytes, "the job")
		if err != nil {
			return nil, usageError(env, "submit", "%v", err), false
		}
		decoded, err := flowjob.Decode(trimByteOrderMark(raw))
		if problems := notOverridden(err, opts); len(problems) > 0 {
			return nil, invalidJob(env, problems, opts), false
		}
		job = decoded
	} else {
		source, err := readAll(env, opts.source, flowjob.MaxSourceBytes, "the script")
		if err != nil {
			return nil, usageError(env, "submit", "%v", err), false
		}
		job = jobFromScript(string(source), opts.inputs)
		job.Action.OutputVariable = opts.outputVar
		job.Action.ErrorVariable = opts.errorVar
		job.Action.OnError = flowjob.OnError(opts.onError)
		job.Action.ErrorMessage = opts.errorMessage
	}
	// With --source every job flag applies (with its default); with --file
	// only those given.
	fromFlags := opts.file == ""
	for _, o := range []struct {
		flag string
		dst  *string
		val  string
	}{
		{"id", &job.ID, opts.id}, {"session", &job.SessionID, opts.session},
		{"flow", &job.FlowID, opts.flow}, {"block", &job.BlockID, opts.block},
		{"context", (*string)(&job.Context), opts.context},
	} {
		if opts.set[o.flag] || fromFlags {
			*o.dst = o.val
		}
	}
	if opts.set["tenant"] {
		job.TenantID = opts.tenant
	}
	if opts.set["capability"] {
		job.Capabilities = opts.capabilities
	}
	if opts.resume != "" {
		if !opts.set["id"] {
			job.ID = "" // the suspended job's id is not the resume job's
		}
		resolution := json.RawMessage(opts.resolution)
		if opts.resolution == "" {
			resolution = nil
		}
		job = job.ResumeWith(job.ID, opts.resume, resolution)
	}
	if job.ID == "" && !opts.set["id"] {
		job.ID = newJobID("cli")
	}
	var ve *flowjob.ValidationError
	if err := job.Validate(); errors.As(err, &ve) {
		return nil, invalidJob(env, ve.Errors, opts), false
	} else if err != nil {
		return nil, usageError(env, "submit", "%v", err), false
	}
	return job, ExitOK, true
}

// notOverridden returns the problems of a decoded file, less those of the
// fields a flag replaces (a flag given makes the file's value moot) and a
// missing id (a new one is made).
func notOverridden(err error, opts submitOptions) []flowjob.FieldError {
	if err == nil {
		return nil
	}
	var ve *flowjob.ValidationError
	if !errors.As(err, &ve) {
		return []flowjob.FieldError{{Message: err.Error()}}
	}
	replaced := map[string]string{"id": "id", "sessionId": "session", "flowId": "flow", "blockId": "block", "context": "context"}
	var kept []flowjob.FieldError
	for _, fe := range ve.Errors {
		flagName, ok := replaced[fe.Field]
		switch {
		case ok && opts.set[flagName]:
		case fe.Field == "id" && strings.HasPrefix(fe.Message, "required"):
		default:
			kept = append(kept, fe)
		}
	}
	return kept
}

// invalidJob prints a job's problems, one field a line, and returns
// ExitUsage.
// A problem of a field a flag set names the flag too.
func invalidJob(env Env, problems []flowjob.FieldError, opts submitOptions) int {
	var b strings.Builder
	b.WriteString("flowscript submit: the job breaks the contract; nothing was published:\n")
	for _, fe := range problems {
		if flag := flagOf(fe.Field); flag != "" && (opts.file == "" || opts.set[flag]) {
			fe.Field += " (--" + flag + ")"
		}
		fmt.Fprintf(&b, "  %s\n", fe)
	}
	b.WriteString("Run 'flowscript help submit' for usage.\n")
	_, _ = fmt.Fprint(env.Stderr, b.String())
	return ExitUsage
}

// flagOf is the submit flag that sets field, or "".
func flagOf(field string) string {
	switch {
	case strings.HasPrefix(field, "action.inputVariables") || strings.HasPrefix(field, "variables"):
		return "input"
	case strings.HasPrefix(field, "capabilities"):
		return "capability"
	}
	return map[string]string{
		"id": "id", "sessionId": "session", "flowId": "flow", "blockId": "block", "context": "context",
		"action.source": "source", "action.outputVariable": "output-var", "action.errorVariable": "error-var",
		"action.onError": "on-error", "action.errorMessage": "error-message", "tenantId": "tenant",
		"resume.token": "resume", "resume.resolution": "resolution",
	}[field]
}

// jobFromScript is a flow job that runs source with inputs: each input is
// a session variable, passed to the script through a {{name}} template so
// that its value reaches the script unchanged.
func jobFromScript(source string, inputs []flowjob.InputVariable) *flowjob.Job {
	job := &flowjob.Job{
		Context: flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         source,
			InputVariables: []flowjob.InputVariable{},
			OutputVariable: "result",
			OnError:        flowjob.OnErrorBlocking,
		},
		Variables: map[string]string{},
	}
	for _, in := range inputs {
		job.Action.InputVariables = append(job.Action.InputVariables, flowjob.InputVariable{Name: in.Name, Value: "{{" + in.Name + "}}"})
		job.Variables[in.Name] = in.Value
	}
	return job
}

// inputFlag is the --input flag: name=value, repeatable, in order. Each
// name must be one a job's inputVariables may hold (parseInput) and differ
// from the names before it, as a job's must: a repeated name is the
// command line's mistake, refused with the flag, not the script's.
func inputFlag(inputs *[]flowjob.InputVariable) func(string) error {
	return func(s string) error {
		name, value, err := parseInput(s)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(*inputs, func(in flowjob.InputVariable) bool { return in.Name == name }) {
			return fmt.Errorf("%q is already given by an earlier --input; each input needs its own name", name)
		}
		*inputs = append(*inputs, flowjob.InputVariable{Name: name, Value: value})
		return nil
	}
}

// parseInput reads one --input: name=value, the name a JavaScript
// identifier and the value UTF-8 text.
func parseInput(s string) (name, value string, err error) {
	name, value, found := strings.Cut(s, "=")
	switch {
	case !found || name == "":
		return "", "", fmt.Errorf("want name=value, got %q", s)
	case jsident.Check(name) != nil:
		return "", "", jsident.Check(name)
	case !utf8.ValidString(value):
		at := textcut.InvalidAt([]byte(value))
		return "", "", fmt.Errorf("the value of %s is not UTF-8 text (byte 0x%02X at offset %d)", name, value[at], at)
	}
	return name, value, nil
}

// readAll reads file (standard input for "-"): UTF-8 text of at most limit
// bytes. A larger file is an error naming its size, and so is one that is
// not UTF-8: JSON would carry its bad bytes as U+FFFD, and the job would
// run (or the template be saved) with text the author never wrote.
func readAll(env Env, file string, limit int, what string) ([]byte, error) {
	r := env.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", what, err)
		}
		defer func() { _ = f.Close() }()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s %s is a directory: give a file, or - to read standard input", what, file)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s is %s the %d-byte limit", what, sizeOf(r), limit)
	}
	if at := textcut.InvalidAt(data); at >= 0 {
		return nil, fmt.Errorf("%s is not UTF-8 text (byte 0x%02X at offset %d): save it as UTF-8", what, data[at], at)
	}
	return data, nil
}

// newJobID returns prefix-<16 random hex digits>.
func newJobID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return prefix + "-" + hex.EncodeToString(b[:])
}
