package telemetry

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

const (
	// A traceparent as another client (Node, Python) writes it.
	foreignTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	foreignTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	foreignSpanID      = "00f067aa0ba902b7"
)

func TestHeaderCarrierGet(t *testing.T) {
	tests := []struct {
		name   string
		header nats.Header
		key    string
		want   string
	}{
		{"lowercase written, lowercase asked", nats.Header{"traceparent": {"a"}}, "traceparent", "a"},
		{"lowercase written, canonical asked", nats.Header{"traceparent": {"a"}}, "Traceparent", "a"},
		{"canonical written, lowercase asked", nats.Header{"Traceparent": {"b"}}, "traceparent", "b"},
		{"upper written, lowercase asked", nats.Header{"TRACESTATE": {"c"}}, "tracestate", "c"},
		{"exact spelling first", nats.Header{"Tracestate": {"exact"}, "tracestate": {"lower"}}, "Tracestate", "exact"},
		{"first value", nats.Header{"traceparent": {"x", "y"}}, "traceparent", "x"},
		{"empty value list", nats.Header{"traceparent": {}}, "traceparent", ""},
		{"missing", nats.Header{"Nats-Msg-Id": {"job"}}, "traceparent", ""},
		{"nil header", nil, "traceparent", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeaderCarrier(tt.header).Get(tt.key); got != tt.want {
				t.Errorf("Get(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestHeaderCarrierSetWritesLowercaseOnce(t *testing.T) {
	h := nats.Header{"Traceparent": {"old"}, "TRACEPARENT": {"older"}, "Nats-Msg-Id": {"job-1"}}
	HeaderCarrier(h).Set("Traceparent", "new")
	want := nats.Header{"traceparent": {"new"}, "Nats-Msg-Id": {"job-1"}}
	if len(h) != len(want) || h.Get("traceparent") != "new" || h.Get("Nats-Msg-Id") != "job-1" {
		t.Fatalf("after Set the header is %v, want %v", h, want)
	}
	keys := HeaderCarrier(h).Keys()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"Nats-Msg-Id", "traceparent"}) {
		t.Errorf("Keys() = %q, want [Nats-Msg-Id traceparent]", keys)
	}
}

func TestInjectNilHeaderDoesNothing(t *testing.T) {
	ctx := trace.ContextWithSpanContext(context.Background(), foreignSpanContext(t))
	Inject(ctx, nil) // must not panic
	if got := Extract(context.Background(), nil); trace.SpanContextFromContext(got).IsValid() {
		t.Error("Extract of a nil header returned a span context")
	}
}

// Another client wrote lowercase keys; the message crossed a real NATS
// server; Extract must find the engine's trace context and baggage.
func TestExtractReadsLowercaseKeysAcrossNATS(t *testing.T) {
	nc := connect(t)
	sub, err := nc.SubscribeSync("flowscript.jobs.execute")
	if err != nil {
		t.Fatalf("subscribing: %v", err)
	}
	msg := &nats.Msg{
		Subject: "flowscript.jobs.execute",
		Data:    []byte(`{}`),
		Header: nats.Header{
			"traceparent": {foreignTraceparent},
			"tracestate":  {"vendor=opaque"},
			"baggage":     {"tenant=acme"},
		},
	}
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatalf("publishing: %v", err)
	}
	got, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("receiving: %v", err)
	}
	if _, ok := got.Header["traceparent"]; !ok {
		t.Fatalf("NATS did not keep the lowercase key: header is %v", got.Header)
	}

	ctx := Extract(context.Background(), got.Header)
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsRemote() || !sc.IsSampled() {
		t.Fatalf("extracted span context %+v: want valid, remote, sampled", sc)
	}
	if sc.TraceID().String() != foreignTraceID || sc.SpanID().String() != foreignSpanID {
		t.Errorf("extracted trace %s span %s, want %s %s", sc.TraceID(), sc.SpanID(), foreignTraceID, foreignSpanID)
	}
	if ts := sc.TraceState().Get("vendor"); ts != "opaque" {
		t.Errorf("tracestate vendor = %q, want opaque", ts)
	}
	if v := baggage.FromContext(ctx).Member("tenant").Value(); v != "acme" {
		t.Errorf("baggage tenant = %q, want acme", v)
	}
}

// Inject on one side, Extract on the other, across a real NATS server.
func TestInjectExtractRoundTripAcrossNATS(t *testing.T) {
	nc := connect(t)
	sub, err := nc.SubscribeSync("flowscript.results.job-1")
	if err != nil {
		t.Fatalf("subscribing: %v", err)
	}
	want := foreignSpanContext(t)
	ctx := trace.ContextWithSpanContext(context.Background(), want)

	msg := nats.NewMsg("flowscript.results.job-1")
	Inject(ctx, msg.Header)
	if msg.Header.Get("traceparent") == "" || msg.Header.Get("tracestate") == "" {
		t.Fatalf("Inject wrote %v: want lowercase traceparent and tracestate", msg.Header)
	}
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatalf("publishing: %v", err)
	}
	got, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("receiving: %v", err)
	}
	sc := trace.SpanContextFromContext(Extract(context.Background(), got.Header))
	if sc.TraceID() != want.TraceID() || sc.SpanID() != want.SpanID() || sc.TraceFlags() != want.TraceFlags() {
		t.Errorf("round trip gave %s/%s/%s, want %s/%s/%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags(), want.TraceID(), want.SpanID(), want.TraceFlags())
	}
	if sc.TraceState().String() != want.TraceState().String() {
		t.Errorf("tracestate %q, want %q", sc.TraceState(), want.TraceState())
	}
}

func foreignSpanContext(t testing.TB) trace.SpanContext {
	t.Helper()
	tid, err := trace.TraceIDFromHex(foreignTraceID)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := trace.SpanIDFromHex(foreignSpanID)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := trace.ParseTraceState("vendor=opaque")
	if err != nil {
		t.Fatal(err)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true,
	})
}
