package executorapp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/internal/buildinfo"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// Deps is the executor's outside world: cmd/executor passes the process's,
// tests their own.
type Deps struct {
	Args   []string // without the program name
	Getenv func(string) string
	// Environ lists the environment (os.Environ): Main warns about the
	// variables that look like the executor's but are not (a misspelling).
	// nil: no check.
	Environ func() []string
	Stdout  io.Writer // demo results
	Stderr  io.Writer // logs
	// NewRunner builds the sandbox runner: WorkerPool in cmd/executor.
	// nil: InProcess, which is safe only for trusted scripts (tests, local
	// tries).
	NewRunner RunnerFactory
	// Examples are the demo's sample jobs; nil: package examples.
	Examples fs.FS
	// OnAdmin, when set, is told the admin server's address once it listens.
	OnAdmin func(addr string)
	// SpanProcessor, when set, receives every span whatever the OTEL_*
	// variables say (telemetry.Config.SpanProcessor): tests pass an
	// in-memory exporter.
	SpanProcessor sdktrace.SpanProcessor
	// HoldProcessor, when set and EXECUTOR_HOLD_PROCESSOR is on, holds a
	// processor for the process while it is busy, until its context ends,
	// and returns a wait for the hold to end: sysmonhold.Hold in
	// cmd/executor. It changes GOMAXPROCS, so tests that run Main in their
	// own process leave it nil.
	HoldProcessor func(context.Context) interface{ Wait() }
}

// ServiceName is the executor's OpenTelemetry service.name
// (OTEL_SERVICE_NAME overrides it).
const ServiceName = "flowscript-executor"

// After the jobs in flight (SHUTDOWN_GRACE), stopping takes at most: the
// last acks confirmed (consumer), the connection drained, the telemetry
// flushed.
const (
	drainTimeout             = 10 * time.Second
	telemetryShutdownTimeout = 5 * time.Second
	// StopOverhead is how long a stop may take beyond SHUTDOWN_GRACE: an
	// orchestrator's grace period must exceed SHUTDOWN_GRACE + StopOverhead.
	StopOverhead = consumer.MaxConfirmWait + drainTimeout + telemetryShutdownTimeout
)

// Exit codes of Main.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// Main runs the executor until ctx ends (cmd/executor ends it on SIGTERM
// or SIGINT), then shuts down in order. It returns the process exit code.
func Main(ctx context.Context, d Deps) int {
	flags := flag.NewFlagSet("executor", flag.ContinueOnError)
	flags.SetOutput(d.Stderr)
	demo := flags.String("demo", "auto", "auto|on|off: publish the sample jobs and print their result events (auto: with the embedded server only)")
	demoOnly := flags.Bool("demo-only", false, "run the demo, then shut down")
	version := flags.Bool("version", false, "print the executor's version (the commit it was built from) and exit")
	// The flag package prints its own error line; the usage goes to
	// standard output when asked for (-h), after the error otherwise.
	usage := func(w io.Writer) {
		_, _ = fmt.Fprintf(w, "Usage: executor [-demo auto|on|off] [-demo-only] [-version]\n\n"+
			"Runs executeScript jobs from NATS JetStream until SIGTERM or SIGINT. It is configured by\n"+
			"environment variables, described in the README (Configuration) and in the package doc of\n"+
			"internal/executorapp:\n%s\nFlags:\n", wrapWords(EnvVars(), 90, "  "))
		flags.SetOutput(w)
		flags.PrintDefaults()
	}
	flags.Usage = func() {}
	if err := flags.Parse(d.Args); errors.Is(err, flag.ErrHelp) {
		usage(d.Stdout)
		return ExitOK
	} else if err != nil {
		usage(d.Stderr)
		return ExitUsage
	}
	if *version {
		_, _ = fmt.Fprintf(d.Stdout, "executor %s\n", buildinfo.Version())
		return ExitOK
	}
	if flags.NArg() > 0 {
		_, _ = fmt.Fprintf(d.Stderr, "executor: unexpected argument %q: the executor is configured by environment variables (executor -h lists them)\n", flags.Arg(0))
		return ExitUsage
	}
	if *demo != "auto" && *demo != "on" && *demo != "off" {
		_, _ = fmt.Fprintf(d.Stderr, "executor: -demo must be auto, on or off, got %q\n", *demo) // stderr is the last place to report to
		return ExitUsage
	}
	cfg, err := ConfigFromEnv(d.Getenv)
	if err != nil {
		_, _ = fmt.Fprintf(d.Stderr, "executor: invalid configuration:\n%v\n", err) // stderr is the last place to report to
		if d.Environ != nil {                                                       // a misspelling may be the cause: NATS_ULR leaves NATS_URL empty
			for _, v := range unknownVariables(d.Environ(), EnvVars()) {
				if v.meant != "" {
					_, _ = fmt.Fprintf(d.Stderr, "(%s is not a variable the executor reads: did you mean %s?)\n", v.name, v.meant)
				}
			}
		}
		return ExitUsage
	}
	log, err := telemetry.NewLogger(d.Stderr, cfg.LogLevel)
	if err != nil { // Validate accepted the level
		_, _ = fmt.Fprintf(d.Stderr, "executor: invalid configuration:\n%v\n", err) // stderr is the last place to report to
		return ExitUsage
	}
	runDemo := *demoOnly || *demo == "on" || (*demo == "auto" && cfg.Embedded())

	log.Info("starting executor", "version", buildinfo.Version(), "config", cfg, "demo", runDemo)
	if d.Environ != nil {
		for _, v := range unknownVariables(d.Environ(), EnvVars()) {
			if v.meant != "" {
				log.Warn("ignoring a variable the executor does not read: a misspelling?", "variable", v.name, "did_you_mean", v.meant)
			} else {
				log.Warn("ignoring a variable the executor does not read: a misspelling? executor -h lists the variables", "variable", v.name)
			}
		}
	}
	if d.HoldProcessor != nil && cfg.HoldProcessor == "on" {
		holdCtx, stopHold := context.WithCancel(ctx)
		hold := d.HoldProcessor(holdCtx)
		defer hold.Wait()
		defer stopHold()
	}
	if err := run(ctx, cfg, d, runDemo, *demoOnly, log); err != nil {
		var bad configError
		if errors.As(err, &bad) {
			log.Error("executor: invalid configuration", "error", err.Error())
			return ExitUsage
		}
		log.Error("executor failed", "error", err.Error())
		return ExitFailed
	}
	return ExitOK
}

// configError is a failure of run that the configuration caused (an
// OTEL_* variable telemetry.Setup refuses): Main exits with ExitUsage for
// it, as for the variables ConfigFromEnv refuses.
type configError struct{ error }

func (e configError) Unwrap() error { return e.error }

// run wires the parts, runs until ctx ends (or the demo ends, with
// demoOnly), and tears them down in reverse order.
func run(ctx context.Context, cfg Config, d Deps, demo, demoOnly bool, log *slog.Logger) (err error) {
	tel, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName:   ServiceName,
		Version:       buildinfo.Version(),
		Getenv:        d.Getenv,
		Logger:        log,
		SpanProcessor: d.SpanProcessor,
	})
	if err != nil {
		return configError{err}
	}
	defer func() {
		// Last: the spans of the jobs that finished while stopping go out.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryShutdownTimeout)
		defer cancel()
		if serr := tel.Shutdown(sctx); serr != nil {
			log.Warn("flushing telemetry", "error", serr)
		}
	}()
	metrics, err := telemetry.NewMetrics(tel.MeterProvider())
	if err != nil {
		return err
	}

	// The admin port answers from the start: /readyz says 503, and why,
	// until the executor is connected, provisioned and pulling.
	var state readiness
	state.set("starting")
	admin, err := startAdmin(ctx, cfg.AdminAddr, tel.Handler(), state.get, log)
	if err != nil {
		return err
	}
	defer admin.shutdown()
	if d.OnAdmin != nil {
		d.OnAdmin(admin.Addr())
	}

	newRunner := d.NewRunner
	if newRunner == nil {
		newRunner = InProcess
	}
	opts := StackOptions{Logger: log, Metrics: metrics, NewRunner: newRunner, OnPhase: state.set}
	if demo && cfg.CapabilitiesPolicyFile == "" {
		crm, err := startDemoCRM(ctx, log)
		if err != nil {
			return err
		}
		defer crm.close()
		if opts.Hosts, err = demoCapabilities(crm); err != nil {
			return err
		}
		log.Info("demo: tenant demo may call the demo-crm connector", "url", crm.url)
	}
	stack, err := StartStack(ctx, cfg, opts)
	if err != nil {
		if ctx.Err() != nil {
			log.Info("stopped before the executor was ready")
			return nil
		}
		return err
	}
	exec := stack.Executor
	pending, err := metrics.ObservePending(exec.Pending, telemetry.DefaultPendingMaxAge)
	if err != nil {
		stack.Close()
		return err
	}
	defer func() {
		if uerr := pending.Unregister(); uerr != nil {
			log.Warn("stopping the pending-jobs metric", "error", uerr)
		}
	}()
	state.follow(exec.Ready)

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	done := make(chan error, 1)
	go func() { done <- exec.Run(runCtx) }()

	var demoErr error
	if demo {
		examplesFS := d.Examples
		if examplesFS == nil {
			examplesFS = examples.Jobs
		}
		if err := runDemo(runCtx, stack.Conn, exec.Config(), examplesFS, d.Stdout, log); err != nil && ctx.Err() == nil {
			demoErr = fmt.Errorf("running the demo: %w", err)
		}
		if demoOnly || demoErr != nil {
			stopRun()
		}
	}
	runErr := <-done
	stack.Close()
	if runErr != nil {
		return runErr
	}
	log.Info("executor shut down")
	return demoErr
}

// wrapWords joins words into lines of at most width bytes, each starting
// with indent and ending with a newline.
func wrapWords(words []string, width int, indent string) string {
	var b, line strings.Builder
	for _, w := range words {
		if line.Len() > 0 && line.Len()+1+len(w) > width {
			b.WriteString(line.String() + "\n")
			line.Reset()
		}
		if line.Len() == 0 {
			line.WriteString(indent + w)
		} else {
			line.WriteString(" " + w)
		}
	}
	if line.Len() > 0 {
		b.WriteString(line.String() + "\n")
	}
	return b.String()
}
