package telemetry

import (
	"context"
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

// scopedTracer is the tracer the last Setup made, and whether it records.
type scopedTracer struct {
	tracer    trace.Tracer
	recording bool
}

// active is set by Setup: spans go to the provider the last Setup built,
// without a provider lookup per span, and with tracing off the helpers
// skip building attributes. Before any Setup they use the global provider.
var active atomic.Pointer[scopedTracer]

func useTracerProvider(tp trace.TracerProvider, recording bool) {
	active.Store(&scopedTracer{tracer: newTracer(tp), recording: recording})
}

func newTracer(tp trace.TracerProvider) trace.Tracer {
	return tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL))
}

// tracer returns the tracer to use and whether its spans record.
func tracer() (trace.Tracer, bool) {
	if a := active.Load(); a != nil {
		return a.tracer, a.recording
	}
	return newTracer(otel.GetTracerProvider()), true
}

// Span is a span of the job path: the SDK's span and the attributes it
// will carry, gathered in a pooled buffer and handed to the SDK in one call
// as it ends. Setting them one call at a time costs the SDK a copy of the
// whole set per call: with four spans a job, the copies were a third of
// the garbage tracing made per job (BenchmarkJobPath). The zero Span, and
// a Span whose provider does not record, record nothing. End a Span once.
type Span struct {
	span  trace.Span
	attrs *attrBuffer // nil when the span does not record
}

// attrBuffer holds a recording span's attributes until it ends. owner is
// the span it belongs to, so a stale copy of an ended Span cannot touch a
// buffer the pool gave to another span.
type attrBuffer struct {
	owner trace.Span
	kv    []attribute.KeyValue
}

// maxSpanAttrs is the most attributes a job-path span carries: the process
// span's eight, the outcome, the error type, and room to spare.
const maxSpanAttrs = 12

var attrBuffers = sync.Pool{New: func() any {
	return &attrBuffer{kv: make([]attribute.KeyValue, 0, maxSpanAttrs)}
}}

// kindOptions holds the start option of each span kind, built once: a
// variadic option list made per call costs two allocations.
var kindOptions = func() (opts [trace.SpanKindConsumer + 1][]trace.SpanStartOption) {
	for k := range opts {
		opts[k] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKind(k))}
	}
	return opts
}()

// start starts a span named name of kind, with an attribute buffer when it
// records.
func start(ctx context.Context, name string, kind trace.SpanKind) (context.Context, Span) {
	t, recording := tracer()
	if !recording {
		ctx, span := t.Start(ctx, "") // carries ctx's span context on, records nothing
		return ctx, Span{span: span}
	}
	ctx, span := t.Start(ctx, name, kindOptions[kind]...)
	if !span.IsRecording() {
		return ctx, Span{span: span} // not sampled
	}
	b := attrBuffers.Get().(*attrBuffer)
	b.owner = span
	return ctx, Span{span: span, attrs: b}
}

// buffer is s's attribute buffer, or nil once s ended or if it does not
// record.
func (s Span) buffer() *attrBuffer {
	if s.attrs == nil || s.attrs.owner != s.span {
		return nil
	}
	return s.attrs
}

// set sets the attribute kv, replacing an earlier value of its key.
func (s Span) set(kv attribute.KeyValue) {
	b := s.buffer()
	if b == nil {
		return
	}
	for i := range b.kv {
		if b.kv[i].Key == kv.Key {
			b.kv[i] = kv
			return
		}
	}
	b.kv = append(b.kv, kv)
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

// End records err (if any) as the span's error, sets the attributes
// gathered so far, and ends the span.
func (s Span) End(err error) {
	if s.span == nil {
		return
	}
	if b := s.buffer(); b != nil {
		s.span.SetAttributes(b.kv...) // the SDK copies them
		clear(b.kv)
		b.kv, b.owner = b.kv[:0], nil
		attrBuffers.Put(b)
	}
	EndSpan(s.span, err)
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
	if b := s.buffer(); b != nil {
		b.kv = append(b.kv,
			semconv.MessagingConsumerGroupName(consumerGroup),
			attribute.Int64(AttrDeliveryCount, int64(min(deliveryCount, 1<<63-1))),
		)
	}
	return ctx, s
}

// messagingOp is a messaging operation: its name, its
// messaging.operation.type and the kind of its spans.
type messagingOp struct {
	name string
	typ  attribute.KeyValue
	kind trace.SpanKind
}

var (
	opSend    = messagingOp{"send", semconv.MessagingOperationTypeSend, trace.SpanKindProducer}
	opProcess = messagingOp{"process", semconv.MessagingOperationTypeProcess, trace.SpanKindConsumer}
)

// startMessaging starts the span of op on destination, named
// "<operation> <destination>", with the attributes every messaging span
// carries.
func startMessaging(ctx context.Context, op messagingOp, destination, messageID string) (context.Context, Span) {
	if _, recording := tracer(); !recording {
		return start(ctx, "", op.kind) // no name to build: nothing is recorded
	}
	name, template := destinationName(destination)
	ctx, s := start(ctx, op.name+" "+name, op.kind)
	if b := s.buffer(); b != nil {
		b.kv = append(b.kv,
			messagingSystemNATS,
			op.typ,
			semconv.MessagingOperationName(op.name),
			semconv.MessagingDestinationName(destination),
			semconv.MessagingMessageID(messageID),
		)
		if template != "" {
			b.kv = append(b.kv, semconv.MessagingDestinationTemplate(template))
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
	return start(ctx, SpanSandbox, trace.SpanKindInternal)
}

// RecordOutcome sets the job's outcome on the span and, for a failure, the
// error code as error.type, the error as an exception event and the span
// status Error. A failure is a non-nil err, a non-empty code, or an
// outcome other than succeeded and interrupted (a replica stopping hands
// the job back: that is no failure). It does not end the span.
func (s Span) RecordOutcome(outcome, code string, err error) {
	if s.buffer() == nil {
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
		t := prefix + ".{job_id}"
		return t, t
	}
	return subject, ""
}

// The subject tokens before a job id (flowjob.ResultsSubjectPrefix and
// flowjob.DeadLetterSubjectPrefix end with them).
const (
	resultsToken = "results"
	dlqToken     = "dlq"
)
