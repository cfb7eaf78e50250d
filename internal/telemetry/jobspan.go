package telemetry

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// recorder records the spans of the job path (StartSend, StartProcess,
// StartSandbox) without the SDK's tracer, and hands them, ended, to the
// same span processors the SDK's provider has (the batcher in front of
// each exporter, or a test's processor). The SDK's tracer costs more per
// span than the executor's job path can spare: a span is three
// allocations past its own (the attribute slice, a snapshot at End, a map
// to deduplicate the attributes), and its ids come from a generator behind
// a mutex. A jobSpan is one allocation (itself and room for its
// attributes, sized by its kind), deduplicates its dozen attributes as
// they are set, and is its own snapshot once ended. It samples with the
// provider's sampler, honours the provider's span limits
// (OTEL_SPAN_*_LIMIT), carries the provider's resource, and exports what
// the SDK's span would (TestJobSpansAsTheSDKRecordsThem); values it does
// not shape itself (slices, maps, bytes, a string over the length limit)
// are shaped by an SDK span (normalise).
//
// Where it differs from the SDK's spans: processors registered on the
// provider after Setup (RegisterSpanProcessor) do not see job spans, and
// ChildSpanCount counts only the children of a jobSpan that are jobSpans
// (the SDK's count, which OTLP does not carry, counts only its own spans
// too).
//
// Other spans — the templates API's HTTP and database spans, anything a
// library starts — go through the SDK's tracer as before; either kind is
// the parent of the other through the context.
type recorder struct {
	provider trace.TracerProvider
	sampler  sdktrace.Sampler
	resource *resource.Resource
	scope    instrumentation.Scope
	limits   sdktrace.SpanLimits
	norm     trace.Tracer // spans of no processor, that shape odd values (normalise)

	// processors get the spans; nil once the provider shut down, so spans
	// no longer record and those still open end without reaching them.
	processors atomic.Pointer[[]sdktrace.SpanProcessor]
}

func newRecorder(tp trace.TracerProvider, sampler sdktrace.Sampler, processors []sdktrace.SpanProcessor, res *resource.Resource) *recorder {
	limits := sdktrace.NewSpanLimits() // what the provider reads: OTEL_SPAN_*_LIMIT
	normLimits := limits
	normLimits.AttributeCountLimit = -1
	r := &recorder{
		provider: tp,
		sampler:  sampler,
		resource: res,
		scope:    instrumentation.Scope{Name: tracerName, SchemaURL: semconv.SchemaURL},
		limits:   limits,
		norm: sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
			sdktrace.WithRawSpanLimits(normLimits)).Tracer(tracerName),
	}
	r.processors.Store(&processors)
	return r
}

// stop makes the spans stop recording, and those still open end without
// reaching the processors: the provider shut them down.
func (r *recorder) stop() { r.processors.Store(nil) }

// normalise shapes kv as the SDK's span would — truncated to the length
// limit, a map's keys deduplicated, nesting cut at the depth limit — by
// setting it on a span of r.norm and reading it back. ok is false when
// the SDK drops it.
func (r *recorder) normalise(kv attribute.KeyValue) (_ attribute.KeyValue, ok bool) {
	_, span := r.norm.Start(context.Background(), "")
	defer span.End()
	span.SetAttributes(kv)
	ro, isSDK := span.(sdktrace.ReadOnlySpan)
	if !isSDK {
		return kv, true
	}
	attrs := ro.Attributes()
	if len(attrs) != 1 {
		return kv, false
	}
	return attrs[0], true
}

// start starts a span named name of kind, a child of ctx's span, with
// room for attrs attributes.
func (r *recorder) start(ctx context.Context, name string, kind trace.SpanKind, attrs int) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	psc := parent.SpanContext()
	tid := psc.TraceID()
	if !tid.IsValid() {
		tid = newTraceID()
	}
	sr := r.sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid, Name: name, Kind: kind})
	flags := psc.TraceFlags() &^ trace.FlagsSampled
	if sr.Decision == sdktrace.RecordAndSample {
		flags |= trace.FlagsSampled
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: newSpanID(), TraceFlags: flags, TraceState: sr.Tracestate,
	})
	processors := r.processors.Load()
	if sr.Decision == sdktrace.Drop || processors == nil {
		ctx = trace.ContextWithSpanContext(ctx, sc)
		return ctx, Span{span: trace.SpanFromContext(ctx)}
	}
	s := newJobSpan(attrs)
	s.rec, s.name, s.sc, s.parent, s.kind, s.start = r, name, sc, psc, kind, time.Now()
	s.setLocked(sr.Attributes...)
	if p, ok := parent.(*jobSpan); ok {
		p.addChild()
	}
	for _, p := range *processors {
		p.OnStart(ctx, s)
	}
	return trace.ContextWithSpan(ctx, s), Span{span: s}
}

// newJobSpan allocates a span and room for attrs attributes in one
// object (more attributes than that go to a slice of their own).
func newJobSpan(attrs int) *jobSpan {
	if attrs <= 2 {
		x := new(struct {
			jobSpan
			room [2]attribute.KeyValue
		})
		x.attrs = x.room[:0]
		return &x.jobSpan
	}
	x := new(struct {
		jobSpan
		room [messagingAttrs]attribute.KeyValue
	})
	x.attrs = x.room[:0]
	return &x.jobSpan
}

// newTraceID and newSpanID draw random, valid ids from the runtime's
// per-thread generator (no lock).
func newTraceID() (id trace.TraceID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id trace.SpanID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// jobSpan is a span the recorder records. It is a trace.Span while it
// records and the sdktrace.ReadOnlySpan the processors and exporters read
// once it ended; it is safe for concurrent use.
type jobSpan struct {
	embedded.Span // trace.Span's marker
	// ReadOnlySpan is nil: it provides only the interface's unexported
	// marker method (as the SDK's own tracetest.SpanStub snapshots do);
	// every other method is defined on jobSpan.
	sdktrace.ReadOnlySpan

	rec *recorder

	mu           sync.Mutex
	name         string
	sc, parent   trace.SpanContext
	kind         trace.SpanKind
	start, end   time.Time
	attrs        []attribute.KeyValue // deduplicated, within the limits
	droppedAttrs int
	events       []sdktrace.Event
	droppedEvent int
	links        []sdktrace.Link
	droppedLinks int
	status       sdktrace.Status
	children     int
	ended        bool        // under mu: End ran, nothing more is recorded
	final        atomic.Bool // set after ended, once the last write is done
}

var _ sdktrace.ReadWriteSpan = (*jobSpan)(nil)

// setLocked sets kvs, each replacing an earlier value of its key; a new
// key past the attribute count limit is dropped and counted. s.mu is held
// (or s is not yet shared).
func (s *jobSpan) setLocked(kvs ...attribute.KeyValue) {
	limits := &s.rec.limits
next:
	for _, kv := range kvs {
		if !kv.Valid() {
			s.droppedAttrs++
			continue
		}
		if s.rec.odd(kv) {
			var ok bool
			if kv, ok = s.rec.normalise(kv); !ok {
				s.droppedAttrs++
				continue
			}
		}
		for i := range s.attrs {
			if s.attrs[i].Key == kv.Key {
				s.attrs[i] = kv
				continue next
			}
		}
		if limits.AttributeCountLimit >= 0 && len(s.attrs) >= limits.AttributeCountLimit {
			s.droppedAttrs++
			continue
		}
		s.attrs = append(s.attrs, kv)
	}
}

// odd reports whether kv is a value the recorder leaves the SDK to shape:
// anything but a bool, a number, or a string within the length limit.
func (r *recorder) odd(kv attribute.KeyValue) bool {
	switch kv.Value.Type() {
	case attribute.BOOL, attribute.INT64, attribute.FLOAT64:
		return false
	case attribute.STRING:
		limit := r.limits.AttributeValueLengthLimit
		return limit >= 0 && len(kv.Value.AsString()) > limit
	}
	return true
}

func (s *jobSpan) addChild() {
	s.mu.Lock()
	if !s.ended {
		s.children++
	}
	s.mu.Unlock()
}

// End ends the span and hands it to the processors. Only the timestamp
// option is honoured.
func (s *jobSpan) End(options ...trace.SpanEndOption) {
	end := s.start.Add(time.Since(s.start)) // the monotonic clock, as the SDK
	if len(options) > 0 {
		if cfg := trace.NewSpanEndConfig(options...); !cfg.Timestamp().IsZero() {
			end = cfg.Timestamp()
		}
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.end, s.ended = end, true
	s.mu.Unlock()
	s.final.Store(true)
	if processors := s.rec.processors.Load(); processors != nil {
		for _, p := range *processors {
			p.OnEnd(s)
		}
	}
}

// AddEvent adds an event; past the event count limit the oldest is dropped.
func (s *jobSpan) AddEvent(name string, options ...trace.EventOption) {
	cfg := trace.NewEventConfig(options...)
	e := sdktrace.Event{Name: name, Time: cfg.Timestamp()}
	e.Attributes, e.DroppedAttributeCount = limitAttrs(cfg.Attributes(), s.rec.limits.AttributePerEventCountLimit)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.events, s.droppedEvent = evict(s.events, e, s.rec.limits.EventCountLimit, s.droppedEvent)
	}
}

// limitAttrs keeps the first limit of an event's or link's attributes
// (all if limit < 0) and returns how many it dropped.
func limitAttrs(kvs []attribute.KeyValue, limit int) ([]attribute.KeyValue, int) {
	if limit >= 0 && len(kvs) > limit {
		return kvs[:limit:limit], len(kvs) - limit
	}
	return kvs, 0
}

// evict appends x to q, dropping the oldest element (counted in dropped)
// when q already holds limit (limit < 0: no limit), as the SDK's queues.
func evict[T any](q []T, x T, limit, dropped int) ([]T, int) {
	switch {
	case limit == 0:
		return q, dropped + 1
	case limit > 0 && len(q) >= limit:
		q = append(q[:0], q[len(q)-limit+1:]...)
		dropped++
	}
	return append(q, x), dropped
}

// RecordError adds err as an exception event, as the SDK does.
func (s *jobSpan) RecordError(err error, options ...trace.EventOption) {
	if err == nil || !s.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{semconv.ExceptionType(typeName(err)), semconv.ExceptionMessage(err.Error())}
	if cfg := trace.NewEventConfig(options...); cfg.StackTrace() {
		attrs = append(attrs, semconv.ExceptionStacktrace(stackTrace()))
	}
	s.AddEvent(semconv.ExceptionEventName, append(options, trace.WithAttributes(attrs...))...)
}

// typeName names err's type as the SDK's exception.type does.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return fmt.Sprintf("%s.%s", t.PkgPath(), t.Name())
}

// AddLink links the span to another; past the link count limit the
// oldest is dropped.
func (s *jobSpan) AddLink(link trace.Link) {
	if !link.SpanContext.IsValid() && len(link.Attributes) == 0 && link.SpanContext.TraceState().Len() == 0 {
		return
	}
	l := sdktrace.Link{SpanContext: link.SpanContext}
	l.Attributes, l.DroppedAttributeCount = limitAttrs(link.Attributes, s.rec.limits.AttributePerLinkCountLimit)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.links, s.droppedLinks = evict(s.links, l, s.rec.limits.LinkCountLimit, s.droppedLinks)
	}
}

// IsRecording reports whether the span has not ended.
func (s *jobSpan) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended
}

// SetStatus sets the status: Ok is final, Error replaces Unset, and only
// Error keeps a description, as the SDK does.
func (s *jobSpan) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.status.Code > code {
		return
	}
	st := sdktrace.Status{Code: code}
	if code == codes.Error {
		st.Description = description
	}
	s.status = st
}

func (s *jobSpan) SetName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.name = name
	}
}

func (s *jobSpan) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.setLocked(kv...)
	}
}

func (s *jobSpan) TracerProvider() trace.TracerProvider { return s.rec.provider }

// The sdktrace.ReadOnlySpan methods. The identity fields never change
// after start. Nothing changes once the span ended (final), so the
// processors and exporters, which read only ended spans, read without the
// lock; before that a read takes it, and gets copies of the slices.

func (s *jobSpan) SpanContext() trace.SpanContext { return s.sc }
func (s *jobSpan) Parent() trace.SpanContext      { return s.parent }
func (s *jobSpan) SpanKind() trace.SpanKind       { return s.kind }
func (s *jobSpan) StartTime() time.Time           { return s.start }
func (s *jobSpan) Resource() *resource.Resource   { return s.rec.resource }

func (s *jobSpan) InstrumentationScope() instrumentation.Scope { return s.rec.scope }

//nolint:staticcheck // part of sdktrace.ReadOnlySpan
func (s *jobSpan) InstrumentationLibrary() instrumentation.Library { return s.rec.scope }

func (s *jobSpan) Name() string {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.name
}

func (s *jobSpan) EndTime() time.Time {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.end
}

func (s *jobSpan) Attributes() []attribute.KeyValue {
	if s.final.Load() {
		return s.attrs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attrs)
}

func (s *jobSpan) Links() []sdktrace.Link {
	if s.final.Load() {
		return s.links
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.links)
}

func (s *jobSpan) Events() []sdktrace.Event {
	if s.final.Load() {
		return s.events
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

func (s *jobSpan) Status() sdktrace.Status {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.status
}

func (s *jobSpan) DroppedAttributes() int {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.droppedAttrs
}

func (s *jobSpan) DroppedLinks() int {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.droppedLinks
}

func (s *jobSpan) DroppedEvents() int {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.droppedEvent
}

func (s *jobSpan) ChildSpanCount() int {
	if !s.final.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.children
}

// stackTrace is the calling goroutine's stack, cut at 2 KB as the SDK's.
func stackTrace() string {
	buf := make([]byte, 2048)
	return string(buf[:runtime.Stack(buf, false)])
}
