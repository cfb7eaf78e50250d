package telemetry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// jobStream makes a JOBS stream and a durable pull consumer on nc's server.
func jobStream(t *testing.T, nc *nats.Conn) (jetstream.JetStream, jetstream.Consumer) {
	t.Helper()
	ctx := testenv.Context(t, 10*time.Second)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("opening JetStream: %v", err)
	}
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: flowjob.DefaultJobsStream, Subjects: []string{flowjob.JobsSubjectPrefix + ".>"},
	})
	if err != nil {
		t.Fatalf("creating stream: %v", err)
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: flowjob.DefaultConsumer, AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		t.Fatalf("creating consumer: %v", err)
	}
	return js, cons
}

// runJob plays one job through the spans the engine client and the
// executor will create: client send → (JetStream) → process → sandbox →
// result send. scriptErr non-nil makes the script fail with code.
func runJob(t *testing.T, js jetstream.JetStream, cons jetstream.Consumer, jobID, code string, scriptErr error) {
	t.Helper()
	ctx := testenv.Context(t, 10*time.Second)

	// Engine side.
	t0, _ := tracer()
	engineCtx, engine := t0.Start(ctx, "engine block")
	sendCtx, send := StartSend(engineCtx, flowjob.JobsSubject, jobID)
	msg := nats.NewMsg(flowjob.JobsSubject)
	msg.Data = []byte(`{"id":"` + jobID + `"}`)
	Inject(sendCtx, msg.Header)
	msg.Header.Set(flowjob.HeaderMsgID, jobID)
	if _, err := js.PublishMsg(sendCtx, msg); err != nil {
		t.Fatalf("publishing job: %v", err)
	}
	send.End(nil)
	engine.End()

	// Executor side: a fresh context, only the headers link it.
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatalf("fetching: %v", err)
	}
	var got jetstream.Msg
	for m := range batch.Messages() {
		got = m
	}
	if got == nil {
		t.Fatalf("no message fetched: %v", batch.Error())
	}
	md, err := got.Metadata()
	if err != nil {
		t.Fatalf("reading metadata: %v", err)
	}
	pctx, process := StartProcess(context.Background(), got.Headers(), got.Subject(), jobID, md.Consumer, md.NumDelivered)

	outcome := OutcomeSucceeded
	if scriptErr != nil {
		outcome = OutcomeFailed
	}
	_, sandbox := StartSandbox(pctx)
	sandbox.RecordOutcome(outcome, code, scriptErr)
	sandbox.End(nil)

	rctx, result := StartSend(pctx, flowjob.ResultSubject(jobID), jobID)
	resultMsg := nats.NewMsg(flowjob.ResultSubject(jobID))
	Inject(rctx, resultMsg.Header)
	result.End(nil)

	process.RecordOutcome(outcome, code, scriptErr)
	process.End(nil)
	if err := got.Ack(); err != nil {
		t.Fatalf("acking: %v", err)
	}
	// The result message carries the result send span's context.
	if sc := trace.SpanContextFromContext(Extract(context.Background(), resultMsg.Header)); sc.SpanID() != result.SpanContext().SpanID() {
		t.Errorf("result headers carry span %s, want the result send span %s", sc.SpanID(), result.SpanContext().SpanID())
	}
}

func TestOneJobIsOneConnectedTrace(t *testing.T) {
	_, exp := setupRecording(t)
	js, cons := jobStream(t, connect(t))
	runJob(t, js, cons, "job-ok", "", nil)

	spans := exp.GetSpans()
	engine := spanNamed(t, spans, "engine block")
	send := spanNamed(t, spans, "send flowscript.jobs.execute")
	process := spanNamed(t, spans, "process flowscript.jobs.execute")
	sandbox := spanNamed(t, spans, SpanSandbox)
	result := spanNamed(t, spans, "send flowscript.results.{job_id}")

	for _, s := range []tracetest.SpanStub{send, process, sandbox, result} {
		if s.SpanContext.TraceID() != engine.SpanContext.TraceID() {
			t.Errorf("span %q is in trace %s, want the engine's %s", s.Name, s.SpanContext.TraceID(), engine.SpanContext.TraceID())
		}
	}
	parents := []struct {
		child, parent tracetest.SpanStub
	}{
		{send, engine}, {process, send}, {sandbox, process}, {result, process},
	}
	for _, p := range parents {
		if p.child.Parent.SpanID() != p.parent.SpanContext.SpanID() {
			t.Errorf("span %q has parent %s, want %q (%s)", p.child.Name, p.child.Parent.SpanID(), p.parent.Name, p.parent.SpanContext.SpanID())
		}
	}
	if !process.Parent.IsRemote() {
		t.Error("the process span's parent should be the remote (extracted) send span")
	}

	kinds := map[string]trace.SpanKind{send.Name: trace.SpanKindProducer, process.Name: trace.SpanKindConsumer, sandbox.Name: trace.SpanKindInternal, result.Name: trace.SpanKindProducer}
	for _, s := range []tracetest.SpanStub{send, process, sandbox, result} {
		if s.SpanKind != kinds[s.Name] {
			t.Errorf("span %q kind %s, want %s", s.Name, s.SpanKind, kinds[s.Name])
		}
	}

	wantAttrs(t, send, map[attribute.Key]attribute.Value{
		"messaging.system":           attribute.StringValue("nats"),
		"messaging.operation.type":   attribute.StringValue("send"),
		"messaging.destination.name": attribute.StringValue("flowscript.jobs.execute"),
		"messaging.message.id":       attribute.StringValue("job-ok"),
	})
	wantAttrs(t, process, map[attribute.Key]attribute.Value{
		"messaging.system":              attribute.StringValue("nats"),
		"messaging.operation.type":      attribute.StringValue("process"),
		"messaging.destination.name":    attribute.StringValue("flowscript.jobs.execute"),
		"messaging.message.id":          attribute.StringValue("job-ok"),
		"messaging.consumer.group.name": attribute.StringValue("executor"),
		AttrDeliveryCount:               attribute.Int64Value(1),
		AttrJobOutcome:                  attribute.StringValue(OutcomeSucceeded),
	})
	wantAttrs(t, result, map[attribute.Key]attribute.Value{
		"messaging.destination.name":     attribute.StringValue("flowscript.results.job-ok"),
		"messaging.destination.template": attribute.StringValue("flowscript.results.{job_id}"),
		"messaging.message.id":           attribute.StringValue("job-ok"),
	})
	for _, s := range []tracetest.SpanStub{process, sandbox} {
		if s.Status.Code != codes.Unset {
			t.Errorf("span %q of a succeeded job has status %v", s.Name, s.Status)
		}
		if hasAttr(s, "error.type") {
			t.Errorf("span %q of a succeeded job has error.type", s.Name)
		}
	}
}

func TestFailedJobSpansCarryTheErrorCode(t *testing.T) {
	_, exp := setupRecording(t)
	js, cons := jobStream(t, connect(t))
	runJob(t, js, cons, "job-bad", "SCRIPT_ERROR", errors.New("SCRIPT_ERROR: x is not defined (line 3, column 5)"))

	spans := exp.GetSpans()
	for _, name := range []string{"process flowscript.jobs.execute", SpanSandbox} {
		s := spanNamed(t, spans, name)
		wantAttrs(t, s, map[attribute.Key]attribute.Value{
			"error.type":   attribute.StringValue("SCRIPT_ERROR"),
			AttrJobOutcome: attribute.StringValue(OutcomeFailed),
		})
		if s.Status.Code != codes.Error || s.Status.Description != "SCRIPT_ERROR: x is not defined (line 3, column 5)" {
			t.Errorf("span %q status %+v, want Error with the script's message", name, s.Status)
		}
		if len(s.Events) != 1 || s.Events[0].Name != "exception" {
			t.Errorf("span %q events %v, want one exception", name, s.Events)
		}
	}
}

func TestRecordOutcome(t *testing.T) {
	tests := []struct {
		name       string
		outcome    string
		code       string
		err        error
		wantStatus codes.Code
		wantDesc   string
		wantEvents int
	}{
		{"succeeded", OutcomeSucceeded, "", nil, codes.Unset, "", 0},
		{"interrupted is no failure", OutcomeInterrupted, "", nil, codes.Unset, "", 0},
		{"failed with a code only", OutcomeFailed, "SCRIPT_TIMEOUT", nil, codes.Error, "SCRIPT_TIMEOUT", 0},
		{"dead lettered without a code", OutcomeDeadLettered, "", nil, codes.Error, OutcomeDeadLettered, 0},
		{"retried after an error", OutcomeRetried, "SANDBOX_CRASH", errors.New("worker exited"), codes.Error, "worker exited", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, exp := setupRecording(t)
			_, span := StartSandbox(context.Background())
			span.RecordOutcome(tt.outcome, tt.code, tt.err)
			span.End(nil)
			s := spanNamed(t, exp.GetSpans(), SpanSandbox)
			if s.Status.Code != tt.wantStatus || s.Status.Description != tt.wantDesc {
				t.Errorf("status %+v, want %v %q", s.Status, tt.wantStatus, tt.wantDesc)
			}
			if len(s.Events) != tt.wantEvents {
				t.Errorf("%d events, want %d", len(s.Events), tt.wantEvents)
			}
			if got := hasAttr(s, "error.type"); got != (tt.code != "") {
				t.Errorf("error.type present = %v, want %v", got, tt.code != "")
			}
		})
	}
}

// With tracing off nothing is recorded, yet the engine's trace context
// flows on: log lines and the result message keep the engine's trace id.
func TestTracingOffKeepsTheIncomingTraceContext(t *testing.T) {
	setupWith(t, Config{ServiceName: "flowscript-test", Getenv: noEnv})
	hdr := nats.Header{"traceparent": {foreignTraceparent}}
	ctx, span := StartProcess(context.Background(), hdr, flowjob.JobsSubject, "job-1", "executor", 1)
	defer span.End(nil)
	if span.IsRecording() {
		t.Fatal("with no OTEL_* variable the process span records")
	}
	if got := trace.SpanContextFromContext(ctx).TraceID().String(); got != foreignTraceID {
		t.Errorf("trace id %s, want the engine's %s", got, foreignTraceID)
	}
	out := nats.Header{}
	Inject(ctx, out)
	if out.Get("traceparent") != foreignTraceparent {
		t.Errorf("result traceparent %q, want the engine's %q", out.Get("traceparent"), foreignTraceparent)
	}
}

func TestDestinationName(t *testing.T) {
	tests := []struct{ subject, name, template string }{
		{"flowscript.jobs.execute", "flowscript.jobs.execute", ""},
		{"flowscript.results.job-42", "flowscript.results.{job_id}", "flowscript.results.{job_id}"},
		{"flowscript.dlq.job-42", "flowscript.dlq.{job_id}", "flowscript.dlq.{job_id}"},
		{"flowscript.results.", "flowscript.results.", ""},
		{"acme.prod.results.job-42", "acme.prod.results.{job_id}", "acme.prod.results.{job_id}"},
		{"acme.dlq.unknown", "acme.dlq.{job_id}", "acme.dlq.{job_id}"},
		{"acme.jobs.execute", "acme.jobs.execute", ""},
		{"_INBOX.abc", "_INBOX.abc", ""},
	}
	for _, tt := range tests {
		name, template := destinationName(tt.subject)
		if name != tt.name || template != tt.template {
			t.Errorf("destinationName(%q) = %q, %q; want %q, %q", tt.subject, name, template, tt.name, tt.template)
		}
	}
}

func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[attribute.Key]attribute.Value) {
	t.Helper()
	got := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		got[kv.Key] = kv.Value
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("span %q attribute %s = %v (present %v), want %v", s.Name, k, g.String(), ok, v.String())
		}
	}
}

func hasAttr(s tracetest.SpanStub, key attribute.Key) bool {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// A span's attributes reach the SDK as it ends, each key once: a message
// id set after the start replaces the first, and an outcome recorded twice
// keeps the last.
func TestSpanAttributesAreSetOnceAtEnd(t *testing.T) {
	_, exp := setupRecording(t)
	_, span := StartProcess(context.Background(), nil, flowjob.JobsSubject, "msg-id", "executor", 2)
	span.SetMessageID("job-7")
	span.RecordOutcome(OutcomeRetried, "SANDBOX_CRASH", nil)
	span.RecordOutcome(OutcomeSucceeded, "", nil)
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans exported before End", n)
	}
	span.End(nil)

	s := spanNamed(t, exp.GetSpans(), "process "+flowjob.JobsSubject)
	seen := map[attribute.Key]int{}
	for _, kv := range s.Attributes {
		seen[kv.Key]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("attribute %s appears %d times", k, n)
		}
	}
	wantAttrs(t, s, map[attribute.Key]attribute.Value{
		"messaging.message.id":       attribute.StringValue("job-7"),
		AttrJobOutcome:               attribute.StringValue(OutcomeSucceeded),
		"messaging.system":           attribute.StringValue("nats"),
		AttrDeliveryCount:            attribute.Int64Value(2),
		"error.type":                 attribute.StringValue("SANDBOX_CRASH"),
		"messaging.destination.name": attribute.StringValue(flowjob.JobsSubject),
	})
}

// End with an error marks the span failed; a second End, or a copy of an
// ended span, changes nothing, even once its buffer serves another span.
func TestSpanEndIsFinal(t *testing.T) {
	_, exp := setupRecording(t)
	_, first := StartSend(context.Background(), flowjob.ResultSubject("job-1"), "job-1")
	stale := first
	first.End(errors.New("no responders"))
	first.End(nil)

	_, second := StartSend(context.Background(), flowjob.ResultSubject("job-2"), "job-2")
	stale.SetMessageID("job-1-again")
	stale.RecordOutcome(OutcomeFailed, "SCRIPT_ERROR", nil)
	stale.End(nil)
	second.End(nil)

	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	if s := spans[0]; s.Status.Code != codes.Error || s.Status.Description != "no responders" || len(s.Events) != 1 {
		t.Errorf("first span status %+v with %d events, want Error %q and one exception", s.Status, len(s.Events), "no responders")
	}
	s := spans[1]
	wantAttrs(t, s, map[attribute.Key]attribute.Value{"messaging.message.id": attribute.StringValue("job-2")})
	if hasAttr(s, AttrJobOutcome) || hasAttr(s, "error.type") || s.Status.Code != codes.Unset {
		t.Errorf("an ended span's copy wrote into the next span: %v, status %+v", s.Attributes, s.Status)
	}
}

// The zero Span, and spans while tracing is off, can be used and ended.
func TestSpanWithoutRecording(t *testing.T) {
	var zero Span
	zero.SetMessageID("job-1")
	zero.RecordOutcome(OutcomeFailed, "SCRIPT_ERROR", errors.New("boom"))
	zero.End(errors.New("boom"))
	if zero.IsRecording() || zero.SpanContext().IsValid() {
		t.Error("the zero Span records")
	}

	setupWith(t, Config{ServiceName: "flowscript-test", Getenv: noEnv})
	_, off := StartSend(context.Background(), flowjob.JobsSubject, "job-1")
	off.RecordOutcome(OutcomeFailed, "SCRIPT_ERROR", nil)
	off.End(nil)
	if off.IsRecording() {
		t.Error("a span records with tracing off")
	}
}
