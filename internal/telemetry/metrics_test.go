package telemetry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape GETs /metrics from h and parses the text format.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("scraping: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape answered %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	return families
}

// sample finds the metric of family name whose labels are exactly labels.
func sample(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	fam, ok := families[name]
	if !ok {
		t.Fatalf("metric %s is not in the scrape", name)
	}
	for _, m := range fam.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if len(got) == len(labels) {
			match := true
			for k, v := range labels {
				if gv, ok := got[k]; !ok || gv != v {
					match = false
				}
			}
			if match {
				return m
			}
		}
	}
	t.Fatalf("metric %s has no sample with labels %v; it has %v", name, labels, fam.GetMetric())
	return nil
}

func TestScrapeShowsEveryMetricUnderItsContractName(t *testing.T) {
	p := setupWith(t, Config{ServiceName: "flowscript-executor", Version: "1.2.3", Getenv: noEnv})
	m, err := NewMetrics(p.MeterProvider())
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	ctx := context.Background()
	m.JobFinished(ctx, OutcomeSucceeded, "")
	m.JobFinished(ctx, OutcomeFailed, "SCRIPT_ERROR")
	m.JobFinished(ctx, OutcomeFailed, "SCRIPT_ERROR")
	m.JobFinished(ctx, OutcomeDeadLettered, "INVALID_SCRIPT_INPUT")
	m.SandboxDuration(ctx, "", 20*time.Millisecond)
	m.SandboxDuration(ctx, "", 30*time.Millisecond)
	m.SandboxDuration(ctx, "SCRIPT_TIMEOUT", 5*time.Second)
	m.JobLatency(ctx, 150*time.Millisecond)
	m.InFlight(ctx, 1)
	m.InFlight(ctx, 1)
	m.InFlight(ctx, -1)
	m.WorkerRestarted(ctx, "memory_limit")
	m.DeadLettered(ctx, "invalid_job")
	m.DeadLettered(ctx, "invalid_job")
	reg, err := m.ObservePending(func(context.Context) (int64, error) { return 42, nil }, time.Minute)
	if err != nil {
		t.Fatalf("ObservePending: %v", err)
	}
	defer func() { _ = reg.Unregister() }()

	families := scrape(t, p.Handler())

	// Exactly the contract's names: no _total_total, no _seconds_seconds.
	var ours []string
	for name := range families {
		if strings.HasPrefix(name, "flowscript_") {
			ours = append(ours, name)
		}
	}
	want := slices.Clone(MetricNames)
	slices.Sort(ours)
	slices.Sort(want)
	if !slices.Equal(ours, want) {
		t.Fatalf("the scrape has flowscript metrics %q, want exactly %q", ours, want)
	}

	types := map[string]dto.MetricType{
		MetricJobs: dto.MetricType_COUNTER, MetricSandboxDuration: dto.MetricType_HISTOGRAM,
		MetricJobLatency: dto.MetricType_HISTOGRAM, MetricInFlight: dto.MetricType_GAUGE,
		MetricWorkerRestarts: dto.MetricType_COUNTER, MetricConsumerPending: dto.MetricType_GAUGE,
		MetricDeadLetters: dto.MetricType_COUNTER,
	}
	for name, typ := range types {
		if got := families[name].GetType(); got != typ {
			t.Errorf("%s has type %s, want %s", name, got, typ)
		}
	}

	counters := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{MetricJobs, map[string]string{LabelOutcome: OutcomeSucceeded, LabelCode: ""}, 1},
		{MetricJobs, map[string]string{LabelOutcome: OutcomeFailed, LabelCode: "SCRIPT_ERROR"}, 2},
		{MetricJobs, map[string]string{LabelOutcome: OutcomeDeadLettered, LabelCode: "INVALID_SCRIPT_INPUT"}, 1},
		{MetricWorkerRestarts, map[string]string{LabelReason: "memory_limit"}, 1},
		{MetricDeadLetters, map[string]string{LabelReason: "invalid_job"}, 2},
		// Known reasons start at 0, so an alert on increase() sees the
		// first one.
		{MetricDeadLetters, map[string]string{LabelReason: "SANDBOX_CRASH"}, 0},
		{MetricWorkerRestarts, map[string]string{LabelReason: "crash"}, 0},
		{MetricPullErrors, map[string]string{LabelReason: "consumer_missing"}, 0},
	}
	for _, c := range counters {
		if got := sample(t, families, c.name, c.labels).GetCounter().GetValue(); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := sample(t, families, MetricInFlight, nil).GetGauge().GetValue(); got != 1 {
		t.Errorf("%s = %v, want 1", MetricInFlight, got)
	}
	if got := sample(t, families, MetricConsumerPending, nil).GetGauge().GetValue(); got != 42 {
		t.Errorf("%s = %v, want 42", MetricConsumerPending, got)
	}

	ok := sample(t, families, MetricSandboxDuration, map[string]string{LabelCode: ""}).GetHistogram()
	if ok.GetSampleCount() != 2 || !near(ok.GetSampleSum(), 0.05) {
		t.Errorf("%s{code=\"\"} count %d sum %v, want 2 and 0.05 s", MetricSandboxDuration, ok.GetSampleCount(), ok.GetSampleSum())
	}
	if got := bucketCount(ok, 0.025); got != 1 {
		t.Errorf("%s{code=\"\"} le=0.025 has %d, want 1 (the 20 ms run)", MetricSandboxDuration, got)
	}
	timeout := sample(t, families, MetricSandboxDuration, map[string]string{LabelCode: "SCRIPT_TIMEOUT"}).GetHistogram()
	if timeout.GetSampleCount() != 1 || !near(timeout.GetSampleSum(), 5) {
		t.Errorf("%s{code=SCRIPT_TIMEOUT} count %d sum %v, want 1 and 5 s", MetricSandboxDuration, timeout.GetSampleCount(), timeout.GetSampleSum())
	}
	lat := sample(t, families, MetricJobLatency, nil).GetHistogram()
	if lat.GetSampleCount() != 1 || !near(lat.GetSampleSum(), 0.15) || bucketCount(lat, 0.1) != 0 || bucketCount(lat, 0.25) != 1 {
		t.Errorf("%s count %d sum %v: want one 0.15 s sample between the 0.1 and 0.25 buckets", MetricJobLatency, lat.GetSampleCount(), lat.GetSampleSum())
	}

	// The resource reaches Prometheus as target_info.
	info := families["target_info"]
	if info == nil {
		t.Fatal("the scrape has no target_info")
	}
	labels := map[string]string{}
	for _, lp := range info.GetMetric()[0].GetLabel() {
		labels[lp.GetName()] = lp.GetValue()
	}
	if labels["service_name"] != "flowscript-executor" || labels["service_version"] != "1.2.3" {
		t.Errorf("target_info labels %v: want service_name flowscript-executor, service_version 1.2.3", labels)
	}
}

func TestPendingIsReadOncePerMaxAge(t *testing.T) {
	p := setupWith(t, Config{ServiceName: "flowscript-executor", Getenv: noEnv})
	m, err := NewMetrics(p.MeterProvider())
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	var reads atomic.Int64
	reg, err := m.ObservePending(func(ctx context.Context) (int64, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the pending read has no deadline")
		}
		return 7 + reads.Add(1), nil
	}, time.Hour)
	if err != nil {
		t.Fatalf("ObservePending: %v", err)
	}
	for range 5 {
		if got := sample(t, scrape(t, p.Handler()), MetricConsumerPending, nil).GetGauge().GetValue(); got != 8 {
			t.Fatalf("%s = %v, want 8 (the first read, cached)", MetricConsumerPending, got)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("5 scrapes read the consumer %d times, want 1", n)
	}
	if err := reg.Unregister(); err != nil {
		t.Fatalf("Unregister: %v", err)
	}
	if _, ok := scrape(t, p.Handler())[MetricConsumerPending]; ok {
		t.Errorf("%s is still reported after Unregister", MetricConsumerPending)
	}
}

func TestPendingCache(t *testing.T) {
	now := time.Unix(1000, 0)
	var reads int
	results := []struct {
		n   int64
		err error
	}{{10, nil}, {0, errors.New("nats: timeout")}, {12, nil}}
	c := &pendingCache{
		maxAge: 5 * time.Second,
		now:    func() time.Time { return now },
		read: func(context.Context) (int64, error) {
			r := results[reads]
			reads++
			return r.n, r.err
		},
	}
	steps := []struct {
		advance   time.Duration
		want      int64
		wantErr   bool
		wantReads int
	}{
		{0, 10, false, 1},
		{4 * time.Second, 10, false, 1}, // still fresh
		{time.Second, 0, true, 2},       // stale: read again, it fails
		{4 * time.Second, 0, true, 2},   // the failure is cached too
		{time.Second, 12, false, 3},     // stale: read again
		{4999 * time.Millisecond, 12, false, 3},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		got, err := c.get(context.Background())
		if (err != nil) != s.wantErr || (!s.wantErr && got != s.want) || reads != s.wantReads {
			t.Errorf("step %d: got %d, %v after %d reads; want %d, error %v after %d reads", i, got, err, reads, s.want, s.wantErr, s.wantReads)
		}
		if err != nil && !strings.Contains(err.Error(), MetricConsumerPending) {
			t.Errorf("step %d: error %q does not name the metric", i, err)
		}
	}
}

func TestNilMetricsRecordNothing(t *testing.T) {
	var m *Metrics
	ctx := context.Background()
	m.JobFinished(ctx, OutcomeSucceeded, "")
	m.SandboxDuration(ctx, "", time.Second)
	m.JobLatency(ctx, time.Second)
	m.InFlight(ctx, 1)
	m.WorkerRestarted(ctx, "crash")
	m.DeadLettered(ctx, "invalid_job")
	reg, err := m.ObservePending(func(context.Context) (int64, error) { return 1, nil }, 0)
	if err != nil || reg.Unregister() != nil {
		t.Errorf("ObservePending on nil Metrics: %v", err)
	}
}

func TestObservePendingNeedsAReader(t *testing.T) {
	m, err := NewMetrics(nil)
	if err != nil {
		t.Fatalf("NewMetrics(nil): %v", err)
	}
	if _, err := m.ObservePending(nil, 0); err == nil {
		t.Error("ObservePending(nil) succeeded")
	}
}

func bucketCount(h *dto.Histogram, le float64) uint64 {
	for _, b := range h.GetBucket() {
		if near(b.GetUpperBound(), le) {
			return b.GetCumulativeCount()
		}
	}
	return 1 << 63
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
