package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// Options are the executor's collaborators.
type Options struct {
	// Runner runs the scripts: the worker pool in production, the
	// in-process runner in tests. Required.
	Runner sandbox.Runner
	// Policy maps a script outcome to a result event.
	Policy actions.Policy
	// Logger receives structured logs; nil discards them. Job lines are
	// logged with the job's context and carry job_id, so a
	// telemetry.NewLogger adds trace_id and span_id to them.
	Logger *slog.Logger
	// Metrics records the executor's metrics; nil records none. Spans go
	// to the tracer provider of the last telemetry.Setup.
	Metrics *telemetry.Metrics
}

// Executor pulls jobs from the shared consumer, at most Config.Parallel at a
// time, and settles each with exactly one ack action.
type Executor struct {
	cfg     Config
	nc      *nats.Conn
	js      jetstream.JetStream
	log     *slog.Logger
	metrics *telemetry.Metrics
	handler *jobHandler

	consumer     atomic.Pointer[jetstream.Consumer]
	provisionMu  sync.Mutex
	provisioned  time.Time
	inFlight     atomic.Int64
	maxInFlight  atomic.Int64
	running      atomic.Bool
	stopping     atomic.Bool
	pullFailures atomic.Int64
}

// New validates cfg, provisions the streams and the consumer (idempotent)
// and returns an executor ready to Run. nc should reconnect forever
// (nats.MaxReconnects(-1)) so a broker restart only pauses the executor.
func New(ctx context.Context, nc *nats.Conn, cfg Config, opts Options) (*Executor, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating consumer config: %w", err)
	}
	if opts.Runner == nil {
		return nil, errors.New("creating executor: Options.Runner is nil: pass the sandbox worker pool (or sandbox.NewInProcess in tests)")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("opening JetStream: %w", err)
	}
	e := &Executor{cfg: cfg, nc: nc, js: js, log: logger, metrics: opts.Metrics}
	e.handler = &jobHandler{
		cfg:     cfg,
		runner:  opts.Runner,
		policy:  opts.Policy,
		store:   NewResultStore(js, cfg),
		dlq:     NewDeadLetterer(js, cfg, nc.MaxPayload()),
		nc:      nc,
		metrics: opts.Metrics,
		now:     time.Now,
	}
	if err := e.provision(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// Config is the executor's effective configuration (defaults applied).
func (e *Executor) Config() Config { return e.cfg }

// Ready reports whether the executor is pulling jobs over a live connection.
func (e *Executor) Ready() bool {
	return e.running.Load() && !e.stopping.Load() && e.nc.IsConnected() && e.pullFailures.Load() < 3
}

// InFlight is how many jobs this replica is handling now.
func (e *Executor) InFlight() int { return int(e.inFlight.Load()) }

// MaxInFlight is the most jobs this replica has handled at once.
func (e *Executor) MaxInFlight() int { return int(e.maxInFlight.Load()) }

// Pending reads the shared consumer's pending jobs (JetStream's
// NumPending: stored, not yet delivered to any replica), the lag
// autoscaling reads. It asks the broker; telemetry.Metrics.ObservePending
// caches it between scrapes.
func (e *Executor) Pending(ctx context.Context) (int64, error) {
	cons := e.consumer.Load()
	if cons == nil {
		return 0, errors.New("reading consumer pending: the consumer is not provisioned")
	}
	info, err := (*cons).Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading consumer %s info: %w", e.cfg.Consumer, err)
	}
	return int64(min(info.NumPending, 1<<63-1)), nil
}

// Run pulls and handles jobs until ctx ends. Then it stops pulling, lets
// the jobs in flight finish for up to ShutdownGrace, interrupts the rest
// (they are handed back for redelivery, not failed) and returns. The caller
// drains the connection afterwards.
func (e *Executor) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return errors.New("running executor: Run was already called")
	}
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	var grace *time.Timer
	var graceMu sync.Mutex
	stopWatch := context.AfterFunc(ctx, func() {
		e.stopping.Store(true)
		e.log.Info("stopping: no new jobs; waiting for the jobs in flight",
			"in_flight", e.InFlight(), "grace", e.cfg.ShutdownGrace.String())
		graceMu.Lock()
		grace = time.AfterFunc(e.cfg.ShutdownGrace, cancelJobs)
		graceMu.Unlock()
	})
	e.log.Info("executor pulling jobs", "stream", e.cfg.JobsStream, "consumer", e.cfg.Consumer, "parallel", e.cfg.Parallel)
	var wg sync.WaitGroup
	for range e.cfg.Parallel {
		wg.Go(func() { e.slot(ctx, jobCtx) })
	}
	wg.Wait()
	stopWatch()
	graceMu.Lock()
	if grace != nil {
		grace.Stop()
	}
	graceMu.Unlock()
	e.running.Store(false)
	e.log.Info("executor stopped")
	return nil
}

// slot is one sandbox slot: it pulls one job when idle, handles it, and
// pulls again. A slot never holds more than one job, so a replica never
// holds more than Parallel.
func (e *Executor) slot(stop, jobCtx context.Context) {
	failures := 0
	for stop.Err() == nil {
		cons := *e.consumer.Load()
		// No FetchContext: a pull abandoned mid-flight would strand a job
		// until AckWait. The pull expires by itself after PullWait.
		msg, err := cons.Next(jetstream.FetchMaxWait(e.cfg.PullWait))
		if err != nil {
			if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) {
				failures = 0
				e.pullFailures.Store(0)
				continue
			}
			failures++
			e.pullFailed(stop, err, failures)
			continue
		}
		failures = 0
		e.pullFailures.Store(0)
		e.handle(jobCtx, msg)
	}
}

// pullFailed waits before the next pull (the broker may be restarting) and,
// after repeated failures, provisions the streams and consumer again in case
// they were deleted.
func (e *Executor) pullFailed(stop context.Context, err error, failures int) {
	e.pullFailures.Add(1)
	if failures == 1 || failures%20 == 0 {
		e.log.Warn("pulling a job failed; retrying", "error", err, "consecutive_failures", failures)
	}
	if failures >= 3 && e.nc.IsConnected() {
		if perr := e.provision(stop); perr != nil && stop.Err() == nil {
			e.log.Warn("provisioning again after pull failures", "error", perr)
		}
	}
	wait := min(time.Duration(failures)*100*time.Millisecond, 2*time.Second)
	sleep(stop, wait)
}

// provision creates or updates the streams and the consumer, at most once a
// second across slots.
func (e *Executor) provision(ctx context.Context) error {
	e.provisionMu.Lock()
	defer e.provisionMu.Unlock()
	if e.consumer.Load() != nil && time.Since(e.provisioned) < time.Second {
		return nil
	}
	s, err := Provision(ctx, e.js, e.cfg)
	if err != nil {
		return err
	}
	e.consumer.Store(&s.Consumer)
	e.provisioned = time.Now()
	return nil
}

// handle processes one delivery inside its process span (a child of the
// engine's trace context in the message headers), keeping it alive with
// progress acks, settles it and records its outcome.
func (e *Executor) handle(ctx context.Context, msg jetstream.Msg) {
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for {
		m := e.maxInFlight.Load()
		if n <= m || e.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	d := newDelivery(msg, e.cfg.MaxDeliver, e.log)
	ctx, span := telemetry.StartProcess(ctx, msg.Headers(), msg.Subject(), d.msgID, e.cfg.Consumer, uint64(max(d.attempt, 0)))
	defer span.End(nil)
	d.span = span
	e.metrics.InFlight(ctx, 1)
	defer e.metrics.InFlight(ctx, -1)
	stopProgress := e.keepAlive(ctx, d)
	out := e.handler.process(ctx, d)
	stopProgress()
	e.settle(ctx, d, out)
	name, code, err, count := jobOutcome(out)
	span.RecordOutcome(name, code, err)
	if count {
		e.metrics.JobFinished(ctx, name, code)
	}
}

// settle applies the one ack action of out.
func (e *Executor) settle(ctx context.Context, d *delivery, out outcome) {
	action, delay := settlement(out)
	var err error
	switch action {
	case actionAck:
		err = d.msg.Ack()
	case actionTerm:
		err = d.msg.Term()
	case actionNakWithDelay:
		err = d.msg.NakWithDelay(delay)
	}
	if err == nil && !d.log.Enabled(ctx, slog.LevelDebug) {
		return // the settled line is a debug line: skip building it
	}
	attrs := []any{"stream_seq", d.streamSeq, "attempt", d.attempt, "outcome", outcomeName(out), "ack", action.String()}
	switch o := out.(type) {
	case retryLater:
		attrs = append(attrs, "error", o.cause.Error(), "delay", delay.String())
	case deadLettered:
		attrs = append(attrs, "reason", o.reason)
	}
	if err != nil {
		// The broker redelivers after AckWait; the result store makes the
		// rerun harmless.
		d.log.WarnContext(ctx, "settling a job message failed", append(attrs, "settle_error", err)...)
		return
	}
	d.log.DebugContext(ctx, "job settled", attrs...)
}

// keepAlive sends progress acks every ProgressInterval until the returned
// stop is called.
func (e *Executor) keepAlive(ctx context.Context, d *delivery) (stop func()) {
	if e.cfg.ProgressInterval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(e.cfg.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := d.msg.InProgress(); err != nil {
					d.log.DebugContext(ctx, "sending a progress ack", "error", err)
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
