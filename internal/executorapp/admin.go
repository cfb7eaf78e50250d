package executorapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// readyFunc says whether the executor takes jobs, and why not.
type readyFunc func() (ready bool, reason string)

// readiness is what /readyz reports as the executor starts: a phase that
// is not ready yet ("connecting to NATS", "provisioning ..."), then the
// running executor's own answer.
type readiness struct {
	mu    sync.Mutex
	phase string
	ready readyFunc
}

// set reports a start-up phase: not ready, because of it.
func (r *readiness) set(phase string) {
	r.mu.Lock()
	r.phase, r.ready = phase, nil
	r.mu.Unlock()
}

// follow makes ready the answer from now on.
func (r *readiness) follow(ready readyFunc) {
	r.mu.Lock()
	r.ready = ready
	r.mu.Unlock()
}

func (r *readiness) get() (bool, string) {
	r.mu.Lock()
	phase, ready := r.phase, r.ready
	r.mu.Unlock()
	if ready == nil {
		return false, phase
	}
	return ready()
}

// adminServer serves /healthz (the process is alive), /readyz (it pulls
// jobs over a live connection) and /metrics (Prometheus text, the names of
// telemetry.MetricNames).
type adminServer struct {
	srv *http.Server
	ln  net.Listener
}

func newAdminHandler(metrics http.Handler, ready readyFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintln(w, "ok") // a failed write means the prober has gone
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, reason := ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintln(w, "not ready:", reason) // a failed write means the prober has gone
			return
		}
		_, _ = fmt.Fprintln(w, "ready") // a failed write means the prober has gone
	})
	return mux
}

func startAdmin(ctx context.Context, addr string, metrics http.Handler, ready readyFunc, log *slog.Logger) (*adminServer, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on ADMIN_ADDR %s: %w (choose a free port, e.g. ADMIN_ADDR=:9091)", addr, err)
	}
	a := &adminServer{
		srv: &http.Server{Handler: newAdminHandler(metrics, ready), ReadHeaderTimeout: 5 * time.Second},
		ln:  ln,
	}
	go func() {
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin server stopped", "error", err)
		}
	}()
	log.Info("admin server listening", "addr", ln.Addr().String(), "paths", "/healthz /readyz /metrics")
	return a, nil
}

func (a *adminServer) Addr() string { return a.ln.Addr().String() }

func (a *adminServer) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.srv.Shutdown(ctx)
}
