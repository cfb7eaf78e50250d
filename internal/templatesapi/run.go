package templatesapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/flowscript/flowscript/internal/buildinfo"
	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
)

// RunDeps are what Run needs beyond the configuration; Main builds them.
type RunDeps struct {
	Logger *slog.Logger
	// Runner runs test scripts: the sandbox worker pool in production.
	Runner sandbox.Runner
	// Checker compiles and inspects sources at save and before a test run.
	// Default: Runner, when it is also a guardrails.Checker (the worker
	// pool is). Never a checker that parses in this process in production:
	// see guardrails.Inspect.
	Checker guardrails.Checker
	// Listener, when set, is served instead of listening on cfg.Addr
	// (tests pass one on a random port).
	Listener net.Listener
}

// Startup and shutdown bounds.
const (
	// storeStartWait is how long Run keeps retrying an unreachable
	// PostgreSQL at start (a database that starts after the service).
	storeStartWait = time.Minute
	// shutdownGrace is added to the sandbox timeout: in-flight requests,
	// test runs included, get that long to finish after SIGTERM.
	shutdownGrace = 5 * time.Second
)

// Run opens the store, serves the API until ctx ends, then shuts down
// gracefully: no new connections, in-flight requests finish within the
// sandbox timeout plus a grace period, and the store is closed.
func Run(ctx context.Context, cfg Config, deps RunDeps) error {
	log := deps.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if deps.Runner == nil {
		return errors.New("running the templates API: a sandbox runner is required")
	}
	checker := deps.Checker
	if checker == nil {
		c, ok := deps.Runner.(guardrails.Checker)
		if !ok {
			return errors.New("running the templates API: a source checker is required (the sandbox worker pool is one)")
		}
		checker = c
	}
	// The store opens before the service listens, as a client expects of a
	// service that answers. A PostgreSQL that is not reachable yet (one
	// that starts after the service) is retried for a minute, and the
	// service listens meanwhile: /healthz answers, so a liveness probe does
	// not kill a service that waits for its database; /readyz answers 503,
	// and any other request waits for the store (up to openingWait, then
	// 503).
	store, kind, err := openStore(ctx, cfg, log, false)
	waiting := errors.Is(err, templates.ErrUnavailable)
	if err != nil && !waiting {
		return err
	}
	openErr := err // err is reused below
	ln := deps.Listener
	if ln == nil {
		if ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Addr); err != nil {
			if store != nil {
				_ = store.Close()
			}
			return fmt.Errorf("listening on %s (TEMPLATES_ADDR): %w", cfg.Addr, err)
		}
	}
	var handler atomic.Pointer[http.Handler]
	opened := make(chan struct{})
	var openingAuth *Authenticator // checks credentials while the store opens
	if waiting {
		openingAuth = NewAuthenticator(cfg, nil, log)
		defer openingAuth.Close()
	}
	opening := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		whileOpening(w, r, openingAuth, opened, &handler)
	}))
	handler.Store(&opening)
	httpSrv, ln := newHTTPServer(cfg, log, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*handler.Load()).ServeHTTP(w, r)
	}))
	// serveAPI makes the API answer on httpSrv, once the store is open.
	serveAPI := func() error {
		srv, err := NewServer(cfg, store, deps.Runner, checker, log)
		if err != nil {
			_ = store.Close()
			return err
		}
		srv.serveOn(httpSrv)
		ready := http.Handler(srv)
		handler.Store(&ready)
		close(opened)
		return nil
	}
	if !waiting { // serve the API from the first request
		if err := serveAPI(); err != nil {
			return err
		}
	}
	// Both lines are written before the first request can be answered, so
	// whoever sees the service answer finds them in its log.
	log.Info("templates API listening", "version", buildinfo.Version(), "addr", ln.Addr().String(), "base_path", cfg.BasePath,
		"sandbox_max_parallel", cfg.Sandbox.MaxParallel)
	if waiting {
		log.Warn("PostgreSQL is not reachable yet; listening meanwhile (/readyz answers 503) and retrying", "error", openErr)
	}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()

	if waiting {
		if store, kind, err = openStore(ctx, cfg, log, true); err == nil {
			err = serveAPI()
		}
		if err != nil {
			_ = httpSrv.Close()
			if err := <-served; !errors.Is(err, http.ErrServerClosed) {
				log.Warn("serving the templates API", "error", err)
			}
			if ctx.Err() != nil {
				log.Info("stopped before the template store was open")
				return nil
			}
			return err
		}
	}
	log.Info("templates API ready", "store", kind)
	defer func() {
		if err := store.Close(); err != nil {
			log.Warn("closing the template store", "error", err)
		}
	}()

	select {
	case err := <-served:
		return fmt.Errorf("serving the templates API: %w", err)
	case <-ctx.Done():
	}
	grace := cfg.Sandbox.Timeout + shutdownGrace
	log.Info("shutting down the templates API", "grace", grace.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	shutdownErr := httpSrv.Shutdown(shutdownCtx)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving the templates API: %w", err)
	}
	if shutdownErr != nil {
		return fmt.Errorf("shutting down the templates API within %s: %w", grace, shutdownErr)
	}
	log.Info("templates API stopped")
	return nil
}

// OpenStore opens PostgreSQL when cfg.DatabaseURL is set, retrying an
// unreachable database for up to a minute, or else the embedded store in
// cfg.DataDir. It also returns which one ("postgres" or "embedded").
func OpenStore(ctx context.Context, cfg Config, log *slog.Logger) (templates.Store, string, error) {
	return openStore(ctx, cfg, log, true)
}

// openStore is OpenStore; without retry an unreachable PostgreSQL is an
// error that wraps templates.ErrUnavailable at once.
func openStore(ctx context.Context, cfg Config, log *slog.Logger, retry bool) (templates.Store, string, error) {
	opts := templates.Options{MaxSourceBytes: cfg.Sandbox.MaxSourceBytes}
	if cfg.DatabaseURL == "" {
		s, err := templates.OpenEmbedded(cfg.DataDir, opts)
		return s, "embedded", err
	}
	var b backoff.BackOff = &backoff.StopBackOff{}
	if retry {
		b = backoff.NewExponentialBackOff(backoff.WithMaxElapsedTime(storeStartWait), backoff.WithMaxInterval(5*time.Second))
	}
	s, err := backoff.RetryNotifyWithData(func() (*templates.Postgres, error) {
		attemptCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		s, err := templates.OpenPostgres(attemptCtx, cfg.DatabaseURL, opts)
		if err != nil && !errors.Is(err, templates.ErrUnavailable) {
			return nil, backoff.Permanent(err)
		}
		return s, err
	}, backoff.WithContext(b, ctx), func(err error, next time.Duration) {
		log.Warn("PostgreSQL is not reachable yet; retrying", "error", err, "retry_in", next.String())
	})
	if err != nil {
		return nil, "", fmt.Errorf("opening the PostgreSQL store (DATABASE_URL): %w", err)
	}
	if problem := s.NameIndexProblem(); problem != nil {
		log.Warn("the template list's name filter has no index and reads every template; "+
			"to index it, create the extension as a privileged role (CREATE EXTENSION pg_trgm;) and restart",
			"reason", problem)
	}
	return s, "postgres", nil
}

// openingWait is how long a request that comes while the store opens
// waits for it.
const openingWait = 10 * time.Second

// whileOpening answers while the store opens: alive (/healthz), not ready
// (/readyz); a request without valid credentials is answered 401 at once,
// as the API would (auth, when not nil); any other request waits until
// opened closes, then goes to the handler the API serves with, or is
// answered 503 past openingWait.
func whileOpening(w http.ResponseWriter, r *http.Request, auth *Authenticator, opened <-chan struct{}, handler *atomic.Pointer[http.Handler]) {
	switch r.URL.Path {
	case "/healthz":
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	case "/readyz":
	default:
		if auth != nil {
			if _, err := auth.Authenticate(r); err != nil {
				writeError(w, unauthenticated(err))
				return
			}
		}
		t := time.NewTimer(openingWait)
		defer t.Stop()
		select {
		case <-opened:
			(*handler.Load()).ServeHTTP(w, r)
			return
		case <-t.C:
		case <-r.Context().Done():
		}
	}
	writeError(w, newError(http.StatusServiceUnavailable, CodeStoreUnavailable,
		"the template store is not open yet: the service is starting").with("Retry-After", "2"))
}
