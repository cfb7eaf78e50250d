package telemetry_test

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/internal/telemetry"
)

// A Node engine wrote the W3C keys in lowercase; Extract finds them.
func ExampleExtract() {
	hdr := nats.Header{"traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	sc := trace.SpanContextFromContext(telemetry.Extract(context.Background(), hdr))
	fmt.Println(sc.TraceID(), sc.SpanID(), sc.IsSampled())
	// Output: 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7 true
}

// Inject writes lowercase keys, whatever spelling was there before.
func ExampleInject() {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	hdr := nats.Header{"Traceparent": {"stale"}}
	telemetry.Inject(trace.ContextWithSpanContext(context.Background(), sc), hdr)
	fmt.Println(hdr)
	// Output: map[traceparent:[00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01]]
}
