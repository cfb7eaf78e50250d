package templatesapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeAPIBinary()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

const (
	testAPIKey     = "test-key-0123456789abcdef"
	testReadAPIKey = "read-only-key-0123456789abcdef"
	testJWTSecret  = "test-secret-0123456789abcdef-0123456789"
	testAudience   = "flowscript-templates"
	testIssuer     = "https://issuer.example.com/"
)

// testConfig is a valid configuration with API keys (one that may write,
// one read-only), an HS256 secret with its audience and issuer, and short
// sandbox limits.
func testConfig() Config {
	return Config{
		APIKeys:     []string{testAPIKey, "second-key-0123456789abcdef", testReadAPIKey + ":read"},
		JWTSecret:   testJWTSecret,
		JWTAudience: []string{"another-audience", testAudience},
		JWTIssuer:   testIssuer,
		Sandbox:     sandbox.Limits{Timeout: 500 * time.Millisecond, MaxParallel: 2, MaxSourceBytes: 8 << 10, MaxInputBytes: 4 << 10},
	}.WithDefaults()
}

func openEmbedded(t testing.TB, cfg Config) templates.Store {
	t.Helper()
	s, err := templates.OpenEmbedded(t.TempDir(), templates.Options{MaxSourceBytes: cfg.Sandbox.MaxSourceBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return s
}

func openPostgresURL(t testing.TB, cfg Config, url string) templates.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := templates.OpenPostgres(ctx, url, templates.Options{MaxSourceBytes: cfg.Sandbox.MaxSourceBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return s
}

func openPostgres(t testing.TB, cfg Config) templates.Store {
	return openPostgresURL(t, cfg, storetest.PostgresSchemaURL(t))
}

// eachStore runs fn once per store kind, each with a fresh store.
func eachStore(t *testing.T, fn func(t *testing.T, open func(t testing.TB, cfg Config) templates.Store)) {
	t.Run("embedded", func(t *testing.T) { fn(t, openEmbedded) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgres) })
}

// api is a running server and a client for it.
type api struct {
	t      testing.TB
	srv    *Server
	ts     *httptest.Server
	client *http.Client
}

func startAPI(t testing.TB, cfg Config, store templates.Store, runner sandbox.Runner) *api {
	t.Helper()
	if runner == nil {
		runner = sandbox.NewInProcess(cfg.Sandbox)
	}
	srv, err := NewServer(cfg, store, runner, guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(srv.Close) // after the server: stops the key set's fetches
	t.Cleanup(ts.Close)
	return &api{t: t, srv: srv, ts: ts, client: ts.Client()}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.raw, v); err != nil {
		t.Fatalf("decoding %s: %v", r.raw, err)
	}
}

// apiErr decodes the one error shape, failing when the answer is not it.
func (r response) apiErr(t testing.TB) apiError {
	t.Helper()
	var body struct {
		Error *apiError `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil || body.Error.Code == "" || body.Error.Message == "" {
		t.Fatalf("answer %d is not the JSON error shape: %s (%v)", r.status, r.raw, err)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer Content-Type = %q, want JSON", ct)
	}
	return *body.Error
}

// header pairs: "Name", "value", ...
func (a *api) do(method, path string, body any, header ...string) response {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.ts.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, raw: raw}
}

// authed is do with the test API key.
func (a *api) authed(method, path string, body any, header ...string) response {
	a.t.Helper()
	return a.do(method, path, body, append([]string{"X-API-Key", testAPIKey}, header...)...)
}

func wantStatus(t testing.TB, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
}

// savedTemplate is a template answer with its warnings.
type savedTemplate struct {
	templates.Template
	Warnings []map[string]any `json:"warnings"`
	Uses     map[string]any   `json:"uses"`
}

func (a *api) create(name, source string) savedTemplate {
	a.t.Helper()
	r := a.authed("POST", "/api/script-templates", map[string]string{"name": name, "source": source})
	wantStatus(a.t, r, http.StatusCreated)
	var tpl savedTemplate
	r.json(a.t, &tpl)
	return tpl
}

func (a *api) list() []templates.Template {
	a.t.Helper()
	r := a.authed("GET", "/api/script-templates", nil)
	wantStatus(a.t, r, http.StatusOK)
	var list []templates.Template
	r.json(a.t, &list)
	return list
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countingStub is a loopback service that counts requests.
type countingStub struct {
	*httptest.Server
	requests atomic.Int64
}

func newCountingStub(t *testing.T) *countingStub {
	t.Helper()
	s := &countingStub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.requests.Add(1)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
