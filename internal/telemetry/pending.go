package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// PendingFunc reads the consumer's pending job count, e.g. from JetStream
// consumer info's NumPending.
type PendingFunc func(ctx context.Context) (int64, error)

// Pending read defaults.
const (
	// DefaultPendingMaxAge is how long one read of the pending count
	// answers scrapes.
	DefaultPendingMaxAge = 5 * time.Second
	// pendingReadTimeout bounds one read: a scrape carries no deadline.
	pendingReadTimeout = 2 * time.Second
)

// ObservePending makes MetricConsumerPending report what read returns.
// A read answers every scrape for maxAge (DefaultPendingMaxAge when 0 or
// less), so however often Prometheus or several scrapers ask, the NATS
// server sees at most one consumer info request per maxAge. A failed read
// is also kept for maxAge: the metric is then absent from the scrape and
// the error goes to OpenTelemetry's error handler (Setup's logger).
// Unregister the returned registration when the consumer stops.
func (m *Metrics) ObservePending(read PendingFunc, maxAge time.Duration) (metric.Registration, error) {
	if m == nil {
		return noRegistration{}, nil
	}
	if read == nil {
		return nil, errors.New("observing consumer pending: the read function is nil")
	}
	if maxAge <= 0 {
		maxAge = DefaultPendingMaxAge
	}
	c := &pendingCache{read: read, maxAge: maxAge, now: time.Now}
	reg, err := m.meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		n, err := c.get(ctx)
		if err != nil {
			return err
		}
		o.ObserveInt64(m.pending, n)
		return nil
	}, m.pending)
	if err != nil {
		return nil, fmt.Errorf("observing consumer pending: %w", err)
	}
	return reg, nil
}

type noRegistration struct{ metric.Registration }

func (noRegistration) Unregister() error { return nil }

// pendingCache keeps the last read for maxAge. Concurrent scrapes wait for
// the one read in progress instead of starting their own.
type pendingCache struct {
	read   PendingFunc
	maxAge time.Duration
	now    func() time.Time

	mu    sync.Mutex
	at    time.Time // zero: never read
	value int64
	err   error
}

func (c *pendingCache) get(ctx context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && c.now().Sub(c.at) < c.maxAge {
		return c.value, c.err
	}
	readCtx, cancel := context.WithTimeout(ctx, pendingReadTimeout)
	defer cancel()
	n, err := c.read(readCtx)
	c.at = c.now()
	c.value, c.err = n, nil
	if err != nil {
		c.err = fmt.Errorf("reading consumer pending for %s: %w", MetricConsumerPending, err)
	}
	return c.value, c.err
}
