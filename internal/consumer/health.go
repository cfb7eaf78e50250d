package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// health is what the replica last heard from the broker about the jobs
// stream and its consumer. A pull that times out looks the same whether
// the queue is idle or the connection is half-open (the broker process
// stopped, a network partition), and in a cluster a stream or consumer
// without a leader answers no pull either: so readiness asks the broker
// directly, every HealthInterval, and trusts only an answer of both
// leaders.
type health struct {
	mu      sync.Mutex
	last    time.Time // the last answer
	lastErr error     // the last failure since then
}

func (h *health) ok(now time.Time) {
	h.mu.Lock()
	h.last, h.lastErr = now, nil
	h.mu.Unlock()
}

func (h *health) fail(err error) {
	h.mu.Lock()
	h.lastErr = err
	h.mu.Unlock()
}

// ready reports whether the last answer is younger than maxAge.
func (h *health) ready(maxAge time.Duration) (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if age := time.Since(h.last); age > maxAge {
		why := fmt.Sprintf("the broker has not answered about the jobs stream, its consumer, and the results and dead-letter streams for %s", age.Round(time.Second))
		if h.lastErr != nil {
			why += " (last error: " + h.lastErr.Error() + ")"
		}
		return false, why
	}
	return true, ""
}

// watch asks the broker about the consumer and the jobs stream every
// HealthInterval (their leaders answer: a cluster electing one, or without
// a quorum, does not), and sweeps leftover jobs every
// LeftoverSweepInterval, until ctx ends.
func (e *Executor) watch(ctx context.Context) {
	t := time.NewTicker(e.cfg.HealthInterval)
	defer t.Stop()
	nextSweep := time.Now().Add(e.cfg.HealthInterval)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := e.askBroker(ctx)
		switch {
		case err == nil:
			e.health.ok(time.Now())
		case ctx.Err() == nil:
			e.health.fail(err)
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
				// Deleted under the replica: a pull on nats-server 2.9 then
				// waits without an error, so the pull failures that would
				// provision again never come; and nothing else creates the
				// results or dead-letter stream again.
				e.reprovisionSoon(ctx, "after the consumer or a stream was found missing")
			}
		}
		if err == nil && time.Now().After(nextSweep) {
			nextSweep = time.Now().Add(e.cfg.LeftoverSweepInterval)
			e.sweepLeftovers(ctx)
		}
	}
}

// askBroker asks the leaders of the consumer, of the jobs stream and of
// the streams a job's outcome is written to (results, dead letters) for
// their state, within one HealthInterval. Without the results stream no
// job can finish (every one is run and handed back): the check fails, so a
// replica where it stays missing turns not ready, and watch creates the
// stream again.
func (e *Executor) askBroker(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.HealthInterval)
	defer cancel()
	if _, err := (*e.consumer.Load()).Info(ctx); err != nil {
		return fmt.Errorf("asking about consumer %s: %w", e.cfg.Consumer, err)
	}
	if _, err := (*e.jobs.Load()).Info(ctx); err != nil {
		return fmt.Errorf("asking about stream %s: %w", e.cfg.JobsStream, err)
	}
	for _, name := range []string{e.cfg.ResultsStream, e.cfg.DLQStream} {
		if _, err := e.js.Stream(ctx, name); err != nil {
			return fmt.Errorf("asking about stream %s: %w", name, err)
		}
	}
	return nil
}
