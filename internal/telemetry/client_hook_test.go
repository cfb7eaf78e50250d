package telemetry

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TestClientHookSendSpan: the hook starts the producer span, writes its
// traceparent into the job's headers, and ends it when done is called,
// marking a failed publish as an error.
func TestClientHookSendSpan(t *testing.T) {
	_, exp := setupRecording(t)
	for _, tc := range []struct {
		id     string
		err    error
		status codes.Code
	}{
		{"job-ok", nil, codes.Unset},
		{"job-refused", errors.New("nats: no responders available for request"), codes.Error},
	} {
		exp.Reset()
		h := nats.Header{}
		ctx, done := ClientHook(context.Background(), "flowscript.jobs.execute", tc.id, h)
		sc := trace.SpanContextFromContext(ctx)
		if len(exp.GetSpans()) != 0 {
			t.Fatalf("%s: the send span ended before the publish", tc.id)
		}
		done(tc.err)
		s := spanNamed(t, exp.GetSpans(), "send flowscript.jobs.execute")
		if s.SpanKind != trace.SpanKindProducer || s.SpanContext.SpanID() != sc.SpanID() {
			t.Errorf("%s: span %s kind %s, want the producer span the context holds (%s)", tc.id, s.SpanContext.SpanID(), s.SpanKind, sc.SpanID())
		}
		if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; h.Get("traceparent") != want {
			t.Errorf("%s: traceparent %q, want %q", tc.id, h.Get("traceparent"), want)
		}
		if s.Status.Code != tc.status {
			t.Errorf("%s: status %v, want %v", tc.id, s.Status.Code, tc.status)
		}
	}
}
