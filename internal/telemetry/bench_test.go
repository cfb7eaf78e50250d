package telemetry

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/nats-io/nats.go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowscript/flowscript/flowjob"
)

// BenchmarkJobPath measures one job's spans — client send, inject, process
// (extracting from the headers), sandbox, result send, outcomes — around
// the executor's own per-job work short of NATS and the script: decoding
// and validating the job and encoding its result. Compare tracing=off
// (no OTEL_* variable: the no-op provider) with tracing=inmemory (a
// batch span processor over an in-memory exporter, as production batches
// to OTLP). tracing=discard is the SDK's own cost: the same batch
// processor over an exporter that drops the spans. The real per-job cost also has two NATS round trips and a
// script run, so the relative overhead measured here is an upper bound.
//
//	go test ./internal/telemetry -run '^$' -bench JobPath -benchmem -benchtime 2s
func BenchmarkJobPath(b *testing.B) {
	jobJSON, err := os.ReadFile("../../flowjob/testdata/job.golden.json")
	if err != nil {
		b.Fatal(err)
	}
	resultJSON, err := os.ReadFile("../../flowjob/testdata/result.golden.json")
	if err != nil {
		b.Fatal(err)
	}
	var result flowjob.Result
	if err := json.Unmarshal(resultJSON, &result); err != nil {
		b.Fatal(err)
	}
	work := func() {
		job, err := flowjob.Decode(jobJSON)
		if err != nil {
			b.Fatal(err)
		}
		if err := job.Validate(); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(&result); err != nil {
			b.Fatal(err)
		}
	}

	for _, mode := range []string{"off", "discard", "inmemory"} {
		for _, withWork := range []bool{false, true} {
			name := "tracing=" + mode + "/spans-only"
			if withWork {
				name = "tracing=" + mode + "/with-job-work"
			}
			b.Run(name, func(b *testing.B) {
				var exp *tracetest.InMemoryExporter
				cfg := Config{ServiceName: "bench", Getenv: noEnv}
				switch mode {
				case "inmemory":
					exp = tracetest.NewInMemoryExporter()
					cfg.SpanExporter = exp
				case "discard":
					cfg.SpanExporter = discardExporter{}
				}
				setupWith(b, cfg)
				ctx := context.Background()
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					oneTracedJob(ctx, "job-bench", work, withWork)
					if i++; exp != nil && i%4096 == 0 {
						exp.Reset() // keep memory flat
					}
				}
			})
		}
	}
}

func oneTracedJob(ctx context.Context, jobID string, work func(), withWork bool) {
	sendCtx, send := StartSend(ctx, flowjob.JobsSubject, jobID)
	hdr := nats.Header{}
	Inject(sendCtx, hdr)
	send.End(nil)

	pctx, process := StartProcess(context.Background(), hdr, flowjob.JobsSubject, jobID, flowjob.DefaultConsumer, 1)
	_, sandbox := StartSandbox(pctx)
	if withWork {
		work()
	}
	sandbox.RecordOutcome(OutcomeSucceeded, "", nil)
	sandbox.End(nil)

	rctx, result := StartSend(pctx, flowjob.ResultSubject(jobID), jobID)
	Inject(rctx, nats.Header{})
	result.End(nil)
	process.RecordOutcome(OutcomeSucceeded, "", nil)
	process.End(nil)
}

// discardExporter drops every span.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }
