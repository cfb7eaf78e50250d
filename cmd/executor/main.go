// Command executor runs FlowScript's executeScript jobs from NATS JetStream
// in the sandbox worker pool and publishes one result event per job. See
// package executorapp for the environment variables and flags; with no
// NATS_URL it runs an embedded broker and a demo of the sample jobs.
package main

import (
	"context"
	"os"

	"github.com/flowscript/flowscript/internal/executorapp"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func main() {
	// First: when started as a sandbox worker, this never returns.
	workerpool.MaybeRunWorker()
	os.Exit(executorapp.Main(context.Background(), executorapp.Deps{
		Args:      os.Args[1:],
		Getenv:    os.Getenv,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		NewRunner: workerPool,
	}))
}

// workerPool runs scripts in killable worker processes (DESIGN.md §3).
// Each replaced worker is counted in flowscript_worker_restarts_total.
func workerPool(ctx context.Context, opts executorapp.RunnerOptions) (executorapp.Sandbox, error) {
	return workerpool.New(ctx, workerpool.Config{
		Limits:          opts.Limits,
		Logger:          opts.Logger,
		OnWorkerRestart: opts.OnWorkerRestart,
	})
}
