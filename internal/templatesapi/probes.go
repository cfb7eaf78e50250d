package templatesapi

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Readiness bounds. The store is pinged at most once per readyCacheFor,
// however often /readyz is called and by how many callers: the probe is
// public, and a ping per call let one client load the database. A ping
// runs on its own context, so a caller that hangs up cannot turn the
// cached answer into "unavailable".
const (
	readyTimeout  = 2 * time.Second
	readyCacheFor = time.Second
)

// readiness caches the last store ping; one ping at a time.
type readiness struct {
	mu      sync.Mutex
	checked time.Time     // when the cached result's ping ended
	err     error         // the cached result
	flight  chan struct{} // closed when the ping in flight ends; nil when none
}

// healthz answers 200 while the process serves HTTP: a liveness probe.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the store answers, 503 otherwise. It is public
// (orchestrator probes carry no credentials) and says nothing else.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.storeReady(r.Context()); err != nil {
		writeError(w, newError(http.StatusServiceUnavailable, CodeStoreUnavailable,
			"the template store is unavailable").with("Retry-After", "2"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// storeReady returns the cached ping result while it is younger than
// readyCacheFor; otherwise it waits for the ping in flight, or starts one.
func (s *Server) storeReady(ctx context.Context) error {
	rd := &s.ready
	rd.mu.Lock()
	if !rd.checked.IsZero() && time.Since(rd.checked) < readyCacheFor {
		err := rd.err
		rd.mu.Unlock()
		return err
	}
	done := rd.flight
	if done == nil {
		done = make(chan struct{})
		rd.flight = done
		go s.pingStore(context.WithoutCancel(ctx), done)
	}
	rd.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.err
}

func (s *Server) pingStore(ctx context.Context, done chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	err := s.store.Ping(ctx)
	if err != nil {
		s.log.Warn("readiness: store unavailable", "error", err)
	}
	rd := &s.ready
	rd.mu.Lock()
	rd.checked, rd.err, rd.flight = time.Now(), err, nil
	rd.mu.Unlock()
	close(done)
}
