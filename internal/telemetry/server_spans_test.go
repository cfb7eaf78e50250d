package telemetry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

func TestHTTPServerSpans(t *testing.T) {
	_, exp := setupRecording(t)
	mux := http.NewServeMux()
	var handlerSpan trace.SpanContext
	mux.HandleFunc("GET /api/script-templates/{id}", func(w http.ResponseWriter, r *http.Request) {
		handlerSpan = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusNotFound)
	})
	mux.HandleFunc("POST /api/script-templates", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database down", http.StatusServiceUnavailable)
	})
	srv := httptest.NewServer(HTTPServer(mux, mux))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/script-templates/42", nil)
	req.Header.Set("traceparent", foreignTraceparent)
	for _, r := range []*http.Request{req, mustRequest(t, http.MethodPost, srv.URL+"/api/script-templates")} {
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatalf("%s %s: %v", r.Method, r.URL, err)
		}
		_ = resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()

	spans := exp.GetSpans()
	get := spanNamed(t, spans, "GET /api/script-templates/{id}")
	if get.SpanKind != trace.SpanKindServer || get.Parent.TraceID().String() != foreignTraceID || get.Parent.SpanID().String() != foreignSpanID {
		t.Errorf("GET span kind %s parent %s/%s: want a server span child of the caller's traceparent", get.SpanKind, get.Parent.TraceID(), get.Parent.SpanID())
	}
	if handlerSpan.SpanID() != get.SpanContext.SpanID() {
		t.Error("the handler's context does not hold the server span")
	}
	wantAttrs(t, get, map[attribute.Key]attribute.Value{
		"http.request.method":       attribute.StringValue("GET"),
		"http.route":                attribute.StringValue("/api/script-templates/{id}"),
		"url.path":                  attribute.StringValue("/api/script-templates/42"),
		"http.response.status_code": attribute.IntValue(404),
	})
	if get.Status.Code != codes.Unset {
		t.Errorf("a 404 marks the server span %v; only 5xx are server errors", get.Status)
	}
	post := spanNamed(t, spans, "POST /api/script-templates")
	wantAttrs(t, post, map[attribute.Key]attribute.Value{
		"http.response.status_code": attribute.IntValue(503),
		"error.type":                attribute.StringValue("503"),
	})
	if post.Status.Code != codes.Error {
		t.Errorf("a 503 left the span status %v", post.Status)
	}
}

func TestStartDBQuery(t *testing.T) {
	_, exp := setupRecording(t)
	_, span := StartDBQuery(context.Background(), "postgresql", "SELECT $1::int + 1")
	EndSpan(span, nil)
	_, bad := StartDBQuery(context.Background(), "postgresql", "-- no keyword")
	EndSpan(bad, errors.New("syntax error"))
	spans := exp.GetSpans()
	sel := spanNamed(t, spans, "SELECT")
	if sel.SpanKind != trace.SpanKindClient || sel.Status.Code != codes.Unset {
		t.Errorf("SELECT span kind %s status %v: want a client span without error", sel.SpanKind, sel.Status)
	}
	wantAttrs(t, sel, map[attribute.Key]attribute.Value{
		"db.system.name":    attribute.StringValue("postgresql"),
		"db.operation.name": attribute.StringValue("SELECT"),
		"db.query.text":     attribute.StringValue("SELECT $1::int + 1"),
	})
	if s := spanNamed(t, spans, "postgresql"); s.Status.Code != codes.Error {
		t.Errorf("the failed query's span has status %v", s.Status)
	}
}

func TestStartDBAndEndSpan(t *testing.T) {
	_, exp := setupRecording(t)
	_, span := StartDB(context.Background(), "bbolt", "put", "templates")
	EndSpan(span, errors.New("database is read-only"))
	s := spanNamed(t, exp.GetSpans(), "put templates")
	wantAttrs(t, s, map[attribute.Key]attribute.Value{
		"db.system.name":     attribute.StringValue("bbolt"),
		"db.collection.name": attribute.StringValue("templates"),
	})
	if s.Status.Code != codes.Error || s.Status.Description != "database is read-only" {
		t.Errorf("status %+v, want the error", s.Status)
	}
}

func TestSQLOperation(t *testing.T) {
	for query, want := range map[string]string{
		"select 1": "SELECT", "\n  INSERT INTO t VALUES ($1)": "INSERT", "": "", "-- comment\nSELECT 1": "",
		"WITH x AS (SELECT 1) SELECT * FROM x": "WITH",
	} {
		if got := sqlOperation(query); got != want {
			t.Errorf("sqlOperation(%q) = %q, want %q", query, got, want)
		}
	}
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
