package templatesapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/templates"
)

// recordSpans sets telemetry up with an in-memory exporter for one test.
func recordSpans(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	p, err := telemetry.Setup(context.Background(), telemetry.Config{
		ServiceName:   "flowscript-templates-api",
		Getenv:        func(string) string { return "" },
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		SpanProcessor: sdktrace.NewSimpleSpanProcessor(exp),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return exp
}

func spanAttr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// serverSpans are the spans of kind server, by name.
func serverSpans(spans tracetest.SpanStubs) map[string][]tracetest.SpanStub {
	out := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			out[s.Name] = append(out[s.Name], s)
		}
	}
	return out
}

// childrenOf are the client spans whose parent is parent.
func childrenOf(spans tracetest.SpanStubs, parent tracetest.SpanStub) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindClient && s.Parent.SpanID() == parent.SpanContext.SpanID() {
			out = append(out, s)
		}
	}
	return out
}

// TestRoutesAndStoreCallsAreTraced: every API request is a server span
// named after its route, a child of the caller's traceparent, with the
// store's calls as client spans under it (bbolt for the embedded store,
// pgx's queries for PostgreSQL); the probes make no span.
func TestRoutesAndStoreCallsAreTraced(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(t testing.TB, cfg Config) templates.Store) {
		exp := recordSpans(t)
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		exp.Reset() // migrations and pings at start

		const caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		r := a.authed("POST", "/api/script-templates", map[string]string{"name": "traced", "source": "return 1"},
			"traceparent", caller)
		wantStatus(t, r, http.StatusCreated)
		wantStatus(t, a.authed("GET", "/api/script-templates/00000000-0000-4000-8000-000000000000", nil), http.StatusNotFound)
		wantStatus(t, a.do("GET", "/healthz", nil), http.StatusOK)
		wantStatus(t, a.do("GET", "/readyz", nil), http.StatusOK)
		wantStatus(t, a.do("GET", "/api/script-templates", nil, "traceparent", caller), http.StatusUnauthorized)
		wantStatus(t, a.do("GET", "/api/script-templates", nil, "X-API-Key", "wrong-key-0123456789abcdef", "traceparent", caller),
			http.StatusUnauthorized)

		spans := exp.GetSpans()
		servers := serverSpans(spans)
		for _, probe := range []string{"GET /healthz", "GET /readyz"} {
			if len(servers[probe]) != 0 {
				t.Errorf("the probe %s made a span", probe)
			}
		}

		post := servers["POST /api/script-templates"]
		if len(post) != 1 {
			t.Fatalf("want one POST span, got server spans %v", servers)
		}
		p := post[0]
		if p.Parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || p.Parent.SpanID().String() != "00f067aa0ba902b7" {
			t.Errorf("the POST span's parent is %s/%s, want the caller's traceparent", p.Parent.TraceID(), p.Parent.SpanID())
		}
		if v, _ := spanAttr(p, "http.route"); v.AsString() != "/api/script-templates" {
			t.Errorf("http.route = %q", v.AsString())
		}
		if v, _ := spanAttr(p, "http.response.status_code"); v.AsInt64() != http.StatusCreated {
			t.Errorf("http.response.status_code = %v", v.AsInt64())
		}
		db := childrenOf(spans, p)
		if len(db) == 0 {
			t.Fatalf("the POST span has no store span under it; spans: %v", spans)
		}
		system, _ := spanAttr(db[0], "db.system.name")
		switch system.AsString() {
		case "bbolt":
			if len(db) != 1 || db[0].Name != "create script_templates" {
				t.Errorf("embedded store spans %v, want one create script_templates", db)
			}
		case "postgresql":
			if db[len(db)-1].Name != "INSERT" {
				t.Errorf("postgres store spans end with %q, want the INSERT", db[len(db)-1].Name)
			}
		default:
			t.Errorf("store span %q has db.system.name %q", db[0].Name, system.AsString())
		}

		get := servers["GET /api/script-templates/{id}"]
		if len(get) != 1 {
			t.Fatalf("want one GET by id span, got server spans %v", servers)
		}
		if get[0].Status.Code == codes.Error {
			t.Error("a 404 marked the server span as an error")
		}
		for _, s := range childrenOf(spans, get[0]) {
			if s.Status.Code == codes.Error && system.AsString() == "bbolt" {
				t.Errorf("the embedded store's not-found marked span %q as an error", s.Name)
			}
		}
		// Refused requests are traced, but never as a child of what the
		// caller sent: anyone could otherwise force sampling or graft
		// spans onto a trace of their choosing.
		refused := servers["GET /api/script-templates"]
		if len(refused) != 2 {
			t.Errorf("the refused requests made %d spans, want 2", len(refused))
		}
		for _, s := range refused {
			if s.Parent.IsValid() || s.SpanContext.TraceID().String() == "4bf92f3577b34da6a3ce929d0e0e4736" {
				t.Errorf("a refused request's span continues the caller's trace: parent %s, trace %s", s.Parent.SpanID(), s.SpanContext.TraceID())
			}
		}
	})
}
