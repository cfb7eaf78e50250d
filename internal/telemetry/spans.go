package telemetry

import (
	"context"
	"strings"
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

// StartSend starts the producer span of a publish on destination (a job on
// flowscript.jobs.execute, a result on flowscript.results.<id>, a dead
// letter): "send <destination>". messageID is the job id. Inject the
// returned context into the message's headers so the consumer's span is
// its child, and end the span (RecordOutcome first on failure) once the
// publish is acknowledged.
func StartSend(ctx context.Context, destination, messageID string) (context.Context, trace.Span) {
	t, recording := tracer()
	if !recording {
		return t.Start(ctx, "") // carries ctx's span context on, records nothing
	}
	name, template := destinationName(destination)
	// Sized for every attribute, the template too: a span's allocations
	// are most of what tracing costs per job.
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs,
		messagingSystemNATS,
		semconv.MessagingOperationTypeSend,
		semconv.MessagingOperationName("send"),
		semconv.MessagingDestinationName(destination),
		semconv.MessagingMessageID(messageID),
	)
	if template != "" {
		attrs = append(attrs, semconv.MessagingDestinationTemplate(template))
	}
	return t.Start(ctx, "send "+name,
		trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(attrs...))
}

// StartProcess starts the executor's consumer span for one delivery:
// "process <destination>", a child of the trace context in hdr (the
// engine's send span), or of ctx's span when hdr carries none.
// consumerGroup is the durable consumer's name; deliveryCount is
// JetStream's NumDelivered (1 on the first delivery).
func StartProcess(ctx context.Context, hdr nats.Header, destination, messageID, consumerGroup string, deliveryCount uint64) (context.Context, trace.Span) {
	ctx = Extract(ctx, hdr)
	t, recording := tracer()
	if !recording {
		return t.Start(ctx, "")
	}
	name, template := destinationName(destination)
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs,
		messagingSystemNATS,
		semconv.MessagingOperationTypeProcess,
		semconv.MessagingOperationName("process"),
		semconv.MessagingDestinationName(destination),
		semconv.MessagingMessageID(messageID),
		semconv.MessagingConsumerGroupName(consumerGroup),
		attribute.Int64(AttrDeliveryCount, int64(min(deliveryCount, 1<<63-1))),
	)
	if template != "" {
		attrs = append(attrs, semconv.MessagingDestinationTemplate(template))
	}
	return t.Start(ctx, "process "+name,
		trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...))
}

// SetMessageID sets the span's message id (the job id) when it was not
// known as the span started: a job message without Nats-Msg-Id.
func SetMessageID(span trace.Span, messageID string) {
	if span.IsRecording() {
		span.SetAttributes(semconv.MessagingMessageID(messageID))
	}
}

// StartSandbox starts the internal span around one script run.
func StartSandbox(ctx context.Context) (context.Context, trace.Span) {
	t, _ := tracer()
	return t.Start(ctx, SpanSandbox, trace.WithSpanKind(trace.SpanKindInternal))
}

// RecordOutcome sets the job's outcome on span and, for a failure, the
// error code as error.type, the error as an exception event and the span
// status Error. A failure is a non-nil err, a non-empty code, or an
// outcome other than succeeded and interrupted (a replica stopping hands
// the job back: that is no failure). It does not end the span.
func RecordOutcome(span trace.Span, outcome, code string, err error) {
	if !span.IsRecording() {
		return
	}
	if code != "" {
		span.SetAttributes(attribute.String(AttrJobOutcome, outcome), semconv.ErrorTypeKey.String(code))
	} else {
		span.SetAttributes(attribute.String(AttrJobOutcome, outcome))
	}
	if err != nil {
		span.RecordError(err)
	}
	if (outcome == OutcomeSucceeded || outcome == OutcomeInterrupted) && code == "" && err == nil {
		return
	}
	desc := code
	if err != nil {
		desc = err.Error()
	}
	if desc == "" {
		desc = outcome
	}
	span.SetStatus(codes.Error, desc)
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
