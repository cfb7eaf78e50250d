package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/internal/executorapp"
)

// embeddedExecutor is `bench --embedded`'s world: an executor stack
// (executorapp.Stack: an embedded NATS server with JetStream in a temporary
// folder, listening on no port, the sandbox worker pool and the consumer),
// as cmd/executor runs it, and a client connection beside it.
type embeddedExecutor struct {
	dir        string
	stack      *executorapp.Stack
	clientConn *nats.Conn
	stopRun    context.CancelFunc
	done       chan error
	workers    int
	log        *slog.Logger
}

// embeddedStopGrace bounds how long stopping waits for the jobs in flight.
const embeddedStopGrace = 5 * time.Second

// startEmbeddedExecutor starts the stack (its pool sized and limited by the
// SANDBOX_* variables) with the subject prefix and results stream of b, and
// connects a client connection.
func startEmbeddedExecutor(ctx context.Context, env Env, b brokerFlags) (e *embeddedExecutor, err error) {
	limits, err := benchLimits(env)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "flowscript-bench-")
	if err != nil {
		return nil, fmt.Errorf("creating the embedded broker's folder: %w", err)
	}
	e = &embeddedExecutor{dir: dir, workers: limits.MaxParallel, log: benchLogger(env)}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	names := b.names()
	cfg := executorapp.Config{
		DataDir:       dir,
		SubjectPrefix: names.SubjectPrefix,
		ResultsStream: names.ResultsStream,
		ShutdownGrace: embeddedStopGrace,
		Limits:        limits,
	}.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return e, fmt.Errorf("configuring the embedded executor: %w", err)
	}
	if e.stack, err = executorapp.StartStack(ctx, cfg, executorapp.StackOptions{Logger: e.log}); err != nil {
		return e, fmt.Errorf("starting the embedded executor: %w", err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stopRun, e.done = stop, make(chan error, 1)
	go func() { e.done <- e.stack.Executor.Run(runCtx) }()
	if e.clientConn, err = e.stack.Connect("flowscript bench"); err != nil {
		return e, err
	}
	return e, nil
}

// Close stops everything started, in reverse order, and removes the
// broker's folder.
func (e *embeddedExecutor) Close() {
	if e.clientConn != nil {
		e.clientConn.Close()
	}
	if e.stopRun != nil {
		e.stopRun()
		if err := <-e.done; err != nil {
			e.log.Warn("stopping the embedded executor", "error", err)
		}
	}
	if e.stack != nil {
		e.stack.Close()
	}
	_ = os.RemoveAll(e.dir) // a temporary folder: best effort
}
