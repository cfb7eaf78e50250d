package templatesapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// startLoggedAPI is startAPI with the server's log lines, at level, in
// the returned sink.
func startLoggedAPI(t *testing.T, cfg Config, level slog.Level) (*api, *logSink) {
	t.Helper()
	logs := &logSink{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: level}))
	srv, err := NewServer(cfg, openEmbedded(t, cfg), sandbox.NewInProcess(cfg.Sandbox), guardrails.NewInProcess(cfg.Sandbox), logger)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(srv.Close)
	t.Cleanup(ts.Close)
	return &api{t: t, srv: srv, ts: ts, client: ts.Client()}, logs
}

// Refused credentials are logged at debug; at info a flood of them makes
// one summary line, not one line each. Authenticated requests stay at
// info.
func TestRefusedRequestsAreLoggedAtDebugWithASummary(t *testing.T) {
	cfg := testConfig()
	t.Run("info", func(t *testing.T) {
		a, logs := startLoggedAPI(t, cfg, slog.LevelInfo)
		for i := range 200 {
			header := []string{"X-API-Key", "wrong-key-0123456789abcdef"}
			if i%2 == 0 {
				header = nil
			}
			wantStatus(t, a.do("GET", "/api/script-templates", nil, header...), http.StatusUnauthorized)
		}
		wantStatus(t, a.authed("GET", "/api/script-templates", nil), http.StatusOK)
		if n := len(logs.records("request")); n != 1 {
			t.Errorf("%d request lines at info, want only the authenticated request's", n)
		}
		summary := logs.records("refusing requests without valid credentials")
		if len(summary) != 1 {
			t.Fatalf("%d summary lines for 200 refused requests, want 1", len(summary))
		}
		if summary[0]["level"] != "INFO" || summary[0]["last_reason"] != "no credentials" {
			t.Errorf("summary %v", summary[0])
		}
	})
	t.Run("debug", func(t *testing.T) {
		a, logs := startLoggedAPI(t, cfg, slog.LevelDebug)
		wantStatus(t, a.do("GET", "/api/script-templates", nil, "X-API-Key", "wrong-key-0123456789abcdef"), http.StatusUnauthorized)
		lines := logs.records("request")
		if len(lines) != 1 || lines[0]["level"] != "DEBUG" || lines[0]["auth_error"] != "unknown API key" || lines[0]["status"] != 401.0 {
			t.Errorf("refused request lines %v", lines)
		}
		if strings.Contains(logs.text(), "wrong-key") {
			t.Error("the presented API key is in the log")
		}
	})
}

// X-Request-Id is echoed only when it looks like a request id; anything
// else gets a fresh one, in the header and in the log.
func TestRequestIDIsAcceptedOnlyWhenItLooksLikeOne(t *testing.T) {
	a, logs := startLoggedAPI(t, testConfig(), slog.LevelInfo)
	for id, kept := range map[string]bool{
		"3f2c9a1e-5b7d-4c1e-9f0a-2b3c4d5e6f70": true,
		"01J9ZQ8E4T3M6K7P8R9S0V1W2X":           true,
		"req_1234.abcd":                        true,
		"short":                                false,
		strings.Repeat("a", 65):                false,
		"has space in it":                      false,
		"quote\"inside-it":                     false,
		"newline\\ninside":                     false,
		"ünïcödé-request-id":                   false,
		"{\"level\":\"ERROR\"}":                false,
	} {
		r := a.authed("GET", "/api/script-templates", nil, "X-Request-Id", id)
		wantStatus(t, r, http.StatusOK)
		got := r.header.Get("X-Request-Id")
		if kept && got != id {
			t.Errorf("id %q answered %q, want it echoed", id, got)
		}
		if !kept && (got == id || !saneRequestID(got) || len(got) != 36) {
			t.Errorf("id %q answered %q, want a fresh UUID", id, got)
		}
	}
	for _, l := range logs.records("request") {
		if id, _ := l["request_id"].(string); !saneRequestID(id) {
			t.Errorf("logged request id %q", id)
		}
	}
}

// Only the probes skip authentication; a probe path with another method
// is authenticated like any route, and the probes carry no span.
func TestProbesAreTheOnlyUnauthenticatedPaths(t *testing.T) {
	a := startAPI(t, testConfig(), openEmbedded(t, testConfig()), nil)
	wantStatus(t, a.do("HEAD", "/healthz", nil), http.StatusOK)
	wantStatus(t, a.do("DELETE", "/readyz", nil), http.StatusUnauthorized)
	wantStatus(t, a.authed("DELETE", "/readyz", nil), http.StatusMethodNotAllowed)
	wantStatus(t, a.do("DELETE", "/readyz", nil, "X-API-Key", testReadAPIKey), http.StatusMethodNotAllowed)
}

// TestOversizedHeadersAnswerInJSON: headers over 32 KiB (a token grown
// with groups and scopes) are 431 HEADERS_TOO_LARGE in the JSON error
// shape, before authentication; under the limit the request goes on.
func TestOversizedHeadersAnswerInJSON(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	r := a.do("GET", "/api/script-templates", nil, "Authorization", "Bearer "+strings.Repeat("a", 40<<10))
	wantStatus(t, r, http.StatusRequestHeaderFieldsTooLarge)
	if e := r.apiErr(t); e.Code != CodeHeadersTooLarge || !strings.Contains(e.Message, "32768") {
		t.Errorf("%+v, want HEADERS_TOO_LARGE naming the limit", e)
	}
	wantStatus(t, a.do("GET", "/api/script-templates", nil, "Authorization", "Bearer "+strings.Repeat("a", 20<<10)), http.StatusUnauthorized)
	wantStatus(t, a.authed("GET", "/api/script-templates", nil, "X-Padding", strings.Repeat("p", 20<<10)), http.StatusOK)
}

// TestLongURLAnswersURITooLong: when the URL is what passes the limit on
// the request's line and headers, the answer says so (414 URI_TOO_LONG),
// rather than asking for a shorter token.
func TestLongURLAnswersURITooLong(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	long := "/api/script-templates/" + strings.Repeat("a", 40<<10)
	for _, r := range []response{a.do("GET", long, nil), a.authed("GET", "/api/script-templates?name="+strings.Repeat("n", 40<<10), nil)} {
		wantStatus(t, r, http.StatusRequestURITooLong)
		if e := r.apiErr(t); e.Code != CodeURITooLong || !strings.Contains(e.Message, "shorter URL") || !strings.Contains(e.Message, "32768") {
			t.Errorf("%+v, want URI_TOO_LONG naming the limit", e)
		}
	}
	// Headers that pass the limit beside a long URL are still headers.
	r := a.do("GET", "/api/script-templates?name="+strings.Repeat("n", 10<<10), nil, "Authorization", "Bearer "+strings.Repeat("a", 30<<10))
	wantStatus(t, r, http.StatusRequestHeaderFieldsTooLarge)
	if e := r.apiErr(t); e.Code != CodeHeadersTooLarge {
		t.Errorf("%+v, want HEADERS_TOO_LARGE", e)
	}
}
