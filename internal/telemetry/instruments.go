package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// meterName is the instrumentation scope of FlowScript's metrics.
const meterName = "github.com/flowscript/flowscript/internal/telemetry"

// Bucket bounds in seconds. Scripts are limited to 5 s by default and to
// 10 min at most; a job's latency adds queueing and retries on top.
var (
	sandboxBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600}
	latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}
)

// Metrics records the executor's metrics (names.go). A nil *Metrics
// records nothing, so code can run without telemetry.
type Metrics struct {
	meter       metric.Meter
	jobs        metric.Int64Counter
	sandbox     metric.Float64Histogram
	latency     metric.Float64Histogram
	inFlight    metric.Int64UpDownCounter
	restarts    metric.Int64Counter
	deadLetters metric.Int64Counter
	pullErrors  metric.Int64Counter
	leftovers   metric.Int64Counter
	failures    metric.Int64Counter
	pending     metric.Int64ObservableGauge
	// attrs holds the attribute sets of the per-job instruments, built once
	// per instrument, outcome and code (see attrSet).
	attrsMu sync.RWMutex
	attrs   map[attrKey]metric.MeasurementOption
}

// attrKey names one attribute set of attrs: the jobs counter's (outcome
// and code) or the sandbox histogram's (code alone, outcome empty).
type attrKey struct {
	jobs          bool
	outcome, code string
}

// maxAttrSets bounds attrs: outcomes and codes are a small fixed vocabulary,
// and a set past the bound is built per call, as before.
const maxAttrSets = 256

// attrSet returns the measurement option of key's attributes, built once
// per key: a set built per job was about 600 bytes of garbage in every
// job's path.
func (m *Metrics) attrSet(key attrKey) metric.MeasurementOption {
	m.attrsMu.RLock()
	o, ok := m.attrs[key]
	m.attrsMu.RUnlock()
	if ok {
		return o
	}
	if key.jobs {
		o = metric.WithAttributeSet(attribute.NewSet(
			attribute.String(LabelOutcome, key.outcome), attribute.String(LabelCode, key.code)))
	} else {
		o = metric.WithAttributeSet(attribute.NewSet(attribute.String(LabelCode, key.code)))
	}
	m.attrsMu.Lock()
	defer m.attrsMu.Unlock()
	if m.attrs == nil {
		m.attrs = make(map[attrKey]metric.MeasurementOption)
	}
	if len(m.attrs) < maxAttrSets {
		m.attrs[key] = o
	}
	return o
}

// NewMetrics creates the instruments on mp (Provider.MeterProvider; nil
// means a no-op provider).
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := &Metrics{meter: mp.Meter(meterName)}
	var err error
	if m.jobs, err = m.meter.Int64Counter(MetricJobs,
		metric.WithDescription("Finished jobs by outcome and error code."),
		metric.WithUnit("{job}")); err != nil {
		return nil, instrumentError(MetricJobs, err)
	}
	if m.sandbox, err = m.meter.Float64Histogram(MetricSandboxDuration,
		metric.WithDescription("How long scripts ran in the sandbox, by error code (\"\" on success)."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(sandboxBuckets...)); err != nil {
		return nil, instrumentError(MetricSandboxDuration, err)
	}
	if m.latency, err = m.meter.Float64Histogram(MetricJobLatency,
		metric.WithDescription("From the job's publish to its result stored."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(latencyBuckets...)); err != nil {
		return nil, instrumentError(MetricJobLatency, err)
	}
	if m.inFlight, err = m.meter.Int64UpDownCounter(MetricInFlight,
		metric.WithDescription("Jobs this replica is running now."),
		metric.WithUnit("{job}")); err != nil {
		return nil, instrumentError(MetricInFlight, err)
	}
	if m.restarts, err = m.meter.Int64Counter(MetricWorkerRestarts,
		metric.WithDescription("Sandbox worker processes replaced, by reason."),
		metric.WithUnit("{restart}")); err != nil {
		return nil, instrumentError(MetricWorkerRestarts, err)
	}
	if m.deadLetters, err = m.meter.Int64Counter(MetricDeadLetters,
		metric.WithDescription("Jobs dead-lettered, by reason."),
		metric.WithUnit("{job}")); err != nil {
		return nil, instrumentError(MetricDeadLetters, err)
	}
	if m.pullErrors, err = m.meter.Int64Counter(MetricPullErrors,
		metric.WithDescription("Pulls that failed (not the empty pulls of an idle queue), by reason."),
		metric.WithUnit("{pull}")); err != nil {
		return nil, instrumentError(MetricPullErrors, err)
	}
	if m.leftovers, err = m.meter.Int64Counter(MetricLeftoversRemoved,
		metric.WithDescription("Answered jobs removed from JOBS below the consumer's ack floor."),
		metric.WithUnit("{job}")); err != nil {
		return nil, instrumentError(MetricLeftoversRemoved, err)
	}
	if m.failures, err = m.meter.Int64Counter(MetricFailureRecords,
		metric.WithDescription("Failure records of jobs whose script failed, by outcome (stored, failed, too_large)."),
		metric.WithUnit("{record}")); err != nil {
		return nil, instrumentError(MetricFailureRecords, err)
	}
	for _, outcome := range FailureRecordOutcomes {
		m.failures.Add(context.Background(), 0, metric.WithAttributes(attribute.String(LabelOutcome, outcome)))
	}
	// The counters start at zero with their known labels, so a dashboard
	// shows 0, not "no data", until something fails, and an alert on their
	// increase counts the first failure (a series born at 1 has none).
	for _, c := range []struct {
		counter metric.Int64Counter
		reasons []string
	}{{m.pullErrors, PullErrorReasons}, {m.deadLetters, DeadLetterReasons}, {m.restarts, WorkerRestartReasons}} {
		for _, reason := range c.reasons {
			c.counter.Add(context.Background(), 0, metric.WithAttributes(attribute.String(LabelReason, reason)))
		}
	}
	m.leftovers.Add(context.Background(), 0)
	if m.pending, err = m.meter.Int64ObservableGauge(MetricConsumerPending,
		metric.WithDescription("Jobs the consumer has not delivered yet: the lag autoscaling reads."),
		metric.WithUnit("{job}")); err != nil {
		return nil, instrumentError(MetricConsumerPending, err)
	}
	return m, nil
}

func instrumentError(name string, err error) error {
	return fmt.Errorf("creating metric %s: %w", name, err)
}

// JobFinished counts one finished job. outcome is one of the Outcome
// constants; code is the error code ("" on success).
func (m *Metrics) JobFinished(ctx context.Context, outcome, code string) {
	if m == nil {
		return
	}
	m.jobs.Add(ctx, 1, m.attrSet(attrKey{jobs: true, outcome: outcome, code: code}))
}

// SandboxDuration records how long one script ran; code is its error code
// ("" on success).
func (m *Metrics) SandboxDuration(ctx context.Context, code string, d time.Duration) {
	if m == nil {
		return
	}
	m.sandbox.Record(ctx, d.Seconds(), m.attrSet(attrKey{code: code}))
}

// JobLatency records publish → result stored for one job.
func (m *Metrics) JobLatency(ctx context.Context, d time.Duration) {
	if m == nil {
		return
	}
	m.latency.Record(ctx, d.Seconds())
}

// InFlight adds delta (+1 when a job starts, -1 when it ends) to the jobs
// running now.
func (m *Metrics) InFlight(ctx context.Context, delta int64) {
	if m == nil {
		return
	}
	m.inFlight.Add(ctx, delta)
}

// WorkerRestarted counts one sandbox worker process replaced.
func (m *Metrics) WorkerRestarted(ctx context.Context, reason string) {
	if m == nil {
		return
	}
	m.restarts.Add(ctx, 1, metric.WithAttributes(attribute.String(LabelReason, reason)))
}

// DeadLettered counts one job sent to the DLQ.
func (m *Metrics) DeadLettered(ctx context.Context, reason string) {
	if m == nil {
		return
	}
	m.deadLetters.Add(ctx, 1, metric.WithAttributes(attribute.String(LabelReason, reason)))
}

// PullFailed counts one pull that failed, by reason.
func (m *Metrics) PullFailed(ctx context.Context, reason string) {
	if m == nil {
		return
	}
	m.pullErrors.Add(ctx, 1, metric.WithAttributes(attribute.String(LabelReason, reason)))
}

// LeftoversRemoved counts n answered jobs removed from JOBS below the
// consumer's ack floor.
func (m *Metrics) LeftoversRemoved(ctx context.Context, n int64) {
	if m == nil {
		return
	}
	m.leftovers.Add(ctx, n)
}

// FailureRecord counts one failure record by outcome (one of
// FailureRecordOutcomes).
func (m *Metrics) FailureRecord(ctx context.Context, outcome string) {
	if m == nil {
		return
	}
	m.failures.Add(ctx, 1, metric.WithAttributes(attribute.String(LabelOutcome, outcome)))
}
