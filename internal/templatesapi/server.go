package templatesapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
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
	slots   chan struct{} // test runs and replays in flight, at most testRunSlots
	bodies  *bodyBudget   // the request bodies handlers may hold at once (body_budget.go)
	answers *answerBudget // the large answers being written at once (answer_budget.go)
	openapi []byte
	probes  map[string]bool // paths of the public probes
	ready   readiness
	refused *logLimiter // the INFO summary of refused credentials
	handler http.Handler
	// policy and api are the host functions test runs may be granted
	// (CAPABILITIES_POLICY_FILE); nil: none.
	policy *capabilities.Policy
	api    *httpapi.Client
}

// NewServer wires the handlers. cfg must be valid (ConfigFromEnv, or
// WithDefaults then Validate); runner runs the test runs and must allow at
// least cfg.Sandbox.MaxParallel scripts at once; checker compiles and
// inspects sources at save and before a test run (the worker pool, which is
// both, in production: this process never parses an author's source).
// Close stops the key set's background fetches (Run does it at shutdown).
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
		cfg:     cfg,
		prefix:  cfg.prefix(),
		store:   store,
		runner:  runner,
		auth:    NewAuthenticator(cfg, nil, logger),
		log:     logger,
		slots:   make(chan struct{}, testRunSlots(cfg.Sandbox.MaxParallel)),
		bodies:  newBodyBudget(cfg.bodyBudgetBytes(), cfg.MaxConns/bodyShareParts),
		answers: newServerAnswerBudget(cfg),
		probes:  map[string]bool{},
		refused: newLogLimiter(refusedLogEvery),
	}
	s.checker = checker
	if cfg.CapabilitiesPolicyFile != "" {
		data, err := os.ReadFile(cfg.CapabilitiesPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("reading CAPABILITIES_POLICY_FILE: %w", err)
		}
		if s.policy, err = capabilities.ParsePolicy(data); err == nil {
			err = s.policy.FitsHostBytes(cfg.Sandbox.MaxHostBytes)
		}
		if err != nil {
			return nil, fmt.Errorf("CAPABILITIES_POLICY_FILE %s: %w", cfg.CapabilitiesPolicyFile, err)
		}
		if s.api, err = httpapi.New(s.policy.Connectors, os.Getenv, os.ReadFile); err != nil {
			return nil, fmt.Errorf("CAPABILITIES_POLICY_FILE %s: connectors: %w", cfg.CapabilitiesPolicyFile, err)
		}
	}
	doc, err := openAPIDocument(cfg.BasePath)
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	for _, rt := range s.routes() {
		if rt.public {
			s.probes[rt.path] = true
		}
	}
	handler, routes := s.mux()
	s.handler = withHeaderLimit(withPathTarget(withUnreadBodyClosing(s.withAuthentication(s.withTracing(routes, s.withRequestLog(s.withRecover(handler)))))))
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close stops the key set's background fetches. The Server still answers,
// with the keys it holds.
func (s *Server) Close() { s.auth.Close() }

// JWKSStats reports the key set's fetches (zero without AUTH_JWKS_URL).
func (s *Server) JWKSStats() JWKSStats { return s.auth.JWKSStats() }

// Connection bounds of the HTTP server. A connection that sends nothing,
// or only part of a header, is closed after connHeaderTimeout; an idle
// keep-alive connection after connIdleTimeout; a whole request, body
// included, must arrive within connReadTimeout plus the sandbox timeout
// (net/http cancels a request's context when the read deadline passes
// while its handler runs, so a test run needs its time on top).
// TEMPLATES_MAX_CONNS caps how many are open.
const (
	connHeaderTimeout = 5 * time.Second
	connReadTimeout   = 30 * time.Second
	connIdleTimeout   = 30 * time.Second
	// maxHeaderBytes bounds a request's line and headers, answered by
	// withHeaderLimit with a JSON 431; net/http refuses past
	// maxHeaderReadBytes (plus its 4 KiB of slack) with its own, which
	// jsonServerError rewrites as JSON,
	// before any handler runs. The margin between them is what every
	// connection may buffer before it is authenticated, on top of the
	// limit: 16 KiB, so TEMPLATES_MAX_CONNS connections hold at most about
	// 52 KiB of headers each.
	maxHeaderBytes     = 32 << 10
	maxHeaderReadBytes = maxHeaderBytes + 16<<10
)

// httpServer returns the http.Server that serves s on ln, and ln wrapped
// in the connection limit: serve the returned listener. Shutting the
// server down also closes s.
func (s *Server) httpServer(ln net.Listener) (*http.Server, net.Listener) {
	hs, limited := newHTTPServer(s.cfg, s.log, ln, s)
	s.serveOn(hs)
	return hs, limited
}

// serveOn readies s to answer on hs: hs's shutdown closes s.
func (s *Server) serveOn(hs *http.Server) {
	hs.RegisterOnShutdown(s.Close)
	s.auth.prefetch()
}

// newHTTPServer is the HTTP server of cfg on ln, answering with h.
func newHTTPServer(cfg Config, log *slog.Logger, ln net.Listener, h http.Handler) (*http.Server, net.Listener) {
	limited := newConnLimiter(ln, cfg.MaxConns, log)
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: connHeaderTimeout,
		ReadTimeout:       connReadTimeout + cfg.Sandbox.Timeout,
		WriteTimeout:      cfg.Sandbox.Timeout + time.Minute,
		IdleTimeout:       connIdleTimeout,
		MaxHeaderBytes:    maxHeaderReadBytes,
		// "OPTIONS *" reaches withPathTarget (400 in JSON, as any target
		// that is not a path), not net/http's empty 200.
		DisableGeneralOptionsHandler: true,
		ConnState:                    limited.connState,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return hs, limited
}

// route is one registered method and path.
type route struct {
	method string
	path   string
	// public routes answer without credentials: only the probes.
	public bool
	// need is the role a credential must have (ignored when public).
	need Role
	// query is the query parameters the route takes: any other, or one
	// given twice, is refused before the handler runs (readQuery).
	query  []string
	handle http.HandlerFunc
}

// routes is the whole API surface. The OpenAPI document must list exactly
// these (TestOpenAPIMatchesRoutes). Reading needs the read role; anything
// that changes a template or runs code needs the write role.
func (s *Server) routes() []route {
	p := s.prefix
	return []route{
		{method: http.MethodGet, path: p + "/script-templates", need: RoleRead, query: []string{"limit", "cursor", "name"}, handle: s.listTemplates},
		{method: http.MethodPost, path: p + "/script-templates", need: RoleWrite, handle: s.createTemplate},
		{method: http.MethodGet, path: p + "/script-templates/{id}", need: RoleRead, handle: s.getTemplate},
		{method: http.MethodPut, path: p + "/script-templates/{id}", need: RoleWrite, handle: s.updateTemplate},
		{method: http.MethodDelete, path: p + "/script-templates/{id}", need: RoleWrite, handle: s.deleteTemplate},
		{method: http.MethodGet, path: p + "/script-templates/{id}/versions", need: RoleRead, query: []string{"limit", "cursor"}, handle: s.listVersions},
		{method: http.MethodGet, path: p + "/script-templates/{id}/versions/{version}", need: RoleRead, handle: s.getVersion},
		{method: http.MethodPost, path: p + "/scripts/test", need: RoleWrite, handle: s.testScript},
		{method: http.MethodPost, path: p + "/failures/{jobId}/replay", need: RoleWrite, handle: s.replayFailure},
		{method: http.MethodGet, path: p + "/openapi.json", need: RoleRead, handle: s.serveOpenAPI},
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
			h = s.requireAuth(rt.need, takesQuery(rt.query, h))
		}
		mux.Handle(rt.method+" "+rt.path, h)
		allowed[rt.path] = append(allowed[rt.path], rt.method)
		if rt.method == http.MethodGet { // ServeMux serves HEAD on every GET pattern
			allowed[rt.path] = append(allowed[rt.path], http.MethodHead)
		}
	}
	for path, methods := range allowed {
		sort.Strings(methods)
		mux.Handle(path, s.requireAuth(RoleRead, methodNotAllowed(methods)))
	}
	notFound := s.requireAuth(RoleRead, http.HandlerFunc(s.notFound))
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
// after its route ("GET /api/script-templates/{id}"); the handlers' store
// calls are its children. The span continues the caller's traceparent only
// when the caller authenticated: a refused request's span is a new root
// (the sampler decides), so anonymous callers cannot force traces or graft
// spans onto a trace of their choosing. Probes are polled every few
// seconds and would only bury the API's traces.
func (s *Server) withTracing(routes *http.ServeMux, next http.Handler) http.Handler {
	traced := telemetry.HTTPServer(routes, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.probes[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		if res := authFrom(r.Context()); res == nil || res.err != nil {
			r = withoutTraceHeaders(r)
		}
		traced.ServeHTTP(w, r)
	})
}

// withoutTraceHeaders is r without the W3C propagation headers.
func withoutTraceHeaders(r *http.Request) *http.Request {
	if r.Header.Get("Traceparent") == "" && r.Header.Get("Tracestate") == "" && r.Header.Get("Baggage") == "" {
		return r
	}
	r2 := r.WithContext(r.Context())
	r2.Header = r.Header.Clone()
	for _, h := range []string{"Traceparent", "Tracestate", "Baggage"} {
		r2.Header.Del(h)
	}
	return r2
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	hint := fmt.Sprintf("the routes are under %s (see %s/openapi.json)", s.cfg.BasePath, s.prefix)
	switch {
	case len(path) > 1 && strings.HasSuffix(path, "/"):
		hint = fmt.Sprintf("drop the trailing slash (the routes are in %s/openapi.json)", s.prefix)
	case strings.Contains(strings.ToLower(r.URL.RawPath), "%2f"):
		// The decoded path may name a route: the router matched the path
		// as sent, where an encoded slash is part of a segment.
		hint = "a path segment cannot hold an encoded slash (%2F): write / itself"
	case strings.HasPrefix(path, s.prefix+"/"):
		hint = fmt.Sprintf("the routes are in %s/openapi.json", s.prefix)
	}
	writeError(w, newError(http.StatusNotFound, CodeNotFound, fmt.Sprintf("no route %s %s: %s", r.Method, r.URL.EscapedPath(), hint)))
}

func methodNotAllowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newError(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
			fmt.Sprintf("%s is not allowed on %s: use %s", r.Method, r.URL.Path, allow)).with("Allow", allow))
	})
}

// requireAuth answers 401 unless the request carries valid credentials,
// and 403 unless they grant need.
func (s *Server) requireAuth(need Role, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := authFrom(r.Context())
		if res == nil { // a probe's path with another method: not authenticated upstream
			p, err := s.auth.Authenticate(r)
			res = &authResult{principal: p, err: err}
			if info := infoFrom(r.Context()); info != nil {
				info.auth = res
			}
		}
		if res.err != nil {
			writeError(w, unauthenticated(res.err))
			return
		}
		if !res.principal.Role.allows(need) {
			writeError(w, s.forbidden(res.principal))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unauthenticated is the 401 of a request whose credentials err refused.
func unauthenticated(err error) *httpError {
	return newError(http.StatusUnauthorized, CodeUnauthenticated, err.Error()).
		with("WWW-Authenticate", `Bearer realm="flowscript-templates"`)
}

// tenantRefused is the 403 of a caller bound to tenants (a token, with
// AUTH_JWT_TENANT_CLAIM) that asks to run code for another tenant (a test
// run with host functions), or nil when it may. what says what it asked. A
// replay of another tenant's job is not refused so: it answers as a job
// with no record (replayFailure).
func (s *Server) tenantRefused(r *http.Request, tenant, what string) *httpError {
	if mayUseTenant(r, tenant) {
		return nil
	}
	res := authFrom(r.Context())
	named := "names no tenant"
	if ts := res.principal.Tenants; len(ts) > 0 {
		quoted := make([]string, len(ts))
		for i, t := range ts {
			quoted[i] = strconv.Quote(t)
		}
		named = "names only " + strings.Join(quoted, ", ")
	}
	switch {
	case tenant == "" && len(res.principal.Tenants) > 0:
		return newError(http.StatusForbidden, CodeForbidden, fmt.Sprintf(
			"this token %s in its %s claim, so it may %s only of a tenant it names, and the request names none: set tenantId",
			named, s.cfg.JWTTenantClaim, what))
	case tenant == "":
		return newError(http.StatusForbidden, CodeForbidden, fmt.Sprintf(
			"this token %s in its %s claim, so it may not %s: use a token that names the tenant, and set tenantId",
			named, s.cfg.JWTTenantClaim, what))
	}
	return newError(http.StatusForbidden, CodeForbidden, fmt.Sprintf(
		"this token %s in its %s claim, so it may not %s of tenant %q: use a token that names that tenant",
		named, s.cfg.JWTTenantClaim, what, tenant))
}

// mayUseTenant reports whether the request's credential may run code for
// tenant (see Principal.MayUseTenant); a request with no credential read is
// not bound.
func mayUseTenant(r *http.Request, tenant string) bool {
	res := authFrom(r.Context())
	return res == nil || res.principal.MayUseTenant(tenant)
}

// forbidden tells the caller what its credential lacks, in the terms it
// was issued in (a scope for a token, a role for an API key).
func (s *Server) forbidden(p Principal) *httpError {
	var msg string
	switch {
	case p.Method == "jwt" && p.Role == RoleRead:
		msg = fmt.Sprintf("this token may only read templates: changing them and running tests need the %s scope", s.cfg.JWTWriteScope)
	case p.Method == "jwt":
		msg = fmt.Sprintf("this token grants no access to templates: it needs the %s or the %s scope", s.cfg.JWTReadScope, s.cfg.JWTWriteScope)
	default:
		msg = "this API key may only read templates: changing them and running tests need a key with the write role"
	}
	return newError(http.StatusForbidden, CodeForbidden, msg)
}

// testRunSlots is how many test runs and replays may be in flight at once
// on a pool of parallel workers: all but one, so that a save's check of its
// source (which runs in a worker too) never waits behind authors' test
// runs (eight while(true) test runs held saves for 4-5 s); all of them on
// a pool of one.
func testRunSlots(parallel int) int {
	if parallel > 1 {
		return parallel - 1
	}
	return parallel
}
