package consumer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkExecutorTracingCost is BenchmarkExecutorThroughput on the
// embedded broker with the executor's telemetry as production runs it
// (metrics always on), tracing off (no OTEL_* variable: no-op spans) and
// on (every span to the streaming in-memory exporter, memoryExporter,
// through the batching processor the OTLP exporter gets). Every job carries an engine's
// traceparent in both. It reports jobs/s and the CPU time this process
// (executor, in-process sandbox, embedded broker) spent per job.
// Interleave off and on runs on a noisy machine:
//
//	go test -c -o /tmp/consumer.test ./internal/consumer
//	for i in 1 2 3 4 5; do /tmp/consumer.test -test.run '^$' \
//	  -test.bench 'ExecutorTracingCost' -test.benchtime 5x; done
func BenchmarkExecutorTracingCost(b *testing.B) {
	const engine = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, r := range benchRunners {
		for _, tracing := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/tracing=%t", r.name, tracing), func(b *testing.B) {
				metrics, exp := benchTelemetry(b, tracing)
				e := startBenchEnv(b, brokers[0].url(b), r, metrics) // embedded
				header := nats.Header{flowjob.HeaderTraceParent: []string{engine}}

				var done uint64
				start, cpu := time.Now(), processCPU()
				for b.Loop() {
					for i := range benchBatch {
						e.publishAsync(b, fmt.Sprintf("tc-%d", int(done)+i), header)
					}
					done += benchBatch
					e.waitResults(b, done)
				}
				b.ReportMetric(float64(done)/time.Since(start).Seconds(), "jobs/s")
				// CPU per job is steadier than jobs/s on a shared machine;
				// with the pool it leaves out the workers' CPU.
				b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(done), "cpu-µs/job")
				if tracing {
					// The batch processor flushes at shutdown (cleanup); the
					// spans seen so far prove tracing was on.
					if n := exp.count(); n == 0 && done > 2048 {
						b.Errorf("tracing on recorded no span for %d jobs", done)
					}
				}
			})
		}
	}
}

// BenchmarkExecutorTracingPaired measures the same cost on one executor
// and one broker, switching tracing off and on between batches of 1,000
// jobs (order alternating per op), so the slow drift of a shared machine's
// load hits both alike. One op is a pair of batches; it reports the median
// of the pairs' on/off throughput ratios, and the median jobs/s and CPU
// per job of each mode, and the part of that CPU the GC estimates it used.
//
// It runs on both brokers: the embedded one shares the executor's process,
// CPU profile and heap (its state is scanned by every GC the spans'
// garbage causes); the machine's is a process of its own, as in
// production.
//
// Spans go, through the batching processor the OTLP exporter gets, to one
// of two in-memory exporters: "streaming" (memoryExporter: each batch
// converted and let go, as an exporter that sends its batches does) and
// "retaining" (tracetest.InMemoryExporter: every span kept until the batch
// of jobs ends, as tests that read spans back need).
//
//	go test ./internal/consumer -run '^$' -bench 'ExecutorTracingPaired' -benchtime 15x
func BenchmarkExecutorTracingPaired(b *testing.B) {
	for _, br := range brokers {
		for _, r := range benchRunners {
			for _, exporter := range []string{"streaming", "retaining"} {
				b.Run(br.name+"/"+r.name+"/"+exporter, func(b *testing.B) {
					pairedTracingCost(b, br, r, exporter == "retaining")
				})
			}
		}
	}
}

// pairedTracingCost runs BenchmarkExecutorTracingPaired's pairs for one
// broker, runner and exporter.
func pairedTracingCost(b *testing.B, br broker, r benchRunner, retaining bool) {
	const engine = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	// The GC target cmd/executor runs with.
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	// Metrics stay on (one provider); tracing is switched by Setup.
	metrics, _ := benchTelemetry(b, false)
	e := startBenchEnv(b, br.url(b), r, metrics)
	header := nats.Header{flowjob.HeaderTraceParent: []string{engine}}

	var done uint64
	batch := func(tracing bool) (jobsPerSec, cpuPerJob, gcPerJob float64) {
		stop := switchTracing(b, tracing, retaining)
		defer stop()
		start, cpu, gc := time.Now(), processCPU(), gcCPU()
		for i := range benchBatch {
			e.publishAsync(b, fmt.Sprintf("tp-%d", int(done)+i), header)
		}
		done += benchBatch
		e.waitResults(b, done)
		return benchBatch / time.Since(start).Seconds(),
			float64((processCPU() - cpu).Microseconds()) / benchBatch,
			float64((gcCPU() - gc).Microseconds()) / benchBatch
	}
	batch(false) // warm up: workers, program cache, connections
	var ratios, off, on, offCPU, onCPU, offGC, onGC []float64
	pair := 0
	for b.Loop() {
		var fOff, fOn, cOff, cOn, gOff, gOn float64
		if pair%2 == 0 {
			fOff, cOff, gOff = batch(false)
			fOn, cOn, gOn = batch(true)
		} else {
			fOn, cOn, gOn = batch(true)
			fOff, cOff, gOff = batch(false)
		}
		pair++
		ratios, off, on = append(ratios, fOn/fOff), append(off, fOff), append(on, fOn)
		offCPU, onCPU = append(offCPU, cOff), append(onCPU, cOn)
		offGC, onGC = append(offGC, gOff), append(onGC, gOn)
	}
	b.ReportMetric(testenv.Median(ratios), "on/off")
	// The spread of the pairs: on a shared machine one run's median moves
	// by a few percent, so read it with its quartiles.
	b.ReportMetric(testenv.Quantile(ratios, 0.25), "on/off-p25")
	b.ReportMetric(testenv.Quantile(ratios, 0.75), "on/off-p75")
	b.ReportMetric(testenv.Median(off), "off_jobs/s")
	b.ReportMetric(testenv.Median(on), "on_jobs/s")
	b.ReportMetric(testenv.Median(offCPU), "off_cpu-µs/job")
	b.ReportMetric(testenv.Median(onCPU), "on_cpu-µs/job")
	b.ReportMetric(testenv.Median(offGC), "off_gc-µs/job")
	b.ReportMetric(testenv.Median(onGC), "on_gc-µs/job")
}

// gcCPU is the CPU time the Go runtime estimates this process's garbage
// collector has used (updated as GC cycles end).
func gcCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// memoryExporter is the streaming in-memory exporter of the tracing
// benchmarks. It does an exporter's own work on every span — it converts
// each batch to tracetest.SpanStubs, as tracetest.InMemoryExporter does (an
// OTLP exporter builds protobuf instead) — counts them, keeps the last
// batch, and lets the rest go, as an exporter that sends its batches does.
// tracetest.InMemoryExporter keeps every span for the life of the test: its
// ever-growing slice and the GC's scans of the spans it retains are a cost
// of that test helper, measured at about 6 % of the CPU of a 10,000-job run
// (pprof), not a cost a production exporter has.
type memoryExporter struct {
	mu    sync.Mutex
	spans int
	last  tracetest.SpanStubs
}

func (e *memoryExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	stubs := tracetest.SpanStubsFromReadOnlySpans(spans)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.spans += len(stubs)
	e.last = stubs
	return nil
}

func (e *memoryExporter) Shutdown(context.Context) error { return nil }

func (e *memoryExporter) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.spans
}

// switchTracing makes the spans of the executor record (to an in-memory
// exporter through a batch processor) or not, until stop.
func switchTracing(b *testing.B, tracing, retaining bool) (stop func()) {
	b.Helper()
	cfg := benchTelemetryConfig()
	retained := tracetest.NewInMemoryExporter()
	streamed := &memoryExporter{}
	var exp sdktrace.SpanExporter = streamed
	if retaining {
		exp = retained
	}
	if tracing {
		cfg.SpanExporter = exp // batched as the OTLP exporter is
	}
	p, err := telemetry.Setup(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if tp, ok := p.TracerProvider().(*sdktrace.TracerProvider); ok {
			_ = tp.ForceFlush(ctx)
		}
		// Read before Shutdown: the exporter's Shutdown drops its spans.
		if tracing && len(retained.GetSpans())+streamed.count() == 0 {
			b.Error("tracing on recorded no span")
		}
		if err := p.Shutdown(ctx); err != nil {
			b.Errorf("telemetry shutdown: %v", err)
		}
	}
}

// benchTelemetryConfig is the benchmarks' telemetry: no OTEL_* variable,
// logs discarded, no span exporter (tracing off) until one is set.
func benchTelemetryConfig() telemetry.Config {
	return telemetry.Config{
		ServiceName: "flowscript-executor-bench",
		Getenv:      func(string) string { return "" },
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// benchTelemetry sets telemetry up for one benchmark: metrics on a
// Prometheus registry of their own, spans off or to an in-memory exporter.
func benchTelemetry(b *testing.B, tracing bool) (*telemetry.Metrics, *memoryExporter) {
	b.Helper()
	exp := &memoryExporter{}
	cfg := benchTelemetryConfig()
	if tracing {
		cfg.SpanExporter = exp // batched as the OTLP exporter is
	}
	p, err := telemetry.Setup(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			b.Errorf("telemetry shutdown: %v", err)
		}
		// Later benchmarks start with tracing off again.
		off, err := telemetry.Setup(context.Background(), benchTelemetryConfig())
		if err == nil {
			_ = off.Shutdown(ctx)
		}
	})
	if p.Tracing() != tracing {
		b.Fatalf("telemetry tracing is %t, want %t", p.Tracing(), tracing)
	}
	m, err := telemetry.NewMetrics(p.MeterProvider())
	if err != nil {
		b.Fatal(err)
	}
	return m, exp
}
