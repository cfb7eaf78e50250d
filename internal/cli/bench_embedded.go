package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

// embeddedExecutor is `bench --embedded`'s world: a NATS server with
// JetStream in a temporary folder, listening on no port, and an executor
// (package consumer over the sandbox worker pool) on it, as cmd/executor
// runs them.
type embeddedExecutor struct {
	dir        string
	srv        *server.Server
	execConn   *nats.Conn
	clientConn *nats.Conn
	pool       *workerpool.Pool
	stopRun    context.CancelFunc
	done       chan error
	workers    int
	log        *slog.Logger
}

// embeddedStopGrace bounds how long stopping waits for the jobs in flight.
const embeddedStopGrace = 5 * time.Second

// startEmbeddedExecutor starts the server, the worker pool (sized and
// limited by the SANDBOX_* variables) and the executor, with the subject
// prefix and results stream of b, and connects a client connection.
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

	e.srv, err = server.NewServer(&server.Options{
		ServerName: "flowscript-bench",
		JetStream:  true,
		StoreDir:   dir,
		DontListen: true,
		NoLog:      true,
		NoSigs:     true,
	})
	if err != nil {
		return e, fmt.Errorf("creating the embedded NATS server: %w", err)
	}
	go e.srv.Start()
	if !e.srv.ReadyForConnections(30 * time.Second) {
		return e, errors.New("the embedded NATS server was not ready within 30s")
	}
	if e.execConn, err = e.connect("flowscript bench executor"); err != nil {
		return e, err
	}
	e.pool, err = workerpool.New(ctx, workerpool.Config{Limits: limits, Logger: e.log})
	if err != nil {
		return e, fmt.Errorf("starting the sandbox worker pool: %w", err)
	}
	names := b.names()
	exec, err := consumer.New(ctx, e.execConn, consumer.Config{
		SubjectPrefix: names.SubjectPrefix,
		ResultsStream: names.ResultsStream,
		Parallel:      limits.MaxParallel,
		ScriptTimeout: limits.Timeout,
		ShutdownGrace: embeddedStopGrace,
	}, consumer.Options{Runner: e.pool, Policy: actions.Policy{}, Logger: e.log})
	if err != nil {
		return e, fmt.Errorf("starting the embedded executor: %w", err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stopRun, e.done = stop, make(chan error, 1)
	go func() { e.done <- exec.Run(runCtx) }()
	if e.clientConn, err = e.connect("flowscript bench"); err != nil {
		return e, err
	}
	return e, nil
}

func (e *embeddedExecutor) connect(name string) (*nats.Conn, error) {
	nc, err := nats.Connect(e.srv.ClientURL(), nats.InProcessServer(e.srv), nats.Name(name))
	if err != nil {
		return nil, fmt.Errorf("connecting to the embedded NATS server: %w", err)
	}
	return nc, nil
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
	if e.execConn != nil {
		e.execConn.Close()
	}
	if e.pool != nil {
		_ = e.pool.Close() // the workers are gone either way
	}
	if e.srv != nil {
		e.srv.Shutdown()
		e.srv.WaitForShutdown()
	}
	_ = os.RemoveAll(e.dir) // a temporary folder: best effort
}
