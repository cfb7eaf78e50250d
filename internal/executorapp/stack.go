package executorapp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/natsurl"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// RunnerFactory builds the sandbox the executor runs scripts in.
type RunnerFactory func(ctx context.Context, opts RunnerOptions) (Sandbox, error)

// RunnerOptions is what a RunnerFactory builds the runner with.
type RunnerOptions struct {
	Limits sandbox.Limits
	Logger *slog.Logger
	// OnWorkerRestart counts a sandbox worker process replaced, with the
	// reason (workerpool.Config.OnWorkerRestart). Runners without worker
	// processes ignore it.
	OnWorkerRestart func(reason string)
}

// Sandbox is a sandbox runner with its life cycle: the worker pool in
// production.
type Sandbox interface {
	sandbox.Runner
	// StopRespawning stops replacing dead workers: the replica is stopping
	// and will start no new job.
	StopRespawning()
	// Close stops the sandbox.
	Close() error
}

// WorkerPool is the production RunnerFactory: scripts run in killable
// worker processes (DESIGN.md §3). The binary must call
// workerpool.MaybeRunWorker first thing in main.
func WorkerPool(ctx context.Context, opts RunnerOptions) (Sandbox, error) {
	p, err := workerpool.New(ctx, workerpool.Config{
		Limits:          opts.Limits,
		Logger:          opts.Logger,
		OnWorkerRestart: opts.OnWorkerRestart,
	})
	if err != nil {
		return nil, err // not a nil *Pool in a Sandbox, which is not nil
	}
	return p, nil
}

// InProcess is the RunnerFactory for trusted scripts only (tests, local
// tries): scripts run in this process, with no hard limits.
func InProcess(_ context.Context, opts RunnerOptions) (Sandbox, error) {
	opts.Logger.Warn("running scripts in process: safe for trusted scripts only; production uses the worker pool")
	return inProcess{sandbox.NewInProcess(opts.Limits)}, nil
}

// inProcess is the in-process runner as a Sandbox: it has no workers.
type inProcess struct{ *sandbox.InProcess }

func (inProcess) StopRespawning() {}
func (inProcess) Close() error    { return nil }

// Stack is an executor with its broker and its sandbox, assembled in one
// place: the embedded NATS server (with no NATS_URL), the connection, the
// sandbox and the consumer. cmd/executor runs one (Main);
// `flowscript bench --embedded` starts one in its own process.
type Stack struct {
	Config Config
	// Server is the embedded broker; nil with NATS_URL.
	Server   *server.Server
	Conn     *nats.Conn
	Sandbox  Sandbox
	Executor *consumer.Executor

	log *slog.Logger
	// unlock releases the embedded server's EXECUTOR_DATA_DIR.
	unlock func()
}

// StackOptions are a Stack's collaborators.
type StackOptions struct {
	Logger *slog.Logger
	// Metrics records the executor's metrics; nil records none.
	Metrics *telemetry.Metrics
	// NewRunner builds the sandbox; nil: WorkerPool.
	NewRunner RunnerFactory
	// OnPhase, when set, is told each start-up phase as it begins
	// ("connecting to NATS", "provisioning ..."): /readyz reports it.
	OnPhase func(phase string)
	// Hosts gives jobs their host functions; nil: those of
	// CAPABILITIES_POLICY_FILE (nothing without one).
	Hosts *capabilities.Capabilities
}

// StartStack starts a stack for cfg (defaults applied, validated) in
// order: the embedded broker, the connection (which waits for a broker
// that is down), the sandbox, then the consumer (provisioning, retried
// until ctx ends). On an error it stops what it started.
func StartStack(ctx context.Context, cfg Config, o StackOptions) (s *Stack, err error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.NewRunner == nil {
		o.NewRunner = WorkerPool
	}
	phase := func(p string) {
		if o.OnPhase != nil {
			o.OnPhase(p)
		}
	}
	s = &Stack{Config: cfg, log: o.Logger}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if cfg.Embedded() {
		phase("starting the embedded NATS server")
		if s.Server, s.unlock, err = startEmbedded(cfg, o.Logger); err != nil {
			return s, err
		}
	}
	phase("connecting to NATS")
	var lastDial func() error
	if s.Conn, lastDial, err = connect(cfg, s.Server, o.Logger); err != nil {
		return s, err
	}
	if err = awaitConnection(ctx, s.Conn, lastDial, o.Logger); err != nil {
		return s, err
	}
	phase("starting the sandbox")
	runner, err := o.NewRunner(ctx, RunnerOptions{
		Limits: cfg.Limits,
		Logger: o.Logger,
		OnWorkerRestart: func(reason string) {
			o.Metrics.WorkerRestarted(context.Background(), reason)
		},
	})
	if err != nil {
		return s, fmt.Errorf("starting the sandbox: %w", err)
	}
	s.Sandbox = runner
	hosts := o.Hosts
	if hosts == nil {
		phase("loading the capabilities policy")
		if hosts, err = loadCapabilities(ctx, cfg, s.Conn, o.Logger); err != nil {
			return s, err
		}
	}
	signer, err := cfg.Continuations()
	if err != nil {
		return s, err
	}
	phase("provisioning the streams and the consumer")
	s.Executor, err = consumer.New(ctx, s.Conn, cfg.Consumer(), consumer.Options{
		Runner:        s.Sandbox,
		Policy:        actions.Policy{},
		Logger:        o.Logger,
		Metrics:       o.Metrics,
		OnStopping:    s.Sandbox.StopRespawning,
		Hosts:         hosts,
		Continuations: signer,
		OnProvisionError: func(err error) {
			phase("provisioning the streams and the consumer, retrying; last error: " + err.Error())
		},
	})
	if err != nil {
		return s, err
	}
	return s, nil
}

// Connect opens another connection to the stack's broker (in process for
// the embedded one): a client's, beside the executor's own.
func (s *Stack) Connect(name string) (*nats.Conn, error) {
	url, opts := s.Config.NATSURL, []nats.Option{nats.Name(name)}
	if s.Server != nil {
		url, opts = s.Server.ClientURL(), append(opts, nats.InProcessServer(s.Server))
	}
	if s.Config.NATSCreds != "" && s.Server == nil {
		opts = append(opts, nats.UserCredentials(s.Config.NATSCreds))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS: %w", err)
	}
	return nc, nil
}

// Close stops what the stack started, in reverse order: the connection is
// drained (what it still has to send, acks and results, goes out), the
// sandbox stopped, the embedded server shut down. Call it after the
// executor's Run returned.
func (s *Stack) Close() {
	if s.Conn != nil {
		if err := drain(s.Conn, drainTimeout); err != nil {
			s.log.Warn("draining the NATS connection", "error", err)
		}
	}
	if s.Sandbox != nil {
		if err := s.Sandbox.Close(); err != nil {
			s.log.Warn("stopping the sandbox", "error", err)
		}
	}
	if s.Server != nil {
		s.Server.Shutdown()
		s.Server.WaitForShutdown()
		s.log.Info("embedded NATS server stopped")
	}
	if s.unlock != nil {
		s.unlock()
	}
}

// awaitConnection waits until nc is connected or ctx ends, saying every
// so often which servers it tries: the connection retries in the
// background, and without this a broker that is down would show only as
// provisioning that times out. A connection the client gave up on (closed)
// is an error naming its last one. lastDial is the error of the last
// attempt that failed (nats.go's LastError stays nil while it retries a
// broker that refuses connections).
func awaitConnection(ctx context.Context, nc *nats.Conn, lastDial func() error, log *slog.Logger) error {
	const firstWarning, everyWarning = 5 * time.Second, 30 * time.Second
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	start, warned := time.Now(), time.Duration(0)
	for !nc.IsConnected() {
		if nc.IsClosed() {
			return fmt.Errorf("connecting to NATS at %s: the client gave up: %w (check NATS_URL and NATS_CREDS)",
				natsurl.Redact(strings.Join(nc.Servers(), ",")), nc.LastError())
		}
		select {
		case <-ctx.Done():
			return ctx.Err() // stopped while waiting: start nothing more
		case <-tick.C:
		}
		if waited := time.Since(start); warned == 0 && waited >= firstWarning || warned > 0 && waited-warned >= everyWarning {
			warned = waited
			log.Warn("NATS is not reachable yet; retrying (check NATS_URL, and that the broker is up)",
				"servers", natsurl.Redact(strings.Join(nc.Servers(), ",")), "waited", waited.Round(time.Second).String(),
				"last_error", fmt.Sprint(cmp.Or(nc.LastError(), lastDial())))
		}
	}
	return nil
}

// drain flushes what the connection still has to send (acks, results) and
// closes it.
func drain(nc *nats.Conn, timeout time.Duration) error {
	closed := make(chan struct{})
	nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	if err := nc.Drain(); err != nil {
		if errors.Is(err, nats.ErrConnectionClosed) {
			return nil
		}
		return err
	}
	select {
	case <-closed:
		return nil
	case <-time.After(timeout):
		nc.Close()
		return fmt.Errorf("the connection did not drain within %s", timeout)
	}
}
