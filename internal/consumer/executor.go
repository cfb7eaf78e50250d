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

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/continuation"
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
	// OnStopping, when set, is called once when Run stops pulling jobs
	// (the sandbox stops replacing dead workers from then on).
	OnStopping func()
	// OnProvisionError, when set, gets the error of each failed pass of
	// the provisioning New retries (see ProvisionWithRetry).
	OnProvisionError func(error)
	// Hosts gives each job its host functions (DESIGN.md §9); nil: none,
	// so a job's host calls throw CAPABILITY_DENIED.
	Hosts HostProvider
	// Continuations signs and verifies the tokens of suspended jobs
	// (DESIGN.md §10); nil: the approval capability is never granted and
	// a resume job fails INVALID_CONTINUATION.
	Continuations *continuation.Signer
}

// HostProvider gives a job the capabilities it is granted — those it asks
// for that the operator's policy allows its tenant — and the host that
// answers their calls.
type HostProvider interface {
	HostFor(job *flowjob.Job) (grants []string, host sandbox.Host)
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
	health  health
	// onStopping: see Options.OnStopping.
	onStopping func()

	consumer    atomic.Pointer[jetstream.Consumer]
	jobs        atomic.Pointer[jetstream.Stream]
	provisionMu sync.Mutex
	// reprovisioning: a reprovision after pull failures is under way.
	reprovisioning atomic.Bool
	// puller is Run's, once it runs (tests reach its subscriptions).
	puller      atomic.Pointer[puller]
	provisioned time.Time
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	running     atomic.Bool
	stopping    atomic.Bool
	// settling counts acks and terms still being confirmed.
	settling sync.WaitGroup
	// sweptTo is the highest leftover sequence already reported (watch's
	// goroutine only).
	sweptTo uint64
}

// New validates cfg, provisions the streams, the interruptions bucket and
// the consumer, applying cfg to those that exist (see ApplyConfig), and
// returns an executor ready to Run. A broker that is down or electing a
// leader is waited for, with backoff, until ctx ends. nc should reconnect
// forever (nats.MaxReconnects(-1)) so a broker restart only pauses the
// executor.
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
	e := &Executor{cfg: cfg, nc: nc, js: js, log: logger, metrics: opts.Metrics, onStopping: opts.OnStopping}
	e.handler = &jobHandler{
		cfg:     cfg,
		runner:  opts.Runner,
		policy:  opts.Policy,
		hosts:   opts.Hosts,
		signer:  opts.Continuations,
		store:   NewResultStore(js, cfg),
		dlq:     NewDeadLetterer(js, cfg, nc.MaxPayload()),
		nc:      nc,
		metrics: opts.Metrics,
		now:     time.Now,
		writer:  writerToken,
	}
	s, err := ProvisionWithRetry(ctx, js, cfg, ApplyConfig, logger, opts.OnProvisionError)
	if err != nil {
		return nil, err
	}
	e.adopt(s)
	e.handler.budget = &deliveryBudget{kv: s.Interruptions, max: cfg.MaxDeliver, log: logger}
	e.handler.journals = continuation.NewJournals(s.Journals)
	e.health.ok(time.Now())
	return e, nil
}

// adopt keeps the handles of a provisioning pass.
func (e *Executor) adopt(s *Streams) {
	e.consumer.Store(&s.Consumer)
	e.jobs.Store(&s.Jobs)
	e.provisioned = time.Now()
}

// Config is the executor's effective configuration (defaults applied).
func (e *Executor) Config() Config { return e.cfg }

// Ready reports whether the executor takes jobs and, when it does not, why:
// it is not running or stopping, the connection is down, or the broker
// has not answered about the jobs stream, its consumer and the results and
// dead-letter streams for three health intervals (a half-open connection,
// a stream or consumer without a leader, or deleted: it is then created
// again).
func (e *Executor) Ready() (bool, string) {
	switch {
	case !e.running.Load():
		return false, "not pulling jobs yet"
	case e.stopping.Load():
		return false, "stopping"
	case !e.nc.IsConnected():
		return false, "not connected to NATS (" + e.nc.Status().String() + ")"
	}
	return e.health.ready(3 * e.cfg.HealthInterval)
}

// InFlight is how many jobs hold one of this replica's sandbox slots now
// (see handlers).
func (e *Executor) InFlight() int { return int(e.inFlight.Load()) }

// MaxInFlight is the most jobs that held this replica's sandbox slots at
// once.
func (e *Executor) MaxInFlight() int { return int(e.maxInFlight.Load()) }

// Pending reads the shared consumer's pending jobs (JetStream's
// NumPending: stored, not yet delivered to any replica), the lag
// autoscaling reads. It asks the broker; telemetry.Metrics.ObservePending
// caches it between scrapes.
func (e *Executor) Pending(ctx context.Context) (int64, error) {
	info, err := (*e.consumer.Load()).Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading consumer %s info: %w", e.cfg.Consumer, err)
	}
	return int64(min(info.NumPending, 1<<63-1)), nil
}

// Run pulls and handles jobs until ctx ends. Then it stops pulling, lets
// the jobs in flight finish for up to ShutdownGrace, interrupts the rest
// (they are handed back for redelivery; see Config.MaxDeliver), waits for
// the last acks to be confirmed and returns. The caller drains the
// connection afterwards.
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
		if e.onStopping != nil {
			e.onStopping()
		}
		e.log.Info("stopping: no new jobs; waiting for the jobs in flight",
			"in_flight", e.InFlight(), "grace", e.cfg.ShutdownGraceString())
		graceMu.Lock()
		grace = time.AfterFunc(e.cfg.ShutdownGrace, func() {
			if n := e.InFlight(); n > 0 {
				e.log.Warn("the shutdown grace is over: handing the jobs still running back to the broker "+
					"(they are redelivered without using an attempt); raise SHUTDOWN_GRACE to let them finish",
					"in_flight", n, "grace", e.cfg.ShutdownGraceString())
			}
			cancelJobs()
		})
		graceMu.Unlock()
	})
	p, err := newPuller(e.nc, e.cfg.JobsStream, e.cfg.Consumer, e.cfg.PullWait, e.cfg.Parallel)
	if err != nil {
		stopWatch()
		e.running.Store(false)
		return fmt.Errorf("running executor: %w", err)
	}
	defer p.close()
	e.puller.Store(p)
	e.log.Info("executor pulling jobs", "stream", e.cfg.JobsStream, "consumer", e.cfg.Consumer, "parallel", e.cfg.Parallel)
	jobs := make(chan jetstream.Msg)
	// ran takes one signal per job that gave its sandbox slot back, done
	// one per settled job; neither ever blocks a handler, even after the
	// dispatcher has returned.
	ran := make(chan struct{}, e.handlers())
	done := make(chan struct{}, e.handlers())
	var wg sync.WaitGroup
	wg.Go(func() { e.watch(ctx) })
	wg.Go(func() { e.dispatch(ctx, p, jobs, ran, done) })
	for range e.handlers() {
		wg.Go(func() { e.handleAll(jobCtx, jobs, ran, done) })
	}
	wg.Wait()
	stopWatch()
	graceMu.Lock()
	if grace != nil {
		grace.Stop()
	}
	graceMu.Unlock()
	e.settling.Wait()
	e.running.Store(false)
	e.log.Info("executor stopped")
	return nil
}

// handlers is how many jobs a replica holds at most: Parallel in the
// sandbox, and as many again that have left it and are storing their
// result. A job gives its sandbox slot back as soon as its script has run,
// so the slot's worker runs the next job while the broker stores the last
// one's result (a round trip that would otherwise leave the worker idle);
// a replica still pulls only for a free slot, and so never holds a job
// waiting for a worker (DESIGN.md §5).
func (e *Executor) handlers() int { return 2 * e.cfg.Parallel }

// handleAll handles the jobs the dispatcher gives it, one at a time, until
// the dispatcher stops: it signals ran when a job leaves the sandbox and
// done when it is settled.
func (e *Executor) handleAll(jobCtx context.Context, jobs <-chan jetstream.Msg, ran, done chan<- struct{}) {
	freeSlot := func() { ran <- struct{}{} }
	for msg := range jobs {
		e.handle(jobCtx, msg, freeSlot)
		done <- struct{}{}
	}
}

// dispatch asks for jobs for the idle slots and hands them out (see
// puller). It stops asking when stop ends, hands out what the open
// requests still bring until they end, hands back what comes after, and
// closes jobs.
func (e *Executor) dispatch(stop context.Context, p *puller, jobs chan<- jetstream.Msg, ran, done <-chan struct{}) {
	d := dispatcher{e: e, stop: stop, p: p, free: e.cfg.Parallel, spare: e.handlers(),
		batch: pullBatch(e.cfg.Parallel)}
	defer close(jobs)
	defer d.handBackLate()
	stopped := stop.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// Replies already here count before any request is given up on.
		for drained := false; !drained; {
			select {
			case m := <-p.in:
				d.reply(m)
			default:
				drained = true
			}
		}
		now := time.Now()
		wake := p.expire(now)
		stopping := stop.Err() != nil
		if stopping && len(p.open) == 0 && len(d.queue) == 0 {
			return
		}
		want := d.room() - p.owed
		ask, later := d.batched(now, want)
		if !later.IsZero() {
			wake = earliest(wake, later)
		}
		if ask && !stopping && !now.Before(d.retryAt) {
			if !e.nc.IsConnected() {
				d.retryAt = now.Add(50 * time.Millisecond) // a reconnection is under way
			} else if deadline, err := p.request(now, want); err != nil {
				d.failed(err)
			} else {
				wake = earliest(wake, deadline)
			}
		}
		if d.retryAt.After(now) {
			wake = earliest(wake, d.retryAt)
		}
		if wake.IsZero() {
			wake = now.Add(time.Hour)
		}
		timer.Reset(wake.Sub(now))
		var out chan<- jetstream.Msg
		var head jetstream.Msg
		if len(d.queue) > 0 {
			out, head = jobs, d.queue[0]
		}
		select {
		case <-stopped:
			stopped = nil
		case <-ran:
			d.free++
		case <-done:
			d.spare++
		case out <- head:
			d.queue[0] = nil
			d.queue = d.queue[1:]
			d.free--
			d.spare--
		case m := <-p.in:
			d.reply(m)
		case <-timer.C:
		}
	}
}

// dispatcher is the state of dispatch.
type dispatcher struct {
	e    *Executor
	stop context.Context
	p    *puller
	// free counts the sandbox slots no job holds, spare the handlers no
	// job holds (see Executor.handlers); queue holds the jobs received for
	// them and not yet handed out.
	free, spare int
	queue       []jetstream.Msg
	// failures counts the pull failures in a row; no request is sent
	// before retryAt.
	failures int
	retryAt  time.Time
	// batch is how many uncovered slots make a request at once (see
	// batched); uncoveredSince is when the oldest uncovered slot was left
	// so, zero when every free slot is covered.
	batch          int
	uncoveredSince time.Time
}

// pullBatchWait bounds how long a free slot goes without a request while
// the dispatcher waits for more to batch them (see batched).
const pullBatchWait = 2 * time.Millisecond

// pullBatch is how many uncovered slots make a request at once for a
// replica of parallel slots: a quarter of them (2 of the default 8), and
// no batching below 8.
func pullBatch(parallel int) int { return max(1, parallel/4) }

// batched says whether to ask now for the want slots that are free and
// covered by no open request, or else when to look again.
//
// Under a backlog the broker answers a request at once, and each job then
// frees its slot on its own: asking for every slot as it frees means a
// request per job. Asking once batch slots are uncovered halves the
// requests at the default 8 slots (the raw bound of BenchmarkRawBound
// spends about a third less of the broker's and the client's CPU per job
// when it pulls 8 at a time). A replica still asks for no more jobs than
// it has free slots, so it never holds a job no worker is free for
// (DESIGN.md §5); a slot left uncovered waits at most pullBatchWait, so a
// lone free slot behind long jobs still gets its next job.
func (d *dispatcher) batched(now time.Time, want int) (ask bool, later time.Time) {
	if want <= 0 {
		d.uncoveredSince = time.Time{}
		return false, time.Time{}
	}
	if d.uncoveredSince.IsZero() {
		d.uncoveredSince = now
	}
	if want >= d.batch {
		return true, time.Time{}
	}
	due := d.uncoveredSince.Add(pullBatchWait)
	if now.Before(due) {
		return false, due
	}
	return true, time.Time{}
}

// reply takes one reply to a pull request: a job, or the broker's status.
func (d *dispatcher) reply(m *nats.Msg) {
	kind, err := pullReply(m)
	switch kind {
	case replyJob:
		d.failures = 0
		msg := &jobMsg{msg: m, nc: d.e.nc}
		if !d.p.delivered(m.Sub) && d.room() <= 0 {
			// A late job of a request given up on, and no slot for it:
			// hand it back rather than hold it.
			d.e.handBack(d.stop, msg)
			return
		}
		d.queue = append(d.queue, msg)
	case replyFail:
		d.p.end(m.Sub)
		d.failed(err)
	case replyEnd:
		d.p.end(m.Sub)
		d.failures = 0
	}
}

// room is how many more jobs the replica can take: one per sandbox slot
// that is free, has a handler and is not promised a received job.
func (d *dispatcher) room() int { return min(d.free, d.spare) - len(d.queue) }

// failed counts a pull failure (once per wait: several open requests fail
// together) and sets when to ask again.
func (d *dispatcher) failed(err error) {
	now := time.Now()
	if now.Before(d.retryAt) {
		return
	}
	d.failures++
	d.retryAt = now.Add(d.e.pullFailed(d.stop, err, d.failures))
}

// handBackLate hands back what comes for no request once the dispatcher is
// done: nothing should, but nothing is held either.
func (d *dispatcher) handBackLate() {
	for {
		select {
		case m := <-d.p.in:
			if kind, _ := pullReply(m); kind == replyJob {
				d.e.handBack(d.stop, &jobMsg{msg: m, nc: d.e.nc})
			}
		default:
			return
		}
	}
}

// handBack returns a job this replica has no slot for to the consumer at
// once, noted as an interrupted delivery so it does not count as an
// attempt (see deliveryBudget).
func (e *Executor) handBack(ctx context.Context, msg jetstream.Msg) {
	d := newDelivery(msg, e.log)
	e.settling.Go(func() {
		e.handler.budget.noteInterruption(ctx, d)
		if err := msg.Nak(); err != nil {
			d.logger().Debug("handing back a job no slot was free for", "stream_seq", d.streamSeq, "error", err)
		}
	})
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// pullFailed counts a failed pull and returns how long to wait before the
// next one (the broker may be restarting); after repeated failures it
// creates the streams and the consumer again in case they were deleted.
func (e *Executor) pullFailed(stop context.Context, err error, failures int) time.Duration {
	e.metrics.PullFailed(stop, pullErrorReason(err))
	if failures == 1 || failures%20 == 0 {
		e.log.Warn("pulling a job failed; retrying", "error", err, "consecutive_failures", failures)
	}
	if failures >= 3 {
		e.reprovisionSoon(stop, "after pull failures")
	}
	return min(time.Duration(failures)*100*time.Millisecond, 2*time.Second)
}

// reprovisionSoon creates the streams and the consumer again in the
// background (the dispatcher keeps handing out jobs), unless that is under
// way or the connection is down.
func (e *Executor) reprovisionSoon(stop context.Context, why string) {
	if !e.nc.IsConnected() || !e.reprovisioning.CompareAndSwap(false, true) {
		return
	}
	e.settling.Go(func() {
		defer e.reprovisioning.Store(false)
		if perr := e.reprovision(stop); perr != nil && stop.Err() == nil {
			e.log.Warn("provisioning again "+why, "error", perr)
		}
	})
}

// pullErrorReason is a failed pull's label in flowscript_pull_errors_total.
func pullErrorReason(err error) string {
	switch {
	case errors.Is(err, jetstream.ErrConsumerDeleted), errors.Is(err, jetstream.ErrConsumerNotFound),
		errors.Is(err, jetstream.ErrStreamNotFound):
		return "consumer_missing"
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected), errors.Is(err, nats.ErrConnectionDraining):
		return "disconnected"
	case errors.Is(err, nats.ErrNoResponders):
		return "no_responders"
	}
	return "other"
}

// reprovision creates what is missing, at most once a second across slots;
// it never updates what exists (see CreateMissing).
func (e *Executor) reprovision(ctx context.Context) error {
	e.provisionMu.Lock()
	defer e.provisionMu.Unlock()
	if time.Since(e.provisioned) < time.Second {
		return nil
	}
	s, err := Provision(ctx, e.js, e.cfg, CreateMissing)
	if err != nil {
		return err
	}
	e.adopt(s)
	e.handler.budget.kv = s.Interruptions
	return nil
}

// handle processes one delivery inside its process span (a child of the
// engine's trace context in the message headers), keeping it alive with
// progress acks, settles it and records its outcome. freeSlot is called
// once, when the job gives its sandbox slot back: after its script ran (or
// was not run), before its result is stored. The job counts as in flight
// until then.
func (e *Executor) handle(ctx context.Context, msg jetstream.Msg, freeSlot func()) {
	n := e.inFlight.Add(1)
	for m := e.maxInFlight.Load(); n > m && !e.maxInFlight.CompareAndSwap(m, n); m = e.maxInFlight.Load() {
	}
	d := newDelivery(msg, e.log)
	ctx, span := telemetry.StartProcess(ctx, msg.Headers(), msg.Subject(), d.msgID, e.cfg.Consumer, uint64(max(d.attempt, 0)))
	defer span.End(nil)
	d.span = span
	e.metrics.InFlight(ctx, 1)
	d.ran = func() {
		e.inFlight.Add(-1)
		e.metrics.InFlight(ctx, -1)
		freeSlot()
	}
	defer d.leftSandbox()
	stopProgress := e.keepAlive(ctx, d)
	out := e.handler.process(ctx, d)
	stopProgress()
	e.settle(ctx, d, out)
	name, code, count := out.metric()
	span.RecordOutcome(name, code, out.spanError())
	if count {
		e.metrics.JobFinished(ctx, name, code)
	}
}

// settle applies the one ack action of out. An ack or a term after a
// stored result or dead letter is confirmed by the broker, and retried
// across a leader change or a reconnection, in the background so the slot
// pulls its next job at once; a nak needs no confirmation (a lost one only
// delays the redelivery until AckWait).
func (e *Executor) settle(ctx context.Context, d *delivery, out outcome) {
	action := out.ack()
	e.logSettled(ctx, d, out, action, nil)
	switch action {
	case actionAck, actionTerm:
		e.settling.Go(func() {
			if err := e.confirm(context.WithoutCancel(ctx), d, action); err != nil {
				// The broker redelivers after AckWait; the stored result
				// answers that delivery without running the job again.
				e.logSettled(ctx, d, out, action, err)
			}
		})
	case actionNakWithDelay:
		if err := d.msg.NakWithDelay(out.delay); err != nil {
			e.logSettled(ctx, d, out, action, err)
		}
	}
}

// GCPercent is the GC target of the executor process (cmd/executor sets it
// unless GOGC is set): a job's garbage dies with the job, and 400 instead
// of Go's 100 cuts the executor's CPU per job by about 8 %
// (docs/performance.md), for a peak of 41 MB instead of 30 over a drain.
const GCPercent = 400

// confirmTimeout bounds one confirmation round trip.
const confirmTimeout = 2 * time.Second

// MaxConfirmWait bounds the retries of one ack's confirmation, and so how
// long a stopping executor waits for its last acks.
const MaxConfirmWait = 10 * time.Second

// confirm sends an ack or a term and waits for the broker to confirm it,
// retrying with backoff for up to half of AckWait (past that the
// redelivery is coming anyway) and MaxConfirmWait.
func (e *Executor) confirm(ctx context.Context, d *delivery, action ackAction) error {
	try := func() error {
		cctx, cancel := context.WithTimeout(ctx, confirmTimeout)
		defer cancel()
		if action == actionAck {
			err := d.msg.DoubleAck(cctx)
			if errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
				return nil
			}
			return err
		}
		// jetstream.Msg has no confirmed term: a term sent as a request is
		// answered by the broker like a double ack.
		_, err := e.nc.RequestWithContext(cctx, d.msg.Reply(), []byte("+TERM"))
		return err
	}
	return retryAfterFirst(ctx, min(e.cfg.AckWait/2, MaxConfirmWait), try(), try)
}

func (e *Executor) logSettled(ctx context.Context, d *delivery, out outcome, action ackAction, err error) {
	// A job handed back after a transient failure (its result could not be
	// stored, a worker crashed) is a warning: an operator sees a broker or
	// a stream in trouble before the job runs out of attempts.
	retried := out.kind == kindRetry && out.cause != nil
	if err == nil && !retried && !d.base.Enabled(ctx, slog.LevelDebug) {
		return // the settled line is a debug line: skip building it
	}
	attrs := []any{"stream_seq", d.streamSeq, "delivery", d.attempt, "outcome", out.label(), "ack", action.String()}
	if out.cause != nil {
		attrs = append(attrs, "cause", out.cause.Error())
	}
	if action == actionNakWithDelay {
		attrs = append(attrs, "delay", out.delay.String())
	}
	if err != nil {
		d.logger().WarnContext(ctx, "settling a job message failed; the broker will redeliver it", append(attrs, "settle_error", err)...)
		return
	}
	if retried {
		d.logger().WarnContext(ctx, "a job could not be finished; handed back for another attempt", attrs...)
		return
	}
	d.logger().DebugContext(ctx, "job settled", attrs...)
}

// keepAlive sends progress acks every ProgressInterval until the returned
// stop is called; none is sent once stop returns. It is a timer, not a
// goroutine: most jobs end long before the first progress ack.
func (e *Executor) keepAlive(ctx context.Context, d *delivery) (stop func()) {
	if e.cfg.ProgressInterval <= 0 {
		return func() {}
	}
	msgID := d.msgID // the timer's goroutine leaves the delivery's logger alone
	k := &progress{}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.timer = time.AfterFunc(e.cfg.ProgressInterval, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.stopped {
			return
		}
		if err := d.msg.InProgress(); err != nil {
			withJobID(d.base, msgID).DebugContext(ctx, "sending a progress ack", "error", err)
		}
		k.timer.Reset(e.cfg.ProgressInterval)
	})
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.stopped = true
		k.timer.Stop()
	}
}

// progress is the timer of one job's progress acks.
type progress struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}
