package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/natsurl"
	"github.com/flowscript/flowscript/internal/pause"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func init() {
	register(&Command{
		Name:    "bench",
		Summary: "publish many jobs and measure throughput and latency",
		Help:    benchHelp,
		Run:     bench,
	})
}

const benchHelp = `Usage:
  flowscript bench [--nats URL | --embedded] [--jobs N] [--rate R/s] [--concurrency C]
                   [--script FILE [--input name=value ...] | --example cpf|nome [--input name=value]]
                   [--timeout 60s] [--max-errors 10] [--json] [--progress]

A load generator: publishes N jobs (the same script, each with its own id)
at a target rate from C concurrent publishers, each waiting for its job's
result on the job's Reply-To inbox, then prints the throughput (results per
second, from the first publish to the last result) and the p50, p95 and p99
latency from publish to result.

--embedded runs everything in this process: a NATS server with JetStream in
a temporary folder (removed at the end) and an executor with the sandbox
worker pool, sized by SANDBOX_MAX_PARALLEL (default 8) and limited by the
other SANDBOX_* variables. Without it, bench publishes to --nats, where an
executor must be running (its streams must exist).

Flags:
  --jobs N             how many jobs to publish (default 1000)
  --rate R             target publish rate in jobs per second, "200" or "200/s";
                       0 publishes as fast as the publishers go (default 0)
  --concurrency C      publishers, each with one job in flight (default 16)
  --example NAME       the script of a sample job: cpf or nome (default cpf)
  --script FILE        a script instead, run with the --input values
  --input name=value   an input of the script; with --example, replaces the
                       value of the sample's input of that name (repeatable)
  --timeout D          how long one job may wait for its result (default 60s)
  --max-errors N       stop after N jobs got no result (default 10)
  --json               print the summary as one JSON line on stdout (the
                       table then goes to stderr)
  --progress           draw a progress line on stderr (default: when stderr
                       is a terminal); --progress=false hides it
  --nats, --creds, --subject-prefix, --results-stream
                       the broker, as for 'flowscript submit'

Exit status: 0 when every job got a result (a script that fails still gives
one), 1 when some did not or the run was interrupted, 2 for a usage error.

Figures depend on the machine and on what else runs on it: report them with
the command that produced them.

Examples:
  flowscript bench --embedded --jobs 5000 --concurrency 64 --example cpf
  flowscript bench --embedded --jobs 5000 --concurrency 64 --rate 200 --example nome
  flowscript bench --nats nats://nats:4222 --jobs 20000 --concurrency 128 --json
  flowscript bench --embedded --script my.js --input valor=42 --jobs 500
`

// exampleJobs are the sample jobs --example names.
var exampleJobs = map[string]string{
	"cpf":  "01-success-cpf.json",
	"nome": "02-success-nome.json",
}

// benchOptions is the parsed command line of bench.
type benchOptions struct {
	broker      brokerFlags
	embedded    bool
	jobs        int
	rate        float64
	concurrency int
	script      string
	example     string
	inputs      []flowjob.InputVariable
	timeout     time.Duration
	maxErrors   int
	json        bool
	progress    bool
}

func bench(ctx context.Context, env Env, args []string) int {
	opts, code, ok := parseBench(env, args)
	if !ok {
		return code
	}
	tmpl, err := benchJob(env, opts)
	if err != nil {
		return usageError(env, "bench", "%v", err)
	}

	client, workers, stop, err := benchTarget(ctx, env, opts)
	if err != nil {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript bench: %v\n", err)
		return ExitFailed
	}
	defer stop()

	var bar *progressBar
	st := &benchStats{latencies: make([]time.Duration, 0, opts.jobs)}
	if opts.progress {
		bar = startProgress(env.Stderr, opts.jobs, func() int { return int(st.finished.Load()) })
	}
	elapsed := runBench(ctx, client, tmpl, opts, newJobID("bench"), st)
	if bar != nil {
		bar.Stop()
	}

	sum := st.summary(opts, elapsed, workers)
	table, jsonOut := env.Stdout, io.Writer(nil)
	if opts.json {
		table, jsonOut = env.Stderr, env.Stdout
	}
	printBenchTable(table, sum)
	if jsonOut != nil {
		line, err := flowjob.Marshal(sum)
		if err != nil {
			_, _ = fmt.Fprintf(env.Stderr, "flowscript bench: encoding the summary: %v\n", err)
			return ExitFailed
		}
		_, _ = fmt.Fprintf(jsonOut, "%s\n", line)
	}
	switch {
	case ctx.Err() != nil:
		_, _ = fmt.Fprintln(env.Stderr, "flowscript bench: interrupted; the figures cover the jobs finished so far")
		return ExitFailed
	case st.noResult > 0:
		_, _ = fmt.Fprintf(env.Stderr, "flowscript bench: %d jobs got no result (first: %v); is the executor keeping up? Try a longer --timeout or a lower --rate\n",
			st.noResult, st.firstErr)
		return ExitFailed
	case sum.Results < opts.jobs:
		_, _ = fmt.Fprintf(env.Stderr, "flowscript bench: only %d of %d jobs got a result\n", sum.Results, opts.jobs)
		return ExitFailed
	}
	return ExitOK
}

func parseBench(env Env, args []string) (opts benchOptions, code int, ok bool) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.broker.register(fs, env)
	fs.BoolVar(&opts.embedded, "embedded", false, "")
	fs.IntVar(&opts.jobs, "jobs", 1000, "")
	fs.Func("rate", "", func(s string) error {
		r, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "/s"), 64)
		if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return fmt.Errorf("want jobs per second such as 200 or 200/s (0: as fast as possible), got %q", s)
		}
		opts.rate = r
		return nil
	})
	fs.IntVar(&opts.concurrency, "concurrency", 16, "")
	fs.StringVar(&opts.script, "script", "", "")
	fs.StringVar(&opts.example, "example", "", "")
	fs.Func("input", "", inputFlag(&opts.inputs))
	fs.DurationVar(&opts.timeout, "timeout", 60*time.Second, "")
	fs.IntVar(&opts.maxErrors, "max-errors", 10, "")
	fs.BoolVar(&opts.json, "json", false, "")
	fs.BoolVar(&opts.progress, "progress", isTerminal(env.Stderr), "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = fmt.Fprint(env.Stdout, benchHelp)
			return opts, ExitOK, false
		}
		return opts, usageError(env, "bench", "%v", err), false
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var problem string
	switch {
	case fs.NArg() > 0:
		problem = fmt.Sprintf("unexpected argument %q: bench takes only flags", fs.Arg(0))
	case opts.embedded && (set["nats"] || set["creds"]):
		problem = "--embedded runs its own broker: drop --nats and --creds, or drop --embedded"
	case opts.jobs < 1:
		problem = fmt.Sprintf("--jobs must be at least 1, got %d", opts.jobs)
	case opts.concurrency < 1:
		problem = fmt.Sprintf("--concurrency must be at least 1, got %d", opts.concurrency)
	case opts.script != "" && opts.example != "":
		problem = "--script and --example both name the script: give one"
	case opts.timeout <= 0:
		problem = fmt.Sprintf("--timeout must be positive, such as 60s, got %s", opts.timeout)
	case opts.maxErrors < 1:
		problem = fmt.Sprintf("--max-errors must be at least 1, got %d", opts.maxErrors)
	}
	if problem == "" && opts.script == "" {
		if opts.example == "" {
			opts.example = "cpf"
		}
		if _, known := exampleJobs[opts.example]; !known {
			problem = fmt.Sprintf("--example must be cpf or nome, got %q", opts.example)
		}
	}
	if problem == "" {
		if err := opts.broker.check(); err != nil {
			problem = err.Error()
		}
	}
	if problem != "" {
		return opts, usageError(env, "bench", "%s", problem), false
	}
	return opts, ExitOK, true
}

// benchJob is the job every bench job copies (with its own id).
func benchJob(env Env, opts benchOptions) (flowjob.Job, error) {
	var job *flowjob.Job
	if opts.script != "" {
		source, err := readAll(env, opts.script, flowjob.MaxSourceBytes, "the script")
		if err != nil {
			return flowjob.Job{}, err
		}
		job = jobFromScript(string(source), opts.inputs)
		job.Action.OnError = flowjob.OnErrorContinue
		job.SessionID, job.FlowID, job.BlockID = "bench-session", "bench-flow", "bench-block"
	} else {
		raw, err := fs.ReadFile(examples.Jobs, exampleJobs[opts.example])
		if err != nil {
			return flowjob.Job{}, fmt.Errorf("reading the sample job %s: %w", opts.example, err)
		}
		if job, err = flowjob.Decode(raw); err != nil {
			return flowjob.Job{}, fmt.Errorf("decoding the sample job %s: %w", opts.example, err)
		}
		if err := setExampleInputs(job, opts.example, opts.inputs); err != nil {
			return flowjob.Job{}, err
		}
	}
	job.ID = "bench-template" // replaced per job; Validate needs one
	if err := job.Validate(); err != nil {
		return flowjob.Job{}, err
	}
	return *job, nil
}

// setExampleInputs gives the sample's inputs the values of --input.
func setExampleInputs(job *flowjob.Job, example string, inputs []flowjob.InputVariable) error {
	vars := maps.Clone(job.Variables)
	if vars == nil {
		vars = map[string]string{}
	}
	ins := slices.Clone(job.Action.InputVariables)
	for _, in := range inputs {
		i := slices.IndexFunc(ins, func(v flowjob.InputVariable) bool { return v.Name == in.Name })
		if i < 0 {
			names := make([]string, len(ins))
			for j, v := range ins {
				names[j] = v.Name
			}
			return fmt.Errorf("--input %s: the %s example takes %s", in.Name, example, strings.Join(names, ", "))
		}
		ins[i].Value = "{{" + in.Name + "}}"
		vars[in.Name] = in.Value
	}
	job.Variables, job.Action.InputVariables = vars, ins
	return nil
}

// benchTarget connects to the broker (or starts the embedded one and its
// executor) and returns the client, the executor's worker count when
// known (0 otherwise) and what stops it all.
func benchTarget(ctx context.Context, env Env, opts benchOptions) (*flowclient.Client, int, func(), error) {
	if opts.embedded {
		e, err := startEmbeddedExecutor(ctx, env, opts.broker)
		if err != nil {
			return nil, 0, nil, err
		}
		client, err := opts.broker.client(e.clientConn)
		if err != nil {
			e.Close()
			return nil, 0, nil, err
		}
		return client, e.workers, e.Close, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nc, err := opts.broker.connect(cctx, "bench")
	if err != nil {
		return nil, 0, nil, err
	}
	if err := opts.broker.checkJobsStream(cctx, nc); err != nil {
		nc.Close()
		return nil, 0, nil, fmt.Errorf("%w (or run with --embedded)", err)
	}
	client, err := opts.broker.client(nc)
	if err != nil {
		nc.Close()
		return nil, 0, nil, err
	}
	return client, 0, nc.Close, nil
}

// benchStats collects the outcome of every job.
type benchStats struct {
	finished atomic.Int64 // jobs with an outcome, for the progress bar

	mu        sync.Mutex
	latencies []time.Duration // publish → result, one per result
	sent      int
	succeeded int
	failed    int
	noResult  int
	firstErr  error
}

// record files one job's outcome and returns the jobs without a result so
// far. A job cut short because the run stopped (interrupt, too many
// errors) counts in none of them.
func (st *benchStats) record(run context.Context, res *flowjob.Result, err error, latency time.Duration) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case err == nil && res.Status == flowjob.StatusSucceeded:
		st.succeeded++
		st.latencies = append(st.latencies, latency)
	case err == nil:
		st.failed++
		st.latencies = append(st.latencies, latency)
	case run.Err() != nil:
	default:
		st.noResult++
		if st.firstErr == nil {
			st.firstErr = err
		}
	}
	st.finished.Add(1)
	return st.noResult
}

// runBench publishes opts.jobs copies of tmpl and waits for their results,
// and returns the time from the first publish to the last result.
func runBench(ctx context.Context, client *flowclient.Client, tmpl flowjob.Job, opts benchOptions, runID string, st *benchStats) time.Duration {
	run, abort := context.WithCancel(ctx)
	defer abort()
	next := make(chan int)
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(next)
		for i := range opts.jobs {
			if opts.rate > 0 && !pause.Until(run, start.Add(time.Duration(float64(i)/opts.rate*float64(time.Second)))) {
				return
			}
			select {
			case next <- i:
			case <-run.Done():
				return
			}
		}
	})
	var last atomic.Int64 // nanoseconds since start of the last result
	for range opts.concurrency {
		wg.Go(func() {
			for i := range next {
				job := tmpl
				job.ID = runID + "-" + strconv.Itoa(i)
				st.mu.Lock()
				st.sent++
				st.mu.Unlock()
				jctx, cancel := context.WithTimeout(run, opts.timeout)
				t0 := time.Now()
				res, err := client.Run(jctx, &job)
				end := time.Now()
				cancel()
				if err == nil {
					storeMax(&last, int64(end.Sub(start)))
				}
				if st.record(run, res, err, end.Sub(t0)) >= opts.maxErrors {
					abort()
				}
			}
		})
	}
	wg.Wait()
	if l := last.Load(); l > 0 {
		return time.Duration(l)
	}
	return time.Since(start)
}

func storeMax(a *atomic.Int64, v int64) {
	for cur := a.Load(); v > cur && !a.CompareAndSwap(cur, v); cur = a.Load() {
	}
}

// benchSummary is what bench prints: the table and the --json line.
type benchSummary struct {
	Jobs           int            `json:"jobs"`
	Sent           int            `json:"sent"`
	Results        int            `json:"results"`
	Succeeded      int            `json:"succeeded"`
	Failed         int            `json:"failed"`
	NoResult       int            `json:"noResult"`
	ElapsedSeconds float64        `json:"elapsedSeconds"`
	JobsPerSecond  float64        `json:"jobsPerSecond"`
	LatencyMs      benchLatencies `json:"latencyMs"`
	Concurrency    int            `json:"concurrency"`
	TargetRate     float64        `json:"targetRate"`
	Script         string         `json:"script"`
	Broker         string         `json:"broker"`
	Workers        int            `json:"executorWorkers,omitempty"`
}

type benchLatencies struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

func (st *benchStats) summary(opts benchOptions, elapsed time.Duration, workers int) benchSummary {
	st.mu.Lock()
	defer st.mu.Unlock()
	lat := slices.Clone(st.latencies)
	slices.Sort(lat)
	s := benchSummary{
		Jobs:           opts.jobs,
		Sent:           st.sent,
		Results:        len(lat),
		Succeeded:      st.succeeded,
		Failed:         st.failed,
		NoResult:       st.noResult,
		ElapsedSeconds: round3(elapsed.Seconds()),
		Concurrency:    opts.concurrency,
		TargetRate:     opts.rate,
		Script:         "example " + opts.example,
		Broker:         natsurl.Redact(opts.broker.url),
		Workers:        workers,
	}
	if opts.script != "" {
		s.Script = opts.script
	}
	if opts.embedded {
		s.Broker = "embedded"
	}
	if elapsed > 0 {
		s.JobsPerSecond = round3(float64(len(lat)) / elapsed.Seconds())
	}
	if len(lat) > 0 {
		var total time.Duration
		for _, d := range lat {
			total += d
		}
		s.LatencyMs = benchLatencies{
			P50:  ms(percentile(lat, 50)),
			P95:  ms(percentile(lat, 95)),
			P99:  ms(percentile(lat, 99)),
			Max:  ms(lat[len(lat)-1]),
			Mean: ms(total / time.Duration(len(lat))),
		}
	}
	return s
}

// percentile is the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func printBenchTable(w io.Writer, s benchSummary) {
	rate := "as fast as possible"
	if s.TargetRate > 0 {
		rate = strconv.FormatFloat(s.TargetRate, 'f', -1, 64) + " jobs/s"
	}
	broker := s.Broker
	if s.Workers > 0 {
		broker += fmt.Sprintf(" (executor in process, %d sandbox workers)", s.Workers)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rows := [][2]string{
		{"script", s.Script},
		{"broker", broker},
		{"concurrency", strconv.Itoa(s.Concurrency)},
		{"target rate", rate},
		{"jobs", fmt.Sprintf("%d (%d published)", s.Jobs, s.Sent)},
		{"results", fmt.Sprintf("%d (%d succeeded, %d failed)", s.Results, s.Succeeded, s.Failed)},
		{"no result", strconv.Itoa(s.NoResult)},
		{"elapsed", fmt.Sprintf("%.2fs", s.ElapsedSeconds)},
		{"throughput", fmt.Sprintf("%.1f jobs/s", s.JobsPerSecond)},
		{"latency p50", fmt.Sprintf("%.1fms", s.LatencyMs.P50)},
		{"latency p95", fmt.Sprintf("%.1fms", s.LatencyMs.P95)},
		{"latency p99", fmt.Sprintf("%.1fms", s.LatencyMs.P99)},
		{"latency max", fmt.Sprintf("%.1fms", s.LatencyMs.Max)},
	}
	_, _ = fmt.Fprintln(w, "flowscript bench")
	for _, r := range rows {
		_, _ = fmt.Fprintf(tw, "  %s\t%s\n", r[0], r[1])
	}
	_ = tw.Flush()
}

// benchLogger is the embedded executor's: warnings and errors only, on
// stderr.
func benchLogger(env Env) *slog.Logger {
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// benchLimits reads the SANDBOX_* variables for the embedded executor.
func benchLimits(env Env) (sandbox.Limits, error) {
	l, err := sandbox.LimitsFromEnv(env.Getenv)
	if err != nil {
		return l, fmt.Errorf("reading the SANDBOX_* variables: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return l, nil
}
