// Command executor runs FlowScript's executeScript jobs from NATS JetStream
// in the sandbox worker pool and publishes one result event per job. See
// package executorapp for the environment variables and flags; with no
// NATS_URL it runs an embedded broker and a demo of the sample jobs.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/executorapp"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/sysmonhold"
)

func main() {
	workerpool.MaybeRunWorker() // a sandbox worker never returns from here
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(consumer.GCPercent) // GOGC in the environment still decides
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal stops the process at once, as Ctrl-C twice asks
	}()
	code := executorapp.Main(ctx, executorapp.Deps{
		Args:          os.Args[1:],
		Getenv:        os.Getenv,
		Environ:       os.Environ,
		Stdout:        os.Stdout,
		Stderr:        os.Stderr,
		NewRunner:     executorapp.WorkerPool,
		HoldProcessor: holdProcessor,
	})
	stop()
	os.Exit(code)
}

// holdProcessor keeps the Go runtime's monitor thread calm while the
// executor is busy (package sysmonhold).
func holdProcessor(ctx context.Context) interface{ Wait() } { return sysmonhold.Hold(ctx) }
