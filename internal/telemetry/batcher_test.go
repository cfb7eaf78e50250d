package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// countingExporter records the size of every batch it gets; block, when
// set, holds each export until it is closed.
type countingExporter struct {
	mu       sync.Mutex
	batches  []int
	names    []string
	block    chan struct{}
	shutdown int
}

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.block != nil {
		<-e.block
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.batches = append(e.batches, len(spans))
	for _, s := range spans {
		e.names = append(e.names, s.Name())
	}
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown++
	return nil
}

func (e *countingExporter) snapshot() (batches []int, names []string, shutdowns int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int(nil), e.batches...), append([]string(nil), e.names...), e.shutdown
}

// startSpans ends n spans named "s0".."s<n-1>" through a provider whose
// only processor is b.
func startSpans(t *testing.T, b *batcher, n int) {
	t.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	tr := tp.Tracer("test")
	for i := range n {
		_, s := tr.Start(context.Background(), fmt.Sprintf("s%d", i))
		s.End()
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBatcherExportsFullBatchesAtOnce(t *testing.T) {
	exp := &countingExporter{}
	b := newBatcher(exp, batcherOptions{scheduleDelay: time.Hour, exportTimeout: time.Second, maxQueue: 100, maxBatch: 4})
	startSpans(t, b, 9)
	waitFor(t, "two full batches", func() bool { got, _, _ := exp.snapshot(); return len(got) == 2 })
	if got, _, _ := exp.snapshot(); got[0] != 4 || got[1] != 4 {
		t.Fatalf("batches %v; want [4 4] before any flush (the ninth span waits for the schedule)", got)
	}
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	batches, names, shutdowns := exp.snapshot()
	if fmt.Sprint(batches) != "[4 4 1]" || shutdowns != 1 {
		t.Fatalf("after Shutdown: batches %v, exporter shutdowns %d; want [4 4 1] and 1", batches, shutdowns)
	}
	for i, name := range names {
		if name != fmt.Sprintf("s%d", i) {
			t.Fatalf("span %d is %q: spans out of order %v", i, name, names)
		}
	}
	// Later spans and calls are ignored.
	startSpans(t, b, 3)
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if batches, _, shutdowns := exp.snapshot(); len(batches) != 3 || shutdowns != 1 {
		t.Fatalf("after a second Shutdown: batches %v, shutdowns %d", batches, shutdowns)
	}
}

func TestBatcherExportsOnScheduleAndFlush(t *testing.T) {
	exp := &countingExporter{}
	b := newBatcher(exp, batcherOptions{scheduleDelay: 20 * time.Millisecond, exportTimeout: time.Second, maxQueue: 100, maxBatch: 50})
	defer b.Shutdown(context.Background()) //nolint:errcheck
	startSpans(t, b, 3)
	waitFor(t, "the scheduled export", func() bool { got, _, _ := exp.snapshot(); return len(got) == 1 })

	slow := &countingExporter{}
	f := newBatcher(slow, batcherOptions{scheduleDelay: time.Hour, exportTimeout: time.Second, maxQueue: 100, maxBatch: 50})
	defer f.Shutdown(context.Background()) //nolint:errcheck
	startSpans(t, f, 5)
	if err := f.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := slow.snapshot(); fmt.Sprint(got) != "[5]" {
		t.Fatalf("after ForceFlush: batches %v; want [5]", got)
	}
}

func TestBatcherDropsAndReportsWhenTheQueueIsFull(t *testing.T) {
	var mu sync.Mutex
	var reported []error
	prev := otel.GetErrorHandler()
	defer otel.SetErrorHandler(prev)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	}))

	exp := &countingExporter{block: make(chan struct{})}
	b := newBatcher(exp, batcherOptions{scheduleDelay: time.Hour, exportTimeout: time.Second, maxQueue: 4, maxBatch: 2})
	// The first full batch is taken by the exporter, which blocks; the
	// queue then fills (4) and the rest are dropped.
	startSpans(t, b, 2)
	waitFor(t, "the exporter to take the first batch", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue) == 0
	})
	startSpans(t, b, 7)
	close(exp.block)
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	batches, _, _ := exp.snapshot()
	total := 0
	for _, n := range batches {
		total += n
	}
	if total != 6 {
		t.Fatalf("exported %d spans in %v; want 6 (2, then a full queue of 4)", total, batches)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "dropped 3 spans") ||
		!strings.Contains(reported[0].Error(), "OTEL_BSP_MAX_QUEUE_SIZE=4") {
		t.Fatalf("reported %v; want one error naming 3 dropped spans and the queue size", reported)
	}
}

func TestBatcherFlushAndShutdownHonourTheContext(t *testing.T) {
	exp := &countingExporter{block: make(chan struct{})}
	b := newBatcher(exp, batcherOptions{scheduleDelay: time.Hour, exportTimeout: time.Second, maxQueue: 10, maxBatch: 1})
	startSpans(t, b, 1) // the exporter now blocks on this batch
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.ForceFlush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ForceFlush with a stuck exporter: %v; want a deadline error", err)
	}
	if err := b.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a stuck exporter: %v; want a deadline error", err)
	}
	close(exp.block)
	<-b.exited
}

func TestBatcherOptionsFromEnvironment(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	o := batcherOptionsFrom(envOf(map[string]string{
		"OTEL_BSP_SCHEDULE_DELAY":        "250",
		"OTEL_BSP_EXPORT_TIMEOUT":        "1000",
		"OTEL_BSP_MAX_QUEUE_SIZE":        "100",
		"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512", // over the queue: capped to it
	}), log)
	want := batcherOptions{scheduleDelay: 250 * time.Millisecond, exportTimeout: time.Second, maxQueue: 100, maxBatch: 100}
	if o != want {
		t.Errorf("options %+v; want %+v", o, want)
	}
	o = batcherOptionsFrom(envOf(map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "-3", "OTEL_BSP_SCHEDULE_DELAY": "soon"}), log)
	if o != batcherOptionsFrom(noEnv, log) {
		t.Errorf("invalid values changed the options: %+v", o)
	}
	for _, name := range []string{"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_SCHEDULE_DELAY"} {
		if !strings.Contains(logs.String(), "variable="+name) {
			t.Errorf("no warning for the invalid %s: %s", name, logs.String())
		}
	}
	// Values past the ceilings are cut to them: a queue of 10^12 spans
	// would be allocated up front, a delay of 10^16 ms would wrap.
	logs.Reset()
	o = batcherOptionsFrom(envOf(map[string]string{
		"OTEL_BSP_MAX_QUEUE_SIZE": "999999999999", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "999999999999",
		"OTEL_BSP_SCHEDULE_DELAY": "10000000000000000",
	}), log)
	if o.maxQueue != maxBSPQueue || o.maxBatch != maxBSPQueue || o.scheduleDelay != time.Hour || !strings.Contains(logs.String(), "over its ceiling") {
		t.Errorf("huge values: %+v; logs %s", o, logs.String())
	}
}

// TestSetupSpanExporterIsBatched: Config.SpanExporter gets the spans in
// batches, flushed at Shutdown.
func TestSetupSpanExporterIsBatched(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	p, err := Setup(context.Background(), Config{ServiceName: "batched", Getenv: noEnv, SpanExporter: exp,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Tracing() {
		t.Fatal("tracing is off with a SpanExporter")
	}
	_, span := StartSandbox(context.Background())
	span.End(nil)
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans exported before a batch filled or a flush", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tp := p.TracerProvider().(*sdktrace.TracerProvider)
	if err := tp.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := exp.GetSpans(); len(got) != 1 || got[0].Name != SpanSandbox {
		t.Fatalf("after ForceFlush: %v", got)
	}
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
