package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// spanStarter starts a span the way one tracer does.
type spanStarter func(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span)

// playSpan does to a span everything a caller may: attributes (a key set
// twice, long strings, an invalid one), events, errors, links, statuses in
// both orders, a rename, a child, and calls after End, which must change
// nothing.
func playSpan(ctx context.Context, start spanStarter) {
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx, s := start(ctx, "send flowscript.results.{job_id}", trace.SpanKindProducer)
	s.SetAttributes(
		attribute.String("a", "first"), attribute.Int("n", 2), attribute.String("a", "second"),
		attribute.String("long", strings.Repeat("é", 40)),
		attribute.StringSlice("list", []string{"x", strings.Repeat("y", 40)}),
		attribute.KeyValue{}, // invalid: dropped
	)
	s.SetAttributes(attribute.Bool("later", true), attribute.Int64("n", 3))
	// Values the recorder leaves the SDK to shape: a real U+FFFD beside
	// invalid UTF-8, nested slices and maps (a key twice), bytes, numbers.
	s.SetAttributes(
		attribute.String("odd", "a\uFFFDb\xffcdefghijklmn"),
		attribute.StringSlice("bad", []string{"a\xffb", "ok"}),
		attribute.ByteSlice("bytes", []byte("0123456789abcdef")),
		attribute.Map("m", attribute.String("k", "1"), attribute.String("k", strings.Repeat("2", 20)),
			attribute.Map("inner", attribute.Slice("s", attribute.StringValue(strings.Repeat("z", 20))))),
		attribute.Slice("slice", attribute.StringValue(strings.Repeat("w", 20)), attribute.Int64Value(7)),
		attribute.Float64Slice("floats", []float64{1.5}),
	)
	s.AddEvent("checkpoint", trace.WithAttributes(attribute.Bool("ok", true), attribute.Int("k", 1), attribute.Int("k", 2)))
	s.RecordError(errors.New("boom"))
	s.RecordError(&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist})
	s.RecordError(nil)
	s.AddLink(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("why", "retry"), attribute.Int("try", 2)}})
	s.AddLink(trace.Link{}) // empty: ignored
	s.SetStatus(codes.Error, "first failure")
	s.SetStatus(codes.Unset, "ignored")
	s.SetName("renamed")
	_, child := start(ctx, "child", trace.SpanKindInternal)
	child.SetStatus(codes.Ok, "no description on Ok")
	child.SetStatus(codes.Error, "after Ok: ignored")
	child.End()
	s.End()

	s.SetAttributes(attribute.String("late", "x"))
	s.AddEvent("late")
	s.SetStatus(codes.Ok, "")
	s.SetName("late")
	s.End()
}

// comparable returns what of a span two tracers must record alike: all
// but its ids and times, attributes sorted by key.
func comparableSpan(s tracetest.SpanStub) string {
	sorted := func(kvs []attribute.KeyValue) []string {
		var out []string
		for _, kv := range kvs {
			out = append(out, string(kv.Key)+"="+kv.Value.String())
		}
		slices.Sort(out)
		return out
	}
	var b strings.Builder
	parent := s.Parent.TraceID().String()
	if s.Parent.IsRemote() { // a local parent's id differs between the runs
		parent += "/" + s.Parent.SpanID().String()
	}
	fmt.Fprintf(&b, "name=%q kind=%v parent=%v trace=%v\n", s.Name, s.SpanKind, parent, s.SpanContext.TraceID())
	fmt.Fprintf(&b, "sampled=%t attrs=%v dropped=%d\n", s.SpanContext.IsSampled(), sorted(s.Attributes), s.DroppedAttributes)
	for _, e := range s.Events {
		fmt.Fprintf(&b, "event %q %v dropped=%d\n", e.Name, sorted(e.Attributes), e.DroppedAttributeCount)
	}
	// The SDK reports no dropped events (links) when it kept none: the
	// recorder counts them; TestJobSpansAsTheSDKRecordsThem checks its count.
	if len(s.Events) > 0 {
		fmt.Fprintf(&b, "events dropped=%d\n", s.DroppedEvents)
	}
	for _, l := range s.Links {
		fmt.Fprintf(&b, "link %v/%v %v dropped=%d\n", l.SpanContext.TraceID(), l.SpanContext.SpanID(), sorted(l.Attributes), l.DroppedAttributeCount)
	}
	if len(s.Links) > 0 {
		fmt.Fprintf(&b, "links dropped=%d\n", s.DroppedLinks)
	}
	fmt.Fprintf(&b, "status=%v %q children=%d\n", s.Status.Code, s.Status.Description, s.ChildSpanCount)
	fmt.Fprintf(&b, "scope=%+v resource=%v\n", s.InstrumentationScope, s.Resource.Attributes())
	return b.String()
}

// TestJobSpansAsTheSDKRecordsThem plays the same calls on a span of the
// job path's recorder and on one of the SDK's tracer (same provider,
// processor and exporter) and compares what the exporter got, with the
// default span limits and with every OTEL_SPAN_* limit set low.
func TestJobSpansAsTheSDKRecordsThem(t *testing.T) {
	for _, limits := range []map[string]string{
		nil,
		{
			"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT":        "3",
			"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "10",
			"OTEL_SPAN_EVENT_COUNT_LIMIT":            "1",
			"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT":       "1",
			"OTEL_SPAN_LINK_COUNT_LIMIT":             "1",
			"OTEL_LINK_ATTRIBUTE_COUNT_LIMIT":        "1",
		},
		{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "0", "OTEL_SPAN_EVENT_COUNT_LIMIT": "0", "OTEL_SPAN_LINK_COUNT_LIMIT": "0"},
		{"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "3"}, // every value cut, none dropped
	} {
		t.Run(fmt.Sprint(limits), func(t *testing.T) {
			for k, v := range limits {
				t.Setenv(k, v) // the SDK's provider reads them from the process too
			}
			_, exp := setupRecording(t)
			a := active.Load()
			if a.rec == nil {
				t.Fatal("tracing is on but the job path has no recorder")
			}
			parent := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: trace.TraceID{9, 9}, SpanID: trace.SpanID{7}, TraceFlags: trace.FlagsSampled, Remote: true,
			}))

			playSpan(parent, func(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
				ctx, s := a.rec.start(ctx, name, kind, 2) // room for 2: the rest grows a slice
				if _, ok := s.span.(*jobSpan); !ok {
					t.Fatalf("the recorder started a %T, want a *jobSpan", s.span)
				}
				return ctx, s.span
			})
			ours := exp.GetSpans()
			exp.Reset()
			playSpan(parent, func(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
				return a.tracer.Start(ctx, name, trace.WithSpanKind(kind))
			})
			sdks := exp.GetSpans()

			if len(ours) != 2 || len(sdks) != 2 {
				t.Fatalf("exported %d spans from the recorder and %d from the SDK, want 2 each", len(ours), len(sdks))
			}
			for i := range ours {
				if got, want := comparableSpan(ours[i]), comparableSpan(sdks[i]); got != want {
					t.Errorf("span %d differs from the SDK's\nrecorder:\n%s\nSDK:\n%s", i, got, want)
				}
				o := ours[i]
				if !o.SpanContext.IsValid() || o.SpanContext.SpanID() == sdks[i].SpanContext.SpanID() {
					t.Errorf("span %d has span id %v: want a valid, fresh one", i, o.SpanContext.SpanID())
				}
				if o.StartTime.IsZero() || o.EndTime.Before(o.StartTime) {
					t.Errorf("span %d ran from %v to %v", i, o.StartTime, o.EndTime)
				}
			}
			if limits["OTEL_SPAN_EVENT_COUNT_LIMIT"] == "0" {
				if got := ours[1]; got.DroppedEvents != 3 || got.DroppedLinks != 1 || len(got.Events)+len(got.Links) != 0 {
					t.Errorf("with no room: %d events and %d links kept, %d and %d dropped; want none kept, 3 and 1 dropped",
						len(got.Events), len(got.Links), got.DroppedEvents, got.DroppedLinks)
				}
			}
			// The child's parent is the span, in both.
			if ours[0].Parent.SpanID() != ours[1].SpanContext.SpanID() {
				t.Errorf("the child's parent is %v, want the span %v", ours[0].Parent.SpanID(), ours[1].SpanContext.SpanID())
			}
		})
	}
}

// TestJobSpanHasEveryMethod calls every method of sdktrace.ReadWriteSpan
// on a job span, ended and not: one the recorder failed to define (an SDK
// upgrade that adds one) would be taken from the nil interface it embeds
// and panic in an exporter.
func TestJobSpanHasEveryMethod(t *testing.T) {
	setupRecording(t)
	_, s := StartSandbox(context.Background())
	span := s.span.(*jobSpan)
	v := reflect.ValueOf(sdktrace.ReadWriteSpan(span))
	call := func(when string) {
		typ := reflect.TypeFor[sdktrace.ReadWriteSpan]()
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if !m.IsExported() || m.Name == "End" {
				continue
			}
			args := make([]reflect.Value, m.Type.NumIn())
			for j := range args {
				args[j] = reflect.Zero(m.Type.In(j))
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s %s panics: %v", when, m.Name, r)
					}
				}()
				if m.Type.IsVariadic() {
					v.MethodByName(m.Name).CallSlice(args)
				} else {
					v.MethodByName(m.Name).Call(args)
				}
			}()
		}
	}
	call("while recording,")
	span.End()
	call("once ended,")
}

// TestJobSpansOfANewTrace: a span without a parent starts a trace of its
// own, with ids no other span has.
func TestJobSpansOfANewTrace(t *testing.T) {
	_, exp := setupRecording(t)
	seen := map[string]bool{}
	for range 100 {
		_, s := StartSend(context.Background(), "flowscript.jobs.execute", "job-1")
		s.End(nil)
	}
	for _, s := range exp.GetSpans() {
		sc := s.SpanContext
		if !sc.IsValid() || !sc.IsSampled() || s.Parent.IsValid() {
			t.Fatalf("root span %v (parent %v): want valid, sampled, no parent", sc, s.Parent)
		}
		for _, id := range []string{sc.TraceID().String(), sc.SpanID().String()} {
			if seen[id] {
				t.Fatalf("id %s drawn twice", id)
			}
			seen[id] = true
		}
	}
}

// TestJobSpansStopWithTheProvider: after Shutdown the job path's spans
// record nothing, as the SDK's do, and still carry the trace context; one
// open across Shutdown ends without reaching the processors.
func TestJobSpansStopWithTheProvider(t *testing.T) {
	proc := &countingProcessor{}
	p := setupWith(t, Config{ServiceName: "flowscript-test", Getenv: noEnv, SpanProcessor: proc})
	_, open := StartSend(context.Background(), "flowscript.jobs.execute", "job-1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	open.End(nil)
	if n := proc.ends.Load(); n != 0 {
		t.Errorf("a span ended after Shutdown reached the processor (%d OnEnd calls)", n)
	}
	_, s := StartSandbox(trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true,
	})))
	if s.IsRecording() {
		t.Error("a span started after Shutdown records")
	}
	if s.SpanContext().TraceID() != (trace.TraceID{1}) {
		t.Errorf("a span after Shutdown has trace %v, want its parent's", s.SpanContext().TraceID())
	}
	s.End(nil)
	if n := proc.ends.Load(); n != 0 {
		t.Errorf("%d spans reached the processor after Shutdown", n)
	}
}

// countingProcessor counts the spans that end.
type countingProcessor struct{ ends atomic.Int64 }

func (c *countingProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *countingProcessor) OnEnd(sdktrace.ReadOnlySpan)                     { c.ends.Add(1) }
func (c *countingProcessor) Shutdown(context.Context) error                  { return nil }
func (c *countingProcessor) ForceFlush(context.Context) error                { return nil }

// TestJobSpansCarryTheProvidersResource: the process's
// OTEL_RESOURCE_ATTRIBUTES reach the job spans as they reach the SDK's
// (the provider merges them in even when Setup reads another Getenv).
func TestJobSpansCarryTheProvidersResource(t *testing.T) {
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=prod")
	_, exp := setupRecording(t)
	_, s := StartSandbox(context.Background())
	s.End(nil)
	_, sdk := active.Load().tracer.Start(context.Background(), "sdk")
	sdk.End()
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	for _, sp := range spans {
		if v, ok := sp.Resource.Set().Value("deployment.environment.name"); !ok || v.AsString() != "prod" {
			t.Errorf("span %q: resource %v, want deployment.environment.name=prod", sp.Name, sp.Resource.Attributes())
		}
	}
}

// TestJobSpanUsedConcurrently: a span read and written from several
// goroutines while it ends (go test -race).
func TestJobSpanUsedConcurrently(t *testing.T) {
	_, exp := setupRecording(t)
	_, s := StartProcess(context.Background(), nil, "flowscript.jobs.execute", "job-1", "EXEC", 1)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 100 {
				s.RecordOutcome(OutcomeFailed, fmt.Sprint("CODE_", i, j), nil)
				s.SetMessageID(fmt.Sprint("job-", j))
				_ = s.IsRecording()
				_ = s.SpanContext()
				if j == 50 && i == 0 {
					s.End(errors.New("stopped"))
				}
			}
		})
	}
	wg.Wait()
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans exported, want 1", len(spans))
	}
	if spans[0].Status.Code != codes.Error {
		t.Errorf("status %v, want Error", spans[0].Status)
	}
}

// TestJobSpansExportOverOTLP sends a failed job's span through the OTLP
// exporter to a collector that decodes the request: the recorder's spans
// are what OTLP carries, not only what the in-memory exporter reads.
func TestJobSpansExportOverOTLP(t *testing.T) {
	var (
		mu   sync.Mutex
		reqs []*collectortrace.ExportTraceServiceRequest
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			var req collectortrace.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				t.Errorf("the collector could not decode a trace export: %v", err)
			}
			mu.Lock()
			reqs = append(reqs, &req)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	p := setupWith(t, Config{
		ServiceName: "flowscript-executor",
		Getenv:      envOf(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/v1/traces"}),
	})
	_, s := StartSend(context.Background(), "flowscript.results.job-7", "job-7")
	s.RecordOutcome(OutcomeFailed, "TIMEOUT", errors.New("the script ran past 100ms"))
	s.End(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 1 || len(reqs[0].ResourceSpans) != 1 || len(reqs[0].ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("the collector got %d requests, want one with one resource and scope: %v", len(reqs), reqs)
	}
	rs := reqs[0].ResourceSpans[0]
	scope := rs.ScopeSpans[0]
	if scope.Scope.GetName() != tracerName || scope.SchemaUrl != semconv.SchemaURL {
		t.Errorf("scope %q (schema %q), want %q (%q)", scope.Scope.GetName(), scope.SchemaUrl, tracerName, semconv.SchemaURL)
	}
	if len(scope.Spans) != 1 {
		t.Fatalf("%d spans, want 1", len(scope.Spans))
	}
	span := scope.Spans[0]
	attrs := map[string]string{}
	for _, kv := range span.Attributes {
		attrs[kv.Key] = kv.Value.GetStringValue()
	}
	want := map[string]string{
		"messaging.destination.name":     "flowscript.results.job-7",
		"messaging.destination.template": "flowscript.results.{job_id}",
		"messaging.message.id":           "job-7",
		AttrJobOutcome:                   OutcomeFailed,
		"error.type":                     "TIMEOUT",
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("attribute %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
		}
	}
	if span.Name != "send flowscript.results.{job_id}" || len(span.TraceId) != 16 || len(span.SpanId) != 8 ||
		span.Status.GetCode().String() != "STATUS_CODE_ERROR" || len(span.Events) != 1 || span.Events[0].Name != "exception" {
		t.Errorf("span %v", span)
	}
	var service string
	for _, kv := range rs.Resource.GetAttributes() {
		if kv.Key == "service.name" {
			service = kv.Value.GetStringValue()
		}
	}
	if service != "flowscript-executor" {
		t.Errorf("resource service.name %q", service)
	}
}
