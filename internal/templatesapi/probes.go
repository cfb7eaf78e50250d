package templatesapi

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds the readiness probe's store ping.
const readyTimeout = 2 * time.Second

// healthz answers 200 while the process serves HTTP: a liveness probe.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the store answers, 503 otherwise. It is public
// (orchestrator probes carry no credentials) and says nothing else.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readiness: store unavailable", "error", err)
		writeError(w, newError(http.StatusServiceUnavailable, CodeStoreUnavailable,
			"the template store is unavailable").with("Retry-After", "2"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
