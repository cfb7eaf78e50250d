package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func init() {
	register(&Command{
		Name:    "replay",
		Summary: "rerun a recorded failed job in the local sandbox, beside its original error",
		Help:    replayHelp,
		Run:     replay,
	})
}

const replayHelp = `Usage:
  flowscript replay [broker flags] [--jobs-stream NAME] [--json] [--policy FILE] JOB_ID
  flowscript replay ... --source FILE|- JOB_ID
  flowscript replay ... --version N [--url URL] [--api-key KEY | --token JWT] JOB_ID

Reads the failure record of job JOB_ID — kept by the executor for every job
whose script failed, in the stream <JOBS_STREAM>_FAILURES — and runs the job
again in the local sandbox (worker processes, SANDBOX_* limits, the time
limit the job had), with the inputs interpolated from its recorded
variables. Nothing is published: no result, no job. It prints the original
error and the new outcome side by side.

  --source FILE|-  run this source instead of the recorded one (a fix)
  --version N      run version N of the job's template, fetched from the
                   templates API (GET <url>/script-templates/<templateId>/versions/N);
                   the job must have named its templateId
  --json           print {"jobId", "templateId", "templateVersion",
                   "original": {"sourceSha256", "error", "failedAt", "attempt"},
                   "replay": {"source", "sourceSha256", "status", "output",
                   "error", "durationMs", "logs"}, "sameError"}
  --policy FILE    grant host functions as the executor's policy does (see
                   flowscript help run); without it a host call throws
                   CAPABILITY_DENIED
  --timeout D      for reading the record, fetching a version and the run
                   (default 60s)

Broker flags: --nats URL (default $NATS_URL, else nats://127.0.0.1:4222),
--creds FILE ($NATS_CREDS), --subject-prefix P ($SUBJECT_PREFIX, else
flowscript), --jobs-stream NAME ($JOBS_STREAM, else JOBS).
Templates API flags (--version only): --url ($FLOWSCRIPT_API_URL, else
http://127.0.0.1:8081/api), --api-key ($FLOWSCRIPT_API_KEY), --token
($FLOWSCRIPT_TOKEN).

A record keeps only the variables the action reads and no continuation
token. A resume job is replayed from its start, its recorded resolution
answering the first approval request.

Exit status: 0 when the replay succeeded, 1 when it failed (the same error
or another) or the record cannot be read, 2 for a usage error.

Examples:
  flowscript replay 01J9Z3Q4W5E6R7T8Y9U0I1O2P3
  flowscript replay --source fixed.js 01J9Z3Q4W5E6R7T8Y9U0I1O2P3
  FLOWSCRIPT_API_KEY=... flowscript replay --version 3 --json 01J9Z3Q4W5E6R7T8Y9U0I1O2P3 | jq .sameError
`

type replayOptions struct {
	broker     brokerFlags
	jobsStream string
	api        apiClient
	source     string
	version    int
	policy     string
	json       bool
	timeout    time.Duration
	jobID      string
}

func replay(ctx context.Context, env Env, args []string) int {
	o, code, ok := parseReplay(env, args)
	if !ok {
		return code
	}
	fail := func(format string, args ...any) int {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript replay: %s\n", fmt.Sprintf(format, args...))
		return ExitFailed
	}
	limits, err := sandbox.LimitsFromEnv(env.Getenv)
	if err != nil {
		return usageError(env, "replay", "%v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	var source []byte
	if o.source != "" {
		if source, err = readAll(env, o.source, limits.MaxSourceBytes, "the source"); err != nil {
			return usageError(env, "replay", "%v", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	rec, err := o.load(ctx)
	if err != nil {
		return fail("%v", err)
	}
	opts := failrecord.Options{Source: string(source), SourceLabel: "file " + o.source}
	if o.source == "-" {
		opts.SourceLabel = "standard input"
	}
	if o.version > 0 {
		if rec.Job.TemplateID == "" {
			return fail("job %s named no templateId, so it has no template version to run: give --source FILE instead", rec.Job.ID)
		}
		src, err := o.api.versionSource(ctx, rec.Job.TemplateID, o.version)
		if err != nil {
			return fail("%v", err)
		}
		opts.Source, opts.SourceLabel = src, fmt.Sprintf("template version %d", o.version)
	}
	if len(rec.Job.Capabilities) > 0 {
		caps, err := loadRunCapabilities(env, o.policy)
		if err != nil {
			return fail("%v", err)
		}
		opts.Grants = caps.HostFor
	}
	// The job's time limit, where the local one is shorter.
	limits.Timeout = max(limits.Timeout, time.Duration(rec.TimeoutMs)*time.Millisecond)
	limits.MaxParallel = 1
	pool, err := workerpool.New(ctx, workerpool.Config{
		Limits: limits,
		Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return fail("%v", err)
	}
	defer func() { _ = pool.Close() }()

	opts.Timeout = limits.Timeout
	report := failrecord.Replay(ctx, pool, rec, opts)
	if o.json {
		line, err := flowjob.Marshal(report)
		if err != nil {
			return fail("encoding the report: %v", err)
		}
		_, _ = fmt.Fprintf(env.Stdout, "%s\n", line)
	} else {
		printReplay(env.Stdout, report)
	}
	if report.Replay.Status != flowjob.StatusSucceeded {
		return ExitFailed
	}
	return ExitOK
}

func parseReplay(env Env, args []string) (o replayOptions, code int, ok bool) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.broker.register(fs, env)
	fs.StringVar(&o.jobsStream, "jobs-stream", envOr(env, "JOBS_STREAM", flowjob.DefaultJobsStream), "")
	fs.StringVar(&o.api.base, "url", envOr(env, "FLOWSCRIPT_API_URL", defaultAPIURL), "")
	fs.StringVar(&o.api.apiKey, "api-key", env.Getenv("FLOWSCRIPT_API_KEY"), "")
	fs.StringVar(&o.api.token, "token", env.Getenv("FLOWSCRIPT_TOKEN"), "")
	fs.StringVar(&o.source, "source", "", "")
	fs.IntVar(&o.version, "version", 0, "")
	fs.StringVar(&o.policy, "policy", "", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "")
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = fmt.Fprint(env.Stdout, replayHelp)
		return o, ExitOK, false
	}
	if err != nil {
		return o, usageError(env, "replay", "%v", err), false
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var problem string
	switch {
	case len(positional) != 1:
		problem = fmt.Sprintf("give one JOB_ID, got %d arguments", len(positional))
	case !flowjob.ValidID(positional[0]):
		problem = fmt.Sprintf("%q is not a job id: ids are letters, digits, '-' or '_'", positional[0])
	case o.source != "" && set["version"]:
		problem = "give --source or --version, not both"
	case set["version"] && o.version < 1:
		problem = fmt.Sprintf("--version must be 1 or more, got %d", o.version)
	case o.timeout <= 0:
		problem = fmt.Sprintf("--timeout must be positive, such as 60s, got %s", o.timeout)
	case !flowjob.ValidStreamName(o.jobsStream):
		problem = fmt.Sprintf("--jobs-stream must be a name of letters, digits, '-' or '_', got %q", o.jobsStream)
	case o.version > 0 && o.api.apiKey != "" && o.api.token != "":
		problem = "give --api-key or --token, not both (check FLOWSCRIPT_API_KEY and FLOWSCRIPT_TOKEN)"
	}
	if problem == "" {
		if err := o.broker.check(); err != nil {
			problem = err.Error()
		}
	}
	if problem == "" && o.version > 0 {
		if u, err := url.Parse(o.api.base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problem = fmt.Sprintf("--url must be the templates API's base URL such as %s, got %q", defaultAPIURL, o.api.base)
		}
	}
	if problem != "" {
		return o, usageError(env, "replay", "%s", problem), false
	}
	o.jobID = positional[0]
	o.api.base = strings.TrimSuffix(o.api.base, "/")
	return o, ExitOK, true
}

// load reads the job's failure record from the broker.
func (o replayOptions) load(ctx context.Context) (failrecord.Record, error) {
	nc, err := o.broker.connect(ctx, "replay")
	if err != nil {
		return failrecord.Record{}, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return failrecord.Record{}, fmt.Errorf("opening JetStream: %w", err)
	}
	return failrecord.Load(ctx, js, failrecord.StreamName(o.jobsStream), o.broker.names().Subjects(), o.jobID)
}

// versionSource fetches the source of version n of template id from the
// templates API.
func (c apiClient) versionSource(ctx context.Context, id string, n int) (string, error) {
	target := c.base + "/script-templates/" + url.PathEscape(id) + "/versions/" + strconv.Itoa(n)
	resp, raw, err := c.roundTrip(ctx, http.MethodGet, target, nil, 4<<20)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "", fmt.Errorf("GET %s: no answer within --timeout: is the templates API up?", target)
	case err != nil:
		return "", err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return "", fmt.Errorf("GET %s answered 404: template %s has no version %d (list them with GET .../versions)", target, id, n)
	case resp.StatusCode == http.StatusUnauthorized && c.apiKey == "" && c.token == "":
		return "", fmt.Errorf("GET %s answered 401: set FLOWSCRIPT_API_KEY (or --api-key) or FLOWSCRIPT_TOKEN (or --token)", target)
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("GET %s answered %s: %s", target, resp.Status, strings.TrimSpace(string(raw)))
	}
	var v struct {
		Source *string `json:"source"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Source == nil {
		return "", fmt.Errorf("GET %s answered without a source: is --url the templates API's base, such as %s?", target, defaultAPIURL)
	}
	return *v.Source, nil
}

// printReplay writes the original failure and the replay side by side.
// What came from the job (messages, output, the approval request, console
// lines) may hold a contact's text: its control characters are written
// escaped (visible), so that none reaches the operator's terminal as a
// command (a black-box probe: an error message with ESC ]0; retitled it).
func printReplay(w io.Writer, r failrecord.Report) {
	title := "job " + r.JobID
	if r.TemplateID != "" {
		title += " (template " + r.TemplateID
		if r.TemplateVersion > 0 {
			title += " v" + strconv.Itoa(r.TemplateVersion)
		}
		title += ")"
	}
	_, _ = fmt.Fprintln(w, title)
	o, n := r.Original, r.Replay
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, a, b string) { _, _ = fmt.Fprintf(tw, "%s\t%s\t%s\n", label, a, b) }
	row("", fmt.Sprintf("original (attempt %d, %s)", o.Attempt, o.FailedAt.UTC().Format(time.RFC3339)), "replay ("+n.Source+")")
	row("source sha256", short(o.SourceSHA256), short(n.SourceSHA256))
	row("status", string(flowjob.StatusFailed), string(n.Status))
	var code, message, position string
	if e := n.Error; e != nil {
		code, message, position = e.Code, visible(oneLine(e.Message, 60)), linePos(e.Line, e.Column)
	}
	row("code", o.Error.Code, code)
	row("message", visible(oneLine(o.Error.Message, 60)), message)
	row("line:column", linePos(o.Error.Line, o.Error.Column), position)
	switch {
	case n.Output != nil:
		row("output", "", visible(oneLine(*n.Output, 60)))
	case n.Status == flowjob.StatusSuspended:
		row("approval", "", visible(oneLine(string(n.Request), 60)))
	}
	row("duration", "", fmt.Sprintf("%.1f ms", n.DurationMs))
	_ = tw.Flush()
	for _, l := range n.Logs {
		_, _ = fmt.Fprintf(w, "[%s] line %d: %s\n", l.Level, l.Line, visible(l.Message))
	}
	switch {
	case r.SameError:
		_, _ = fmt.Fprintln(w, "reproduced: the same code, line and column")
	case n.Status == flowjob.StatusSucceeded:
		_, _ = fmt.Fprintln(w, "fixed: the replay succeeded")
	default:
		_, _ = fmt.Fprintln(w, "not reproduced: the replay ended otherwise")
	}
}

// visible writes s's control characters (C0 but tab and newline, DEL, C1)
// as escapes: \x1b, \u009b.
func visible(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' }

func linePos(line, col int) string {
	if line == 0 {
		return "-"
	}
	return fmt.Sprintf("%d:%d", line, col)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
