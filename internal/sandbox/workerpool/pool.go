package workerpool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Config configures a Pool. The zero value plus Limits is usable: see
// WithDefaults.
type Config struct {
	// Limits are the per-script limits; Limits.MaxParallel is the number of
	// workers. Unset fields take sandbox defaults.
	Limits sandbox.Limits
	// Logger receives worker restarts and crashes. Default: discard.
	Logger *slog.Logger
	// Executable is the binary re-executed as a worker; it must call
	// MaybeRunWorker first thing. Default: os.Executable().
	Executable string
	// KillMargin is how long past a script's deadline the parent waits for
	// the worker's own interrupt before killing it. Default 250ms.
	KillMargin time.Duration
	// StartTimeout bounds a worker's start-up (exec, config, warm-up).
	// Default 10s: race-detector builds start slowly on a busy machine.
	StartTimeout time.Duration
	// RestartBackoffMin and RestartBackoffMax bound the delay before
	// restarting a worker that failed to start or died while idle, doubling
	// per consecutive failure, so a crash loop cannot spin. A worker killed
	// by its job's limits is replaced at once. Defaults 50ms and 5s.
	RestartBackoffMin, RestartBackoffMax time.Duration
	// OnWorkerRestart, when set, is called (synchronously, keep it cheap)
	// each time a worker is replaced, with the reason: "timeout",
	// "canceled", "memory", "stack", "protocol", "crash" or "idle-exit"
	// for one that died or was killed; "retired" for one that answered and
	// exited on purpose (a planned retirement: no back-off, not a crash),
	// "panic" for one that retired after its own code failed.
	OnWorkerRestart func(reason string)

	// workerArgs are the worker's arguments; tests point them at fake
	// workers. Default: the hidden worker argument.
	workerArgs []string
}

// WithDefaults returns c with every unset field set to its default, except
// Executable, which New resolves.
func (c Config) WithDefaults() Config {
	c.Limits = c.Limits.WithDefaults()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.KillMargin == 0 {
		c.KillMargin = 250 * time.Millisecond
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 10 * time.Second
	}
	if c.RestartBackoffMin == 0 {
		c.RestartBackoffMin = 50 * time.Millisecond
	}
	if c.RestartBackoffMax == 0 {
		c.RestartBackoffMax = 5 * time.Second
	}
	if c.workerArgs == nil {
		c.workerArgs = []string{workerArg}
	}
	return c
}

// Validate reports every field out of range.
func (c Config) Validate() error {
	errs := []error{c.Limits.Validate()}
	if c.Executable == "" {
		errs = append(errs, errors.New("workerpool: Executable is empty"))
	}
	if c.KillMargin < 0 {
		errs = append(errs, fmt.Errorf("workerpool: KillMargin must not be negative, got %v", c.KillMargin))
	}
	if c.StartTimeout <= 0 {
		errs = append(errs, fmt.Errorf("workerpool: StartTimeout must be positive, got %v", c.StartTimeout))
	}
	if c.RestartBackoffMin <= 0 || c.RestartBackoffMax < c.RestartBackoffMin {
		errs = append(errs, fmt.Errorf("workerpool: restart backoff must satisfy 0 < min <= max, got %v and %v",
			c.RestartBackoffMin, c.RestartBackoffMax))
	}
	return errors.Join(errs...)
}

// Pool runs scripts in Limits.MaxParallel sandbox worker processes, one
// script at a time each. It implements sandbox.Runner. Create it with New,
// stop it with Close.
type Pool struct {
	cfg  Config
	log  *slog.Logger
	idle *idleSet
	done chan struct{}
	wg   sync.WaitGroup // respawners and every process's goroutines

	mu     sync.Mutex
	closed bool
	// quiesced: dead workers are no longer replaced (StopRespawning).
	quiesced bool
	live     map[*process]struct{}

	restarts  atomic.Uint64
	closeOnce sync.Once
}

// slot is one of the MaxParallel places a worker lives in; it outlives the
// processes that fill it.
type slot struct {
	index int
	// failures counts consecutive failed starts and idle deaths; it sets
	// the restart backoff and resets when a job completes.
	failures atomic.Int32
}

var _ sandbox.Runner = (*Pool)(nil)

// New starts cfg.Limits.MaxParallel workers and waits until all are ready.
// It fails when one cannot start: a binary that does not call
// MaybeRunWorker, limits the worker rejects, a machine out of processes.
func New(ctx context.Context, cfg Config) (*Pool, error) {
	cfg = cfg.WithDefaults()
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the executable to start sandbox workers from: %w", err)
		}
		cfg.Executable = exe
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Limits.MaxParallel
	p := &Pool{
		cfg:  cfg,
		log:  cfg.Logger,
		idle: newIdleSet(n),
		done: make(chan struct{}),
		live: make(map[*process]struct{}, n),
	}

	errs := make([]error, n)
	var starting sync.WaitGroup
	for i := range n {
		starting.Go(func() {
			proc, err := p.spawn(ctx, &slot{index: i})
			if err != nil {
				errs[i] = err
				return
			}
			p.idle.put(proc)
		})
	}
	starting.Wait()
	if err := errors.Join(errs...); err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("starting %d sandbox workers: %w", n, err)
	}
	p.log.Debug("sandbox worker pool started", "workers", n, "executable", cfg.Executable)
	return p, nil
}

// Limits returns the pool's limits (defaults applied).
func (p *Pool) Limits() sandbox.Limits { return p.cfg.Limits }

// Restarts returns how many dead workers have been replaced since New.
func (p *Pool) Restarts() uint64 { return p.restarts.Load() }

// Run runs req on a free worker, waiting for one until ctx ends (reported
// as SCRIPT_TIMEOUT, like a ctx that ends while the script runs).
func (p *Pool) Run(ctx context.Context, req sandbox.Request) sandbox.Result {
	return p.run(ctx, req, true)
}

// TryRun runs req only if a worker is free now; otherwise it fails at once
// with SANDBOX_BUSY and the seed's message (the templates tester's answer
// 429).
func (p *Pool) TryRun(ctx context.Context, req sandbox.Request) sandbox.Result {
	return p.run(ctx, req, false)
}

func (p *Pool) run(ctx context.Context, req sandbox.Request, wait bool) sandbox.Result {
	start := time.Now()
	out := p.do(ctx, &request{kind: kindJob, job: &req}, wait, causeOf)
	if out.err != nil {
		return sandbox.Result{Err: out.err, Duration: time.Since(start), Logs: out.logs, LogsTruncated: out.truncated}
	}
	return *out.reply.Result
}

// Check compiles req's source with the sandbox's program builder and runs
// the save-time guardrails on it (guardrails.Inspect), in a worker: goja's
// parser never sees untrusted text in this process. It waits for a free
// worker like Run, until ctx ends (then SANDBOX_BUSY: nobody looked at the
// source). The check has the pool's time limit, or what is left of ctx when
// that is lower, and the memory and stack limits of a job: a source that
// takes longer to compile is SCRIPT_TIMEOUT, one that takes more memory
// SCRIPT_MEMORY_LIMIT, one nested deeper than a worker's stack
// SCRIPT_SYNTAX_ERROR. Nothing is cached and nothing runs.
func (p *Pool) Check(ctx context.Context, req guardrails.CheckRequest) guardrails.CheckResult {
	start := time.Now()
	out := p.do(ctx, &request{kind: kindCheck, check: &checkRequest{Source: req.Source, InputNames: req.InputNames}}, true, p.busy)
	if out.err != nil {
		return guardrails.CheckResult{Err: out.err, Duration: time.Since(start)}
	}
	rep := out.reply.Report
	return guardrails.CheckResult{Report: rep.Report, Err: rep.Err, Duration: rep.Duration}
}

var _ guardrails.Checker = (*Pool)(nil)

// busy is SANDBOX_BUSY with the seed's message.
func (p *Pool) busy(context.Context) *sandbox.Error {
	return &sandbox.Error{Code: sandbox.CodeBusy, Message: sandbox.BusyMessage(p.cfg.Limits.MaxParallel)}
}

// take returns an idle worker: at once or SANDBOX_BUSY when wait is false,
// otherwise waiting until one is free, ctx ends (reported as waitErr(ctx))
// or the pool closes.
func (p *Pool) take(ctx context.Context, wait bool, waitErr func(context.Context) *sandbox.Error) (*process, *sandbox.Error) {
	if !wait {
		select {
		case <-p.idle.tokens:
			return p.idle.pop(), nil
		case <-p.done:
			return nil, errPoolClosed()
		default:
			return nil, p.busy(ctx)
		}
	}
	select {
	case <-p.idle.tokens:
		return p.idle.pop(), nil
	case <-ctx.Done():
		return nil, waitErr(ctx)
	case <-p.done:
		return nil, errPoolClosed()
	}
}

// Close stops every worker and waits for them. Jobs still running are
// killed and report SANDBOX_CRASH (retryable): drain callers first. Later
// calls to Run fail the same way. Close is idempotent.
func (p *Pool) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.done)
		procs := make([]*process, 0, len(p.live))
		for proc := range p.live {
			procs = append(procs, proc)
		}
		p.mu.Unlock()
		for _, proc := range procs {
			if proc.busy.Load() {
				proc.kill()
			} else {
				_ = proc.stdin.Close() // an idle worker exits at EOF
			}
		}
		for _, proc := range procs {
			if !proc.awaitExit(2 * time.Second) {
				proc.kill()
			}
		}
		p.wg.Wait()
		for _, proc := range procs {
			if !proc.busy.Load() {
				proc.closePipes() // a busy one's owner closes its pipes when its read ends
			}
		}
	})
	return nil
}

// spawn starts a worker for s and registers it, unless the pool closed.
func (p *Pool) spawn(ctx context.Context, s *slot) (*process, error) {
	proc, err := startProcess(ctx, p.cfg, s, &p.wg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.live[proc] = struct{}{}
	}
	p.mu.Unlock()
	if closed {
		proc.stop(time.Second)
		return nil, errors.New("the sandbox pool is closed")
	}
	p.log.Debug("sandbox worker started", "slot", s.index, "pid", proc.pid,
		"rlimit_as_bytes", proc.info.RlimitASBytes, "base_heap_bytes", proc.info.BaseHeapBytes,
		"prepared_heap_bytes", proc.info.PreparedHeapBytes)
	return proc, nil
}

// release puts a healthy worker back in the idle set, or stops it when the
// pool closed meanwhile. A worker that is collecting its garbage goes
// under the others (Collecting).
func (p *Pool) release(proc *process, collecting bool) {
	proc.busy.Store(false)
	p.mu.Lock()
	closed := p.closed
	switch {
	case closed:
	case collecting:
		p.idle.putUnder(proc) // never blocks: it holds one place per slot
	default:
		p.idle.put(proc)
	}
	p.mu.Unlock()
	if closed {
		proc.stop(time.Second)
	}
}

// replace forgets a dead worker and starts another in its slot.
func (p *Pool) replace(proc *process, reason string) {
	proc.closePipes()
	p.mu.Lock()
	delete(p.live, proc)
	closed := p.closed || p.quiesced
	if !closed {
		p.wg.Add(1)
	}
	p.mu.Unlock()
	if closed {
		return
	}
	p.restarts.Add(1)
	if p.cfg.OnWorkerRestart != nil {
		p.cfg.OnWorkerRestart(reason)
	}
	go p.respawn(proc.slot)
}

// respawn fills s with a new worker, backing off while starts fail.
func (p *Pool) respawn(s *slot) {
	defer p.wg.Done()
	for {
		if d := p.backoff(s.failures.Load()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-p.done:
				t.Stop()
				return
			}
		}
		proc, err := p.spawn(context.Background(), s)
		if err == nil {
			p.release(proc, false)
			return
		}
		if p.isClosed() {
			return
		}
		n := s.failures.Add(1)
		p.log.Error("restarting a sandbox worker failed", "slot", s.index, "attempt", n,
			"retry_in", p.backoff(n), "error", err)
	}
}

// backoff is the delay before a restart after failures consecutive
// failures: none, then min doubling up to max.
func (p *Pool) backoff(failures int32) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := p.cfg.RestartBackoffMin
	for i := int32(1); i < failures && d < p.cfg.RestartBackoffMax; i++ {
		d *= 2
	}
	return min(d, p.cfg.RestartBackoffMax)
}

// StopRespawning stops replacing workers that die from now on: the caller
// is shutting down and starts no new job, so a replacement would only be
// started to be stopped. Jobs still running finish on their workers; a job
// that then waits for a worker waits until its context ends. Close still
// stops the pool.
func (p *Pool) StopRespawning() {
	p.mu.Lock()
	p.quiesced = true
	p.mu.Unlock()
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// causeOf reports why ctx ended, as Execute does: the *sandbox.Error it was
// cancelled with, or a timeout.
func causeOf(ctx context.Context) *sandbox.Error {
	if e := sandbox.AsError(context.Cause(ctx)); e != nil {
		c := *e
		return &c
	}
	return &sandbox.Error{Code: sandbox.CodeTimeout, Message: sandbox.MsgTimeout}
}

func errPoolClosed() *sandbox.Error {
	return &sandbox.Error{Code: sandbox.CodeCrash,
		Message: "the sandbox worker pool is closed (the service is shutting down): retry the script"}
}
