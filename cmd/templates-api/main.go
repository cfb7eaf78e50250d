// Command templates-api serves the script templates API (DESIGN.md §6).
// Configuration comes from the environment: see templatesapi.Config, and
// the standard OTEL_* variables for traces (package telemetry).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/templatesapi"
)

// serviceName is the OpenTelemetry service.name (OTEL_SERVICE_NAME
// overrides it).
const serviceName = "flowscript-templates-api"

func main() {
	// First: when started as a sandbox worker, this never returns.
	workerpool.MaybeRunWorker()
	os.Exit(run())
}

// run serves until SIGTERM or SIGINT and returns the exit code; its
// deferred cleanup runs before main exits.
func run() int {
	cfg, err := templatesapi.ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "templates-api: configuration:\n%v\n", err)
		return 2
	}
	// JSON lines with trace_id and span_id when a request has a trace.
	logger, err := telemetry.NewLogger(os.Stdout, cfg.LogLevel)
	if err != nil {
		fmt.Fprintf(os.Stderr, "templates-api: configuration:\n%v\n", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	// Spans of the API's routes and store calls go where OTEL_* says
	// (nowhere when unset). The service has no metrics of its own and no
	// admin port: nothing is served on /metrics (templatesapi's doc).
	tel, err := telemetry.Setup(ctx, telemetry.Config{ServiceName: serviceName, Logger: logger})
	if err != nil {
		fmt.Fprintf(os.Stderr, "templates-api: telemetry:\n%v\n", err)
		return 2
	}

	// Authors' test runs go through the same killable worker pool as the
	// executor's jobs: never in this process.
	pool, err := workerpool.New(ctx, workerpool.Config{Limits: cfg.Sandbox, Logger: logger})
	if err != nil {
		fmt.Fprintf(os.Stderr, "templates-api: starting the sandbox worker pool:\n%v\n", err)
		return 1
	}

	code := 0
	if err := templatesapi.Run(ctx, cfg, templatesapi.Deps{Logger: logger, Runner: pool}); err != nil {
		logger.Error("templates-api stopped", "error", err)
		code = 1
	}
	if err := pool.Close(); err != nil {
		logger.Warn("stopping the sandbox worker pool", "error", err)
	}
	flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tel.Shutdown(flushCtx); err != nil {
		logger.Warn("flushing telemetry", "error", err)
	}
	return code
}
