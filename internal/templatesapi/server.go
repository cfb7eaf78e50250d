package templatesapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/templates"
)

// Server is the templates API as an http.Handler.
type Server struct {
	cfg     Config
	prefix  string
	store   templates.Store
	runner  sandbox.Runner
	checker guardrails.Checker
	auth    *Authenticator
	log     *slog.Logger
	slots   chan struct{} // test runs in flight, at most Sandbox.MaxParallel
	openapi []byte
	handler http.Handler
}

// NewServer wires the handlers. cfg must be valid (ConfigFromEnv, or
// WithDefaults then Validate); runner runs the test runs and must allow at
// least cfg.Sandbox.MaxParallel scripts at once; checker compiles and
// inspects sources at save and before a test run (the worker pool, which is
// both, in production: this process never parses an author's source).
func NewServer(cfg Config, store templates.Store, runner sandbox.Runner, checker guardrails.Checker, logger *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating the templates API configuration: %w", err)
	}
	if store == nil || runner == nil || checker == nil {
		return nil, errors.New("creating the templates API: a store, a sandbox runner and a source checker are required")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:    cfg,
		prefix: cfg.prefix(),
		store:  store,
		runner: runner,
		auth:   NewAuthenticator(cfg, nil),
		log:    logger,
		slots:  make(chan struct{}, cfg.Sandbox.MaxParallel),
	}
	s.checker = checker
	doc, err := openAPIDocument(cfg.BasePath)
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	handler, routes := s.mux()
	s.handler = s.withTracing(routes, s.withRequestLog(s.withRecover(handler)))
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// route is one registered method and path.
type route struct {
	method string
	path   string
	// public routes answer without credentials: only the probes.
	public bool
	handle http.HandlerFunc
}

// routes is the whole API surface. The OpenAPI document must list exactly
// these (TestOpenAPIMatchesRoutes).
func (s *Server) routes() []route {
	p := s.prefix
	return []route{
		{method: http.MethodGet, path: p + "/script-templates", handle: s.listTemplates},
		{method: http.MethodPost, path: p + "/script-templates", handle: s.createTemplate},
		{method: http.MethodGet, path: p + "/script-templates/{id}", handle: s.getTemplate},
		{method: http.MethodPut, path: p + "/script-templates/{id}", handle: s.updateTemplate},
		{method: http.MethodDelete, path: p + "/script-templates/{id}", handle: s.deleteTemplate},
		{method: http.MethodPost, path: p + "/scripts/test", handle: s.testScript},
		{method: http.MethodGet, path: p + "/openapi.json", handle: s.serveOpenAPI},
		{method: http.MethodGet, path: "/healthz", public: true, handle: s.healthz},
		{method: http.MethodGet, path: "/readyz", public: true, handle: s.readyz},
	}
}

// mux registers the routes behind authentication, then, for every path, a
// JSON 405 for the other methods and, everywhere else (unclean paths
// included), a JSON 404 — both behind authentication too, so an anonymous
// caller learns nothing.
// It also returns the ServeMux, whose patterns name the routes' spans.
func (s *Server) mux() (http.Handler, *http.ServeMux) {
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	for _, rt := range s.routes() {
		var h http.Handler = rt.handle
		if !rt.public {
			h = s.requireAuth(h)
		}
		mux.Handle(rt.method+" "+rt.path, h)
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	for path, methods := range allowed {
		sort.Strings(methods)
		mux.Handle(path, s.requireAuth(methodNotAllowed(methods)))
	}
	notFound := s.requireAuth(http.HandlerFunc(s.notFound))
	mux.Handle("/", notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != cleanPath(r.URL.Path) {
			// ServeMux would answer with an HTML redirect; this API speaks
			// JSON only, and only to authenticated callers.
			notFound.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}), mux
}

// withTracing gives every request but the probes a server span named
// after its route ("GET /api/script-templates/{id}"), a child of the
// caller's traceparent; the handlers' store calls are its children. Probes
// are polled every few seconds and would only bury the API's traces.
func (s *Server) withTracing(routes *http.ServeMux, next http.Handler) http.Handler {
	traced := telemetry.HTTPServer(routes, next)
	probes := map[string]bool{}
	for _, rt := range s.routes() {
		if rt.public {
			probes[rt.path] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probes[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		traced.ServeHTTP(w, r)
	})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, newError(http.StatusNotFound, CodeNotFound,
		fmt.Sprintf("no route %s %s: the routes are under %s (see %s/openapi.json)", r.Method, r.URL.Path, s.cfg.BasePath, s.prefix)))
}

func methodNotAllowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newError(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
			fmt.Sprintf("%s is not allowed on %s: use %s", r.Method, r.URL.Path, allow)).with("Allow", allow))
	})
}

// requireAuth answers 401 unless the request carries valid credentials.
func (s *Server) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.auth.Authenticate(r)
		if err != nil {
			writeError(w, newError(http.StatusUnauthorized, CodeUnauthenticated, err.Error()).
				with("WWW-Authenticate", `Bearer realm="flowscript-templates"`))
			return
		}
		if info := infoFrom(r.Context()); info != nil {
			info.principal = p
		}
		next.ServeHTTP(w, r)
	})
}
