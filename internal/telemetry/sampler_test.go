package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSamplerFromEnvironment runs the job path's spans under each
// OTEL_TRACES_SAMPLER: a root span (a job without traceparent) and the
// process span of a job whose engine sampled its trace, or did not.
func TestSamplerFromEnvironment(t *testing.T) {
	const (
		sampled    = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		notSampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	)
	tests := []struct {
		sampler, arg                    string
		root, underSampled, underNotSmp bool
	}{
		{"", "", true, true, false}, // parentbased_always_on, the default
		{"parentbased_always_on", "", true, true, false},
		{"always_on", "", true, true, true},
		{"ALWAYS_OFF", "", false, false, false},
		{"parentbased_always_off", "", false, true, false},
		{"traceidratio", "0", false, false, false},
		{"traceidratio", "1", true, true, true},
		{"traceidratio", "", true, true, true}, // the ratio defaults to 1
		{"parentbased_traceidratio", "0", false, true, false},
		{"parentbased_traceidratio", "1.0", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.sampler+"="+tt.arg, func(t *testing.T) {
			setupWith(t, Config{
				ServiceName:   "flowscript-executor",
				Getenv:        envOf(map[string]string{"OTEL_TRACES_SAMPLER": tt.sampler, "OTEL_TRACES_SAMPLER_ARG": tt.arg}),
				SpanProcessor: sdktrace.NewSimpleSpanProcessor(tracetest.NewInMemoryExporter()),
			})
			_, root := StartSend(context.Background(), "flowscript.jobs.execute", "job-1")
			defer root.End(nil)
			_, child := StartProcess(context.Background(), nats.Header{"traceparent": {sampled}}, "flowscript.jobs.execute", "job-1", "EXEC", 1)
			defer child.End(nil)
			_, other := StartProcess(context.Background(), nats.Header{"traceparent": {notSampled}}, "flowscript.jobs.execute", "job-1", "EXEC", 1)
			defer other.End(nil)
			if got := root.IsRecording(); got != tt.root {
				t.Errorf("a job without traceparent: recording %t, want %t", got, tt.root)
			}
			if got := child.IsRecording(); got != tt.underSampled {
				t.Errorf("a job whose engine sampled its trace: recording %t, want %t", got, tt.underSampled)
			}
			if got := other.IsRecording(); got != tt.underNotSmp {
				t.Errorf("a job whose engine did not sample its trace: recording %t, want %t", got, tt.underNotSmp)
			}
			// The trace context carries on even when the span is not sampled.
			if !child.SpanContext().IsValid() || !other.SpanContext().IsValid() {
				t.Error("a job's process span lost its engine's trace context")
			}
		})
	}
}

func TestSamplerRejectsBadValues(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_TRACES_SAMPLER": "sometimes"},
		{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
		{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "ten percent"},
	} {
		want := "OTEL_TRACES_SAMPLER"
		if env["OTEL_TRACES_SAMPLER_ARG"] != "" {
			want = "OTEL_TRACES_SAMPLER_ARG"
		}
		_, err := Setup(context.Background(), Config{ServiceName: "x", Getenv: envOf(env),
			SpanProcessor: sdktrace.NewSimpleSpanProcessor(tracetest.NewInMemoryExporter())})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err %v, want one naming %s", env, err, want)
		}
		// Refused while nothing exports spans too, not first when an
		// endpoint is set.
		if _, err := Setup(context.Background(), Config{ServiceName: "x", Getenv: envOf(env)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, no exporter: err %v, want one naming %s", env, err, want)
		}
	}
}
