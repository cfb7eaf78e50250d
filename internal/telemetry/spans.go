package telemetry

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of FlowScript's spans.
const tracerName = "github.com/flowscript/flowscript/internal/telemetry"

// SpanSandbox is the name of the span around one script run.
const SpanSandbox = "sandbox run"

// messagingSystemNATS is messaging.system; semconv has no NATS value.
var messagingSystemNATS = semconv.MessagingSystemKey.String("nats")

// scopedTracer is the tracer the last Setup made, and the recorder of the
// job path's spans when tracing is on (nil when off).
type scopedTracer struct {
	tracer trace.Tracer
	rec    *recorder
}

// active is set by Setup: spans go to the provider the last Setup built,
// without a provider lookup per span, and with tracing off the helpers
// skip building attributes. Before any Setup they use the global provider.
var active atomic.Pointer[scopedTracer]

func useTracerProvider(tp trace.TracerProvider, rec *recorder) {
	active.Store(&scopedTracer{tracer: newTracer(tp), rec: rec})
}

func newTracer(tp trace.TracerProvider) trace.Tracer {
	return tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL))
}

// tracer returns the tracer to use and whether its spans record.
func tracer() (trace.Tracer, bool) {
	if a := active.Load(); a != nil {
		return a.tracer, a.rec != nil
	}
	return newTracer(otel.GetTracerProvider()), true
}

// Span is a span of the job path. With tracing on (after Setup) it is a
// jobSpan of the recorder; before any Setup, a span of the global
// provider's tracer. The zero Span, and a Span that does not record,
// record nothing. End a Span once: calls after End do nothing.
type Span struct {
	span trace.Span // the span in the context: a *jobSpan when the recorder records it
}

// kindOptions holds the start option of each span kind, built once: a
// variadic option list made per call costs two allocations.
var kindOptions = func() (opts [trace.SpanKindConsumer + 1][]trace.SpanStartOption) {
	for k := range opts {
		opts[k] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKind(k))}
	}
	return opts
}()

// start starts a span named name of kind that will carry about attrs
// attributes.
func start(ctx context.Context, name string, kind trace.SpanKind, attrs int) (context.Context, Span) {
	a := active.Load()
	switch {
	case a != nil && a.rec != nil:
		return a.rec.start(ctx, name, kind, attrs)
	case a != nil:
		ctx, span := a.tracer.Start(ctx, "") // carries ctx's span context on, records nothing
		return ctx, Span{span: span}
	}
	ctx, span := newTracer(otel.GetTracerProvider()).Start(ctx, name, kindOptions[kind]...)
	return ctx, Span{span: span}
}

// set sets the attributes kv, each replacing an earlier value of its key.
func (s Span) set(kv ...attribute.KeyValue) {
	// A *jobSpan is called directly: through the interface kv would escape
	// to the heap.
	if js, ok := s.span.(*jobSpan); ok {
		js.SetAttributes(kv...)
		return
	}
	if s.span != nil && s.span.IsRecording() {
		s.span.SetAttributes(slices.Clone(kv)...) // a copy: kv stays on the caller's stack
	}
}

// IsRecording reports whether the span records (tracing is on and it was
// sampled) and has not ended.
func (s Span) IsRecording() bool { return s.span != nil && s.span.IsRecording() }

// SpanContext is the span's identity: its trace and span ids.
func (s Span) SpanContext() trace.SpanContext {
	if s.span == nil {
		return trace.SpanContext{}
	}
	return s.span.SpanContext()
}

// End records err (if any) as the span's error and ends the span.
func (s Span) End(err error) {
	if s.span != nil {
		EndSpan(s.span, err)
	}
}

// StartSend starts the producer span of a publish on destination (a job on
// flowscript.jobs.execute, a result on flowscript.results.<id>, a dead
// letter): "send <destination>". messageID is the job id. Inject the
// returned context into the message's headers so the consumer's span is
// its child, and end the span with the publish's error once the broker
// answered.
func StartSend(ctx context.Context, destination, messageID string) (context.Context, Span) {
	return startMessaging(ctx, opSend, destination, messageID)
}

// StartProcess starts the executor's consumer span for one delivery:
// "process <destination>", a child of the trace context in hdr (the
// engine's send span), or of ctx's span when hdr carries none.
// consumerGroup is the durable consumer's name; deliveryCount is
// JetStream's NumDelivered (1 on the first delivery).
func StartProcess(ctx context.Context, hdr nats.Header, destination, messageID, consumerGroup string, deliveryCount uint64) (context.Context, Span) {
	ctx, s := startMessaging(Extract(ctx, hdr), opProcess, destination, messageID)
	if s.IsRecording() {
		s.set(
			semconv.MessagingConsumerGroupName(consumerGroup),
			attribute.Int64(AttrDeliveryCount, int64(min(deliveryCount, 1<<63-1))),
		)
	}
	return ctx, s
}

// messagingOp is a messaging operation: its name, its
// messaging.operation.type and the kind of its spans.
type messagingOp struct {
	name  string
	typ   attribute.KeyValue
	kind  trace.SpanKind
	names *joined // "<name> <destination>", built once per destination
}

var (
	opSend    = &messagingOp{"send", semconv.MessagingOperationTypeSend, trace.SpanKindProducer, &joined{prefix: "send "}}
	opProcess = &messagingOp{"process", semconv.MessagingOperationTypeProcess, trace.SpanKindConsumer, &joined{prefix: "process "}}
)

// messagingAttrs is the most attributes a messaging span carries: the
// five every one has, the destination template, the consumer group and
// delivery count, the outcome and the error type.
const messagingAttrs = 10

// joined builds prefix+key+suffix once per key and hands out the same
// string after: span names and destination templates are a handful of
// strings, and building one per span was an allocation per span. It keeps
// at most maxJoined keys (destinations come from configuration, but a
// caller may name any subject); past that it builds each time.
type joined struct {
	prefix, suffix string
	mu             sync.Mutex
	table          atomic.Pointer[map[string]string] // copied on write
}

const maxJoined = 64

func (j *joined) of(key string) string {
	if m := j.table.Load(); m != nil {
		if v, ok := (*m)[key]; ok {
			return v
		}
	}
	v := j.prefix + key + j.suffix
	j.mu.Lock()
	defer j.mu.Unlock()
	m := map[string]string{}
	if old := j.table.Load(); old != nil {
		if len(*old) >= maxJoined {
			return v
		}
		m = maps.Clone(*old)
	}
	m[strings.Clone(key)] = v // key may be a slice of a longer subject
	j.table.Store(&m)
	return v
}

// startMessaging starts the span of op on destination, named
// "<operation> <destination>", with the attributes every messaging span
// carries.
func startMessaging(ctx context.Context, op *messagingOp, destination, messageID string) (context.Context, Span) {
	if _, recording := tracer(); !recording {
		return start(ctx, "", op.kind, 0) // no name to build: nothing is recorded
	}
	name, template := destinationName(destination)
	ctx, s := start(ctx, op.names.of(name), op.kind, messagingAttrs)
	if s.IsRecording() {
		s.set(
			messagingSystemNATS,
			op.typ,
			semconv.MessagingOperationName(op.name),
			semconv.MessagingDestinationName(destination),
			semconv.MessagingMessageID(messageID),
		)
		if template != "" {
			s.set(semconv.MessagingDestinationTemplate(template))
		}
	}
	return ctx, s
}

// SetMessageID sets the span's message id (the job id) when it was not
// known as the span started: a job message without Nats-Msg-Id.
func (s Span) SetMessageID(messageID string) {
	s.set(semconv.MessagingMessageID(messageID))
}

// StartSandbox starts the internal span around one script run.
func StartSandbox(ctx context.Context) (context.Context, Span) {
	return start(ctx, SpanSandbox, trace.SpanKindInternal, 2) // outcome, error type
}

// RecordOutcome sets the job's outcome on the span and, for a failure, the
// error code as error.type, the error as an exception event and the span
// status Error. A failure is a non-nil err, a non-empty code, or an
// outcome other than succeeded and interrupted (a replica stopping hands
// the job back: that is no failure). It does not end the span.
func (s Span) RecordOutcome(outcome, code string, err error) {
	if !s.IsRecording() {
		return
	}
	s.set(attribute.String(AttrJobOutcome, outcome))
	if code != "" {
		s.set(semconv.ErrorTypeKey.String(code))
	}
	if err != nil {
		s.span.RecordError(err)
	}
	if (outcome == OutcomeSucceeded || outcome == OutcomeSuspended || outcome == OutcomeInterrupted) && code == "" && err == nil {
		return
	}
	desc := code
	if err != nil {
		desc = err.Error()
	}
	if desc == "" {
		desc = outcome
	}
	s.span.SetStatus(codes.Error, desc)
}

// destinationName returns the low-cardinality name of a subject for span
// names, and the template when the subject ends with a job id: a result
// (<prefix>.results.<job id>) or a dead letter (<prefix>.dlq.<job id>),
// whatever the prefix (flowscript by default, SUBJECT_PREFIX otherwise).
func destinationName(subject string) (name, template string) {
	i := strings.LastIndexByte(subject, '.')
	if i <= 0 || i == len(subject)-1 {
		return subject, ""
	}
	prefix := subject[:i]
	last := prefix[strings.LastIndexByte(prefix, '.')+1:]
	if last == resultsToken || last == dlqToken {
		t := templates.of(prefix)
		return t, t
	}
	return subject, ""
}

// templates holds the destination templates: "<prefix>.{job_id}".
var templates = &joined{suffix: ".{job_id}"}

// The subject tokens before a job id (flowjob.ResultsSubjectPrefix and
// flowjob.DeadLetterSubjectPrefix end with them).
const (
	resultsToken = "results"
	dlqToken     = "dlq"
)
