package executorapp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/testenv"
)

// mainRun is Main running in this process.
type mainRun struct {
	admin  string
	stderr *testenv.SyncBuffer
	cancel context.CancelFunc
	exit   chan int
	once   sync.Once
}

// startMain runs Main with env (no demo) until the test ends.
func startMain(t *testing.T, env map[string]string, d Deps) *mainRun {
	t.Helper()
	m := &mainRun{stderr: &testenv.SyncBuffer{}, exit: make(chan int, 1)}
	admin := make(chan string, 1)
	d.Args, d.Getenv, d.Stdout, d.Stderr = []string{"-demo=off"}, envOf(env), io.Discard, m.stderr
	d.OnAdmin = func(addr string) { admin <- addr }
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() { m.exit <- Main(ctx, d) }()
	t.Cleanup(func() {
		m.stop(t)
		if t.Failed() {
			t.Logf("executor logs:\n%s", m.stderr.String())
		}
	})
	select {
	case m.admin = <-admin:
	case code := <-m.exit:
		t.Fatalf("Main exited with %d before serving:\n%s", code, m.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the admin server did not start within 30s")
	}
	// The admin port answers before the executor is provisioned: wait
	// until it says ready.
	waitFor(t, 60*time.Second, "/readyz to answer 200", func() bool {
		resp, err := http.Get("http://" + m.admin + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return m
}

// stop cancels Main and waits for it to return 0.
func (m *mainRun) stop(t *testing.T) {
	t.Helper()
	m.once.Do(func() {
		m.cancel()
		select {
		case code := <-m.exit:
			if code != ExitOK {
				t.Errorf("Main exited with %d, want 0", code)
			}
		case <-time.After(30 * time.Second):
			t.Error("Main did not return within 30s of its context ending")
		}
	})
}

// logLines parses the JSON log lines of s.
func logLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("a log line is not JSON: %q", sc.Text())
		}
		lines = append(lines, line)
	}
	return lines
}

// jobLines are the log lines that name jobID.
func jobLines(lines []map[string]any, jobID string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l[telemetry.LogKeyJobID] == jobID {
			out = append(out, l)
		}
	}
	return out
}

func failingJob(id string) *flowjob.Job {
	j := slowJob(id, 0)
	j.Action.Source = "throw new Error('boom')"
	j.Action.ErrorVariable = "err"
	return j
}

// badJobPayload names its ids but has no outputVariable: bad input, which
// gets a failed result and a dead letter.
func badJobPayload(t *testing.T, id string) []byte {
	t.Helper()
	j := slowJob(id, 0)
	j.Action.OutputVariable = ""
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flowjob.Decode(data); err == nil {
		t.Fatal("the bad job decodes: the test needs one the executor refuses")
	}
	return data
}

// publishTraced publishes raw job bytes the way a client with
// telemetry.ClientHook would (the client refuses invalid jobs).
func publishTraced(t *testing.T, js jetstream.JetStream, cfg consumer.Config, id string, data []byte) {
	t.Helper()
	msg := nats.NewMsg(cfg.Subjects().Jobs())
	msg.Data = data
	msg.Header.Set(flowjob.HeaderMsgID, id)
	ctx, done := telemetry.ClientHook(context.Background(), cfg.Subjects().Jobs(), id, msg.Header)
	_, err := js.PublishMsg(ctx, msg)
	done(err)
	if err != nil {
		t.Fatalf("publishing job %s: %v", id, err)
	}
}

// storedResult is the raw result message of jobID.
func storedResult(t *testing.T, js jetstream.JetStream, cfg consumer.Config, jobID string) *jetstream.RawStreamMsg {
	t.Helper()
	ctx := testenv.Context(t, 10*time.Second)
	s, err := js.Stream(ctx, cfg.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	var raw *jetstream.RawStreamMsg
	waitFor(t, 10*time.Second, "the result of "+jobID, func() bool {
		raw, err = s.GetLastMsgForSubject(ctx, cfg.Subjects().Result(jobID))
		return err == nil
	})
	return raw
}

// attrs indexes a span's attributes.
func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// wantAttrs checks the attributes of s that want names.
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[string]any) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		g, ok := got[attribute.Key(k)]
		if !ok {
			t.Errorf("span %q has no attribute %s (it has %v)", s.Name, k, s.Attributes)
			continue
		}
		if g.String() != fmt.Sprint(v) {
			t.Errorf("span %q: %s = %s, want %v", s.Name, k, g.String(), v)
		}
	}
}

// traceOf returns the spans of the trace the client's send span of jobID
// starts, once the executor's process span of that trace has ended, by name.
func traceOf(t *testing.T, exp *tracetest.InMemoryExporter, jobsSubject, jobID string, want int) map[string]tracetest.SpanStub {
	t.Helper()
	var byName map[string]tracetest.SpanStub
	var all tracetest.SpanStubs
	ok := false
	deadline := time.Now().Add(15 * time.Second)
	for !ok && time.Now().Before(deadline) {
		all = exp.GetSpans()
		var root *tracetest.SpanStub
		for i, s := range all {
			if s.Name == "send "+jobsSubject && attrs(s)["messaging.message.id"].AsString() == jobID {
				root = &all[i]
			}
		}
		if root != nil {
			byName = map[string]tracetest.SpanStub{}
			n := 0
			for _, s := range all {
				if s.SpanContext.TraceID() == root.SpanContext.TraceID() {
					n++
					if _, dup := byName[s.Name]; dup {
						t.Fatalf("trace of job %s has two spans named %q", jobID, s.Name)
					}
					byName[s.Name] = s
				}
			}
			ok = n >= want
		}
		if !ok {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !ok {
		var names []string
		for _, s := range all {
			names = append(names, s.Name+" "+s.SpanContext.TraceID().String())
		}
		t.Fatalf("the trace of job %s did not reach %d spans within 15s; spans: %q", jobID, want, names)
	}
	if len(byName) != want {
		t.Errorf("the trace of job %s has spans %v, want %d", jobID, keys(byName), want)
	}
	return byName
}

func keys(m map[string]tracetest.SpanStub) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// span returns the span name of trace, failing when it is missing.
func span(t *testing.T, tr map[string]tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	s, ok := tr[name]
	if !ok {
		t.Fatalf("the trace has no span %q; it has %q", name, keys(tr))
	}
	return s
}

// childOf checks that child's parent is parent.
func childOf(t *testing.T, child, parent tracetest.SpanStub) {
	t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.Parent.TraceID() != parent.SpanContext.TraceID() {
		t.Errorf("span %q has parent %s, want %q (%s)", child.Name, child.Parent.SpanID(), parent.Name, parent.SpanContext.SpanID())
	}
}

// TestOneTracePerJob is issue 7's first acceptance point: a job published
// by the flowclient client with telemetry.ClientHook yields one connected
// trace, client send → executor process → sandbox → result send, with the
// messaging attributes; a failed job's spans carry its error code; a bad
// job's trace ends in the dead letter's send. Every log line of a job
// carries its job_id, trace_id and span_id.
func TestOneTracePerJob(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		exp := tracetest.NewInMemoryExporter()
		env, cfg := names(t, url)
		m := startMain(t, env, Deps{SpanProcessor: sdktrace.NewSimpleSpanProcessor(exp)})
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		client, err := flowclient.NewClient(nc, flowclient.WithSubjectPrefix(cfg.SubjectPrefix), flowclient.WithResultsStream(cfg.ResultsStream),
			flowclient.WithPublishHook(telemetry.ClientHook))
		if err != nil {
			t.Fatal(err)
		}
		ctx := testenv.Context(t, 30*time.Second)
		okID, failID, badID := "trace-ok", "trace-fail", "trace-bad"
		if res, err := client.Run(ctx, slowJob(okID, 1)); err != nil || res.Status != flowjob.StatusSucceeded {
			t.Fatalf("the good job: %+v, %v", res, err)
		}
		if res, err := client.Run(ctx, failingJob(failID)); err != nil || res.Status != flowjob.StatusFailed {
			t.Fatalf("the failing job: %+v, %v", res, err)
		}
		publishTraced(t, js, cfg, badID, badJobPayload(t, badID))

		resultsSend := "send " + cfg.Subjects().Results() + ".{job_id}"
		dlqSend := "send " + cfg.SubjectPrefix + ".dlq.{job_id}"
		process := "process " + cfg.Subjects().Jobs()
		send := "send " + cfg.Subjects().Jobs()

		t.Run("succeeded", func(t *testing.T) {
			tr := traceOf(t, exp, cfg.Subjects().Jobs(), okID, 4)
			c, p, sb, r := span(t, tr, send), span(t, tr, process), span(t, tr, telemetry.SpanSandbox), span(t, tr, resultsSend)
			if c.Parent.IsValid() {
				t.Errorf("the client's send span has a parent %s; it starts the trace here", c.Parent.SpanID())
			}
			childOf(t, p, c)
			childOf(t, sb, p)
			childOf(t, r, p)
			for s, kind := range map[*tracetest.SpanStub]trace.SpanKind{&c: trace.SpanKindProducer, &p: trace.SpanKindConsumer,
				&sb: trace.SpanKindInternal, &r: trace.SpanKindProducer} {
				if s.SpanKind != kind {
					t.Errorf("span %q is %s, want %s", s.Name, s.SpanKind, kind)
				}
			}
			wantAttrs(t, c, map[string]any{"messaging.system": "nats", "messaging.destination.name": cfg.Subjects().Jobs(),
				"messaging.message.id": okID, "messaging.operation.type": "send"})
			wantAttrs(t, p, map[string]any{"messaging.system": "nats", "messaging.destination.name": cfg.Subjects().Jobs(),
				"messaging.message.id": okID, "messaging.consumer.group.name": cfg.Consumer,
				telemetry.AttrDeliveryCount: 1, telemetry.AttrJobOutcome: telemetry.OutcomeSucceeded,
				"messaging.operation.type": "process"})
			wantAttrs(t, r, map[string]any{"messaging.system": "nats", "messaging.destination.name": cfg.Subjects().Result(okID),
				"messaging.message.id": okID})
			if _, ok := attrs(p)["error.type"]; ok || p.Status.Code == codes.Error {
				t.Errorf("the good job's process span is an error: %v %v", p.Status, p.Attributes)
			}
			// The stored result carries the result send span's context.
			raw := storedResult(t, js, cfg, okID)
			want := fmt.Sprintf("00-%s-%s-01", r.SpanContext.TraceID(), r.SpanContext.SpanID())
			if got := raw.Header.Get(flowjob.HeaderTraceParent); got != want {
				t.Errorf("the result's traceparent is %q, want %q (the result send span)", got, want)
			}
			// Every log line of the job carries its ids.
			lines := jobLines(logLines(t, m.stderr.String()), okID)
			if len(lines) == 0 {
				t.Fatalf("no log line carries job_id %s", okID)
			}
			for _, l := range lines {
				if l[telemetry.LogKeyTraceID] != c.SpanContext.TraceID().String() || l[telemetry.LogKeySpanID] == nil {
					t.Errorf("log line %v lacks the job's trace_id %s or a span_id", l, c.SpanContext.TraceID())
				}
			}
		})

		t.Run("failed", func(t *testing.T) {
			tr := traceOf(t, exp, cfg.Subjects().Jobs(), failID, 4)
			p, sb := span(t, tr, process), span(t, tr, telemetry.SpanSandbox)
			childOf(t, p, span(t, tr, send))
			childOf(t, span(t, tr, resultsSend), p)
			for _, s := range []tracetest.SpanStub{p, sb} {
				wantAttrs(t, s, map[string]any{"error.type": flowjob.CodeScriptError, telemetry.AttrJobOutcome: telemetry.OutcomeFailed})
				if s.Status.Code != codes.Error {
					t.Errorf("span %q status %v, want Error", s.Name, s.Status)
				}
			}
		})

		t.Run("dead letter", func(t *testing.T) {
			tr := traceOf(t, exp, cfg.Subjects().Jobs(), badID, 4)
			p := span(t, tr, process)
			childOf(t, p, span(t, tr, send))
			childOf(t, span(t, tr, resultsSend), p)
			d := span(t, tr, dlqSend)
			childOf(t, d, p)
			wantAttrs(t, p, map[string]any{"error.type": flowjob.CodeInvalidJob, telemetry.AttrJobOutcome: telemetry.OutcomeDeadLettered,
				"messaging.message.id": badID})
			wantAttrs(t, d, map[string]any{"messaging.destination.name": cfg.Subjects().DeadLetter(badID), "messaging.message.id": badID})
			if _, ran := tr[telemetry.SpanSandbox]; ran {
				t.Error("a bad job reached the sandbox")
			}
		})
	})
}

// TestNothingIsExportedWithoutOTELVariables: with no OTEL_* variable the
// executor records no span, yet the engine's trace context reaches the
// result unchanged and the job's log lines carry its trace id.
func TestNothingIsExportedWithoutOTELVariables(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	env, cfg := names(t, url)
	m := startMain(t, env, Deps{})
	if strings.Contains(m.stderr.String(), `"traces":"on"`) || !strings.Contains(m.stderr.String(), `"traces":"off"`) {
		t.Errorf("the executor did not say traces are off:\n%s", m.stderr.String())
	}
	if _, s := telemetry.StartSend(context.Background(), "x", "y"); s.IsRecording() {
		t.Error("spans record with no OTEL_* variable set")
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	const engine = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	client, err := flowclient.NewClient(nc, flowclient.WithSubjectPrefix(cfg.SubjectPrefix), flowclient.WithResultsStream(cfg.ResultsStream),
		flowclient.WithPublishHook(telemetry.ClientHook), // no-op: it must not break the engine's context
		flowclient.WithHeaderInjector(func(_ context.Context, h nats.Header) { h.Set(flowjob.HeaderTraceParent, engine) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Run(testenv.Context(t, 20*time.Second), slowJob("untraced", 1)); err != nil {
		t.Fatal(err)
	}
	if got := storedResult(t, js, cfg, "untraced").Header.Get(flowjob.HeaderTraceParent); got != engine {
		t.Errorf("the result's traceparent is %q, want the engine's %q unchanged (no span in between)", got, engine)
	}
	var lines []map[string]any
	waitFor(t, 10*time.Second, "the job's log lines", func() bool {
		lines = jobLines(logLines(t, m.stderr.String()), "untraced")
		return len(lines) > 0
	})
	for _, l := range lines {
		if l[telemetry.LogKeyTraceID] != "4bf92f3577b34da6a3ce929d0e0e4736" || l[telemetry.LogKeySpanID] != "00f067aa0ba902b7" {
			t.Errorf("log line %v does not carry the engine's trace and span ids", l)
		}
	}
}

// scrapeMetrics GETs the admin port's /metrics and parses it.
func scrapeMetrics(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scraping /metrics: %v", err)
	}
	defer func() { _ = resp.Body.Close() }() // read-only: a read error shows below
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics answered %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// samples indexes a family's samples by their labels ("k=v,k=v", sorted
// by the exporter).
func samples(fam *dto.MetricFamily) map[string]*dto.Metric {
	out := map[string]*dto.Metric{}
	for _, m := range fam.GetMetric() {
		var parts []string
		for _, lp := range m.GetLabel() {
			parts = append(parts, lp.GetName()+"="+lp.GetValue())
		}
		out[strings.Join(parts, ",")] = m
	}
	return out
}

// TestAdminMetricsAfterJobs runs the executor binary (the worker pool, as
// in production), sends it jobs that succeed, fail, are dead-lettered and
// kill their sandbox worker, and finds every metric of
// telemetry.MetricNames on the admin port with the values those jobs make.
func TestAdminMetricsAfterJobs(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		env, cfg := names(t, url)
		env["ADMIN_ADDR"] = testenv.FreeAddr(t)
		env["SANDBOX_MAX_PARALLEL"] = "2"
		p := startBinary(t, env)
		waitFor(t, 30*time.Second, "/readyz", func() bool {
			resp, err := http.Get("http://" + env["ADMIN_ADDR"] + "/readyz")
			if err != nil {
				return false
			}
			_ = resp.Body.Close() // only the status matters
			return resp.StatusCode == http.StatusOK
		})
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		client := newClient(t, nc, cfg)
		ctx := testenv.Context(t, 60*time.Second)

		memory := slowJob("m-memory", 0)
		// split grows its array in one native call past the worker's
		// hard budget: the worker is ended and replaced (a string, buffer
		// or fill over the share would be refused unmade, and its worker
		// kept).
		memory.Action.Source = "return 'x'.repeat(3e7).split('').length"
		codes := map[string]int{} // result code ("" on success) → jobs
		for _, job := range []*flowjob.Job{slowJob("m-ok-1", 1), slowJob("m-ok-2", 1), failingJob("m-fail"), memory} {
			res, err := client.Run(ctx, job)
			if err != nil {
				t.Fatalf("job %s: %v", job.ID, err)
			}
			code := ""
			if res.Error != nil {
				code = res.Error.Code
			}
			codes[code]++
		}
		if codes[""] != 2 || codes[flowjob.CodeScriptError] != 1 || codes[flowjob.CodeMemoryLimit] != 1 {
			t.Fatalf("result codes %v, want 2 successes, one %s and one %s", codes, flowjob.CodeScriptError, flowjob.CodeMemoryLimit)
		}
		publishTraced(t, js, cfg, "m-bad", badJobPayload(t, "m-bad"))
		waitFor(t, 20*time.Second, "the dead letter", func() bool { return streamState(t, js, cfg.DLQStream).Msgs == 1 })

		var fams map[string]*dto.MetricFamily
		waitFor(t, 20*time.Second, "the jobs to be counted and settled", func() bool {
			fams = scrapeMetrics(t, env["ADMIN_ADDR"])
			jobs := samples(fams[telemetry.MetricJobs])
			inFlight := fams[telemetry.MetricInFlight]
			return jobs["code=INVALID_JOB,outcome=dead_lettered"] != nil && inFlight != nil &&
				inFlight.GetMetric()[0].GetGauge().GetValue() == 0
		})
		for _, name := range telemetry.MetricNames {
			if fams[name] == nil {
				t.Errorf("/metrics has no %s", name)
			}
		}

		counter := func(name, labels string) float64 {
			m := samples(fams[name])[labels]
			if m == nil {
				t.Errorf("%s has no sample {%s}; it has %v", name, labels, keysOf(samples(fams[name])))
				return -1
			}
			return m.GetCounter().GetValue()
		}
		for labels, want := range map[string]float64{
			"code=,outcome=succeeded":                 2,
			"code=SCRIPT_ERROR,outcome=failed":        1,
			"code=SCRIPT_MEMORY_LIMIT,outcome=failed": 1,
			"code=INVALID_JOB,outcome=dead_lettered":  1,
		} {
			if got := counter(telemetry.MetricJobs, labels); got != want {
				t.Errorf("%s{%s} = %v, want %v", telemetry.MetricJobs, labels, got, want)
			}
		}
		if n := len(fams[telemetry.MetricJobs].GetMetric()); n != 4 {
			t.Errorf("%s has %d series, want 4: %v", telemetry.MetricJobs, n, keysOf(samples(fams[telemetry.MetricJobs])))
		}
		if got := counter(telemetry.MetricDeadLetters, "reason=INVALID_JOB"); got != 1 {
			t.Errorf("%s{reason=INVALID_JOB} = %v, want 1", telemetry.MetricDeadLetters, got)
		}
		if got := counter(telemetry.MetricWorkerRestarts, "reason=memory"); got != 1 {
			t.Errorf("%s{reason=memory} = %v, want 1 (the memory job's worker)", telemetry.MetricWorkerRestarts, got)
		}
		if g := fams[telemetry.MetricConsumerPending].GetMetric()[0].GetGauge().GetValue(); g != 0 {
			t.Errorf("%s = %v, want 0 (every job was delivered)", telemetry.MetricConsumerPending, g)
		}
		sandbox := samples(fams[telemetry.MetricSandboxDuration])
		for labels, want := range map[string]uint64{"code=": 2, "code=SCRIPT_ERROR": 1, "code=SCRIPT_MEMORY_LIMIT": 1} {
			if h := sandbox[labels]; h == nil || h.GetHistogram().GetSampleCount() != want {
				t.Errorf("%s{%s} count = %v, want %d", telemetry.MetricSandboxDuration, labels, h.GetHistogram().GetSampleCount(), want)
			}
		}
		if h := sandbox["code=SCRIPT_MEMORY_LIMIT"]; h != nil && h.GetHistogram().GetSampleSum() <= 0 {
			t.Errorf("%s{code=SCRIPT_MEMORY_LIMIT} sums to %v seconds", telemetry.MetricSandboxDuration, h.GetHistogram().GetSampleSum())
		}
		// Five results were stored: four runs and the bad job's failed result.
		lat := fams[telemetry.MetricJobLatency].GetMetric()[0].GetHistogram()
		if lat.GetSampleCount() != 5 || lat.GetSampleSum() <= 0 {
			t.Errorf("%s count %d sum %v, want 5 results with a positive latency", telemetry.MetricJobLatency, lat.GetSampleCount(), lat.GetSampleSum())
		}
		if p.stderr.String() == "" {
			t.Error("the executor logged nothing")
		}
	})
}

func keysOf(m map[string]*dto.Metric) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
