package templatesapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/flowscript/flowscript/internal/buildinfo"
	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// ServiceName is the OpenTelemetry service.name (OTEL_SERVICE_NAME
// overrides it).
const ServiceName = "flowscript-templates-api"

// Exit codes of Main.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// telemetryShutdownTimeout bounds the last flush of spans.
const telemetryShutdownTimeout = 5 * time.Second

// Sandbox is what the API runs and checks authors' scripts with: the
// sandbox worker pool in production, never this process.
type Sandbox interface {
	sandbox.Runner
	guardrails.Checker
	Close() error
}

// SandboxFactory builds the Sandbox with the service's limits.
type SandboxFactory func(ctx context.Context, limits sandbox.Limits, log *slog.Logger) (Sandbox, error)

// WorkerPool is the production SandboxFactory: killable worker processes.
// The binary must call workerpool.MaybeRunWorker first thing in main.
func WorkerPool(ctx context.Context, limits sandbox.Limits, log *slog.Logger) (Sandbox, error) {
	return workerpool.New(ctx, workerpool.Config{Limits: limits, Logger: log})
}

// InProcess is the SandboxFactory for trusted scripts only (tests):
// scripts run and are parsed in this process, with no hard limits.
func InProcess(_ context.Context, limits sandbox.Limits, log *slog.Logger) (Sandbox, error) {
	log.Warn("running and checking scripts in process: safe for trusted scripts only; production uses the worker pool")
	return inProcess{sandbox.NewInProcess(limits), guardrails.NewInProcess(limits)}, nil
}

type inProcess struct {
	*sandbox.InProcess
	guardrails.Checker
}

func (inProcess) Close() error { return nil }

// Deps is the service's outside world: cmd/templates-api passes the
// process's, tests their own.
type Deps struct {
	// Args are the command-line arguments after the program's name: the
	// service takes none but -h.
	Args   []string
	Getenv func(string) string
	Stdout io.Writer // logs, JSON lines
	Stderr io.Writer // configuration errors, before there is a logger
	// NewSandbox builds the sandbox: WorkerPool in cmd/templates-api. nil:
	// InProcess, safe for trusted scripts only.
	NewSandbox SandboxFactory
	// Listener, when set, is served instead of listening on TEMPLATES_ADDR.
	Listener net.Listener
	// SpanProcessor, when set, receives every span whatever the OTEL_*
	// variables say: tests pass an in-memory exporter.
	SpanProcessor sdktrace.SpanProcessor
}

// usage is what templates-api -h prints.
const usage = `Usage: templates-api

Serves the script templates API (DESIGN.md §6) until SIGTERM or SIGINT.
It takes no arguments: it is configured by environment variables, among
them AUTH_API_KEYS, AUTH_JWT_SECRET or AUTH_JWKS_URL (one is required),
TEMPLATES_ADDR, DATABASE_URL (unset: the embedded store in
TEMPLATES_DATA_DIR), the SANDBOX_* limits of test runs,
CAPABILITIES_POLICY_FILE, LOG_LEVEL and the standard OTEL_* variables.
Each is described in the README (Configuration) and in the package doc of
internal/templatesapi.
`

// Main runs the templates API until ctx ends (cmd/templates-api ends it on
// SIGTERM or SIGINT): it reads the configuration through d.Getenv, logs
// JSON lines with trace ids to d.Stdout, sends spans where the OTEL_*
// variables say, starts the sandbox and serves (Run). It returns the
// process exit code.
func Main(ctx context.Context, d Deps) int {
	switch {
	case len(d.Args) == 1 && (d.Args[0] == "-h" || d.Args[0] == "-help" || d.Args[0] == "--help" || d.Args[0] == "help"):
		_, _ = fmt.Fprint(d.Stdout, usage)
		return ExitOK
	case len(d.Args) > 0:
		_, _ = fmt.Fprintf(d.Stderr, "templates-api: it takes no arguments, got %q: it is configured by environment variables (templates-api -h names them)\n", d.Args)
		return ExitUsage
	}
	cfg, err := ConfigFromEnv(d.Getenv)
	if err != nil {
		_, _ = fmt.Fprintf(d.Stderr, "templates-api: configuration:\n%v\n", err) // stderr is the last place to report to
		return ExitUsage
	}
	logger, err := telemetry.NewLogger(d.Stdout, cfg.LogLevel)
	if err != nil {
		_, _ = fmt.Fprintf(d.Stderr, "templates-api: configuration:\n%v\n", err) // stderr is the last place to report to
		return ExitUsage
	}
	// Spans of the API's routes and store calls go where OTEL_* says
	// (nowhere when unset). The service has no metrics of its own and no
	// admin port: nothing is served on /metrics (see the package doc).
	tel, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName: ServiceName, Version: buildinfo.Version(), Getenv: d.Getenv, Logger: logger, SpanProcessor: d.SpanProcessor,
	})
	if err != nil {
		_, _ = fmt.Fprintf(d.Stderr, "templates-api: telemetry:\n%v\n", err) // stderr is the last place to report to
		return ExitUsage
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryShutdownTimeout)
		defer cancel()
		if err := tel.Shutdown(flushCtx); err != nil {
			logger.Warn("flushing telemetry", "error", err)
		}
	}()
	newSandbox := d.NewSandbox
	if newSandbox == nil {
		newSandbox = InProcess
	}
	// Authors' test runs and saves go through the same killable worker pool
	// as the executor's jobs: never in this process.
	box, err := newSandbox(ctx, cfg.Sandbox, logger)
	if err != nil {
		logger.Error("starting the sandbox worker pool", "error", err)
		return ExitFailed
	}
	defer func() {
		if err := box.Close(); err != nil {
			logger.Warn("stopping the sandbox worker pool", "error", err)
		}
	}()
	if err := Run(ctx, cfg, RunDeps{Logger: logger, Runner: box, Checker: box, Listener: d.Listener}); err != nil {
		logger.Error("templates-api stopped", "error", err)
		return ExitFailed
	}
	return ExitOK
}
