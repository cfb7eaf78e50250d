package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// batcher is the span processor in front of every exporter Setup builds.
// Ended spans are appended to a queue under a mutex; one goroutine exports
// them in batches, woken only when a batch is full, when the schedule delay
// passes, or on a flush. It does what sdktrace's BatchSpanProcessor does,
// minus one cost: that processor hands every span to its goroutine through a
// channel, a goroutine wake-up per span. With three spans per job the
// wake-ups were most of what tracing cost the executor
// (BenchmarkExecutorTracingPaired in internal/consumer).
//
// Like the SDK's processor it reads OTEL_BSP_SCHEDULE_DELAY,
// OTEL_BSP_EXPORT_TIMEOUT (milliseconds), OTEL_BSP_MAX_QUEUE_SIZE and
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE, and drops spans, counted and reported,
// when the queue is full rather than slow the jobs down.
type batcher struct {
	exporter sdktrace.SpanExporter
	opts     batcherOptions

	mu      sync.Mutex
	queue   []sdktrace.ReadOnlySpan
	spare   []sdktrace.ReadOnlySpan // the last exported batch's array, reused
	dropped uint64
	stopped bool

	wake      chan struct{} // a full batch is waiting; capacity 1
	flushes   chan chan struct{}
	stop      chan struct{}
	exited    chan struct{}
	closeOnce sync.Once
}

type batcherOptions struct {
	scheduleDelay time.Duration
	exportTimeout time.Duration
	maxQueue      int
	maxBatch      int
}

// Ceilings of the OTEL_BSP_* variables: a queue of spans is memory the
// executor holds, and a delay past an hour is a mistake.
const (
	maxBSPQueue   = 1 << 16
	maxBSPDelayMS = 3_600_000
	maxBSPTimeout = 3_600_000
)

// batcherOptionsFrom reads the OTEL_BSP_* variables. As OpenTelemetry's
// SDKs do, a value that is not a positive integer keeps the default and is
// reported to log; one over its ceiling is cut to it, and reported too.
func batcherOptionsFrom(getenv func(string) string, log *slog.Logger) batcherOptions {
	o := batcherOptions{scheduleDelay: 5 * time.Second, exportTimeout: 30 * time.Second, maxQueue: 2048, maxBatch: 512}
	read := func(name string, ceiling int, set func(int)) {
		v := getenv(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			log.Warn("ignoring an invalid OpenTelemetry setting: it must be a positive integer", "variable", name, "value", v)
			return
		}
		if n > ceiling {
			log.Warn("an OpenTelemetry setting is over its ceiling: using the ceiling", "variable", name, "value", v, "ceiling", ceiling)
			n = ceiling
		}
		set(n)
	}
	read("OTEL_BSP_SCHEDULE_DELAY", maxBSPDelayMS, func(n int) { o.scheduleDelay = time.Duration(n) * time.Millisecond })
	read("OTEL_BSP_EXPORT_TIMEOUT", maxBSPTimeout, func(n int) { o.exportTimeout = time.Duration(n) * time.Millisecond })
	read("OTEL_BSP_MAX_QUEUE_SIZE", maxBSPQueue, func(n int) { o.maxQueue = n })
	read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", maxBSPQueue, func(n int) { o.maxBatch = n })
	o.maxBatch = min(o.maxBatch, o.maxQueue) // as the specification asks
	return o
}

func newBatcher(exporter sdktrace.SpanExporter, opts batcherOptions) *batcher {
	b := &batcher{
		exporter: exporter,
		opts:     opts,
		queue:    make([]sdktrace.ReadOnlySpan, 0, opts.maxBatch),
		wake:     make(chan struct{}, 1),
		flushes:  make(chan chan struct{}),
		stop:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
	go b.run()
	return b
}

var _ sdktrace.SpanProcessor = (*batcher)(nil)

// OnStart does nothing: spans are exported when they end.
func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s, or counts it dropped when the queue is full.
func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	if len(b.queue) >= b.opts.maxQueue {
		b.dropped++
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, s)
	full := len(b.queue) == b.opts.maxBatch
	b.mu.Unlock()
	if full {
		select {
		case b.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// run exports until Shutdown: full batches as soon as they fill, whatever
// is queued at each schedule delay and on a flush.
func (b *batcher) run() {
	defer close(b.exited)
	tick := time.NewTicker(b.opts.scheduleDelay)
	defer tick.Stop()
	var reportedDrops uint64
	for {
		select {
		case <-b.wake:
			b.export(true)
		case <-tick.C:
			b.export(false)
		case done := <-b.flushes:
			b.export(false)
			close(done)
		case <-b.stop:
			b.export(false)
			return
		}
		b.mu.Lock()
		dropped := b.dropped
		b.mu.Unlock()
		if dropped > reportedDrops {
			otel.Handle(fmt.Errorf("dropped %d spans because the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE=%d): "+
				"the collector is slow or unreachable, or the queue is too small for the load", dropped-reportedDrops, b.opts.maxQueue))
			reportedDrops = dropped
		}
	}
}

// export sends the queue in batches of at most maxBatch, only full ones
// when fullOnly is set.
func (b *batcher) export(fullOnly bool) {
	for {
		b.mu.Lock()
		n := len(b.queue)
		if n == 0 || (fullOnly && n < b.opts.maxBatch) {
			b.mu.Unlock()
			return
		}
		var batch []sdktrace.ReadOnlySpan
		if n <= b.opts.maxBatch {
			batch, b.queue, b.spare = b.queue, b.spare[:0], nil
		} else {
			batch = make([]sdktrace.ReadOnlySpan, b.opts.maxBatch)
			copy(batch, b.queue)
			b.queue = append(b.queue[:0], b.queue[b.opts.maxBatch:]...)
		}
		b.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), b.opts.exportTimeout)
		if err := b.exporter.ExportSpans(ctx, batch); err != nil {
			otel.Handle(fmt.Errorf("exporting %d spans: %w", len(batch), err))
		}
		cancel()
		clear(batch) // let the spans go while the array waits for reuse
		b.mu.Lock()
		if cap(batch) == b.opts.maxBatch && b.spare == nil {
			b.spare = batch[:0]
		}
		b.mu.Unlock()
	}
}

// ForceFlush exports every span queued so far and returns when it is done
// or ctx ends.
func (b *batcher) ForceFlush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case b.flushes <- done:
	case <-b.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flushing spans: %w", ctx.Err())
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flushing spans: %w", ctx.Err())
	}
}

// Shutdown stops taking spans, exports what is queued and shuts the
// exporter down. Later calls do nothing.
func (b *batcher) Shutdown(ctx context.Context) error {
	var err error
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.stopped = true
		b.mu.Unlock()
		close(b.stop)
		select {
		case <-b.exited:
		case <-ctx.Done():
			err = fmt.Errorf("exporting the last spans: %w", ctx.Err())
		}
		if serr := b.exporter.Shutdown(ctx); serr != nil && err == nil {
			err = fmt.Errorf("shutting the span exporter down: %w", serr)
		}
	})
	return err
}
