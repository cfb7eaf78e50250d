// Command templates-api serves the script templates API (DESIGN.md §6).
// Configuration comes from the environment: see package templatesapi, and
// the standard OTEL_* variables for traces (package telemetry).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/templatesapi"
)

func main() {
	workerpool.MaybeRunWorker() // a sandbox worker never returns from here
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal stops the process at once, as Ctrl-C twice asks
	}()
	code := templatesapi.Main(ctx, templatesapi.Deps{
		Args:       os.Args[1:],
		Getenv:     os.Getenv,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		NewSandbox: templatesapi.WorkerPool,
	})
	stop()
	os.Exit(code)
}
