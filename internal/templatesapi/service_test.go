package templatesapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// logSink collects the JSON log lines of a running service.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logSink) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// records are the lines whose msg starts with prefix ("" for all).
func (l *logSink) records(prefix string) []map[string]any {
	raw := l.text()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if msg, _ := rec["msg"].(string); strings.HasPrefix(msg, prefix) {
			out = append(out, rec)
		}
	}
	return out
}

// service is templatesapi.Run serving on a loopback listener, as
// cmd/templates-api runs it, with its logs at debug level.
type service struct {
	t      *testing.T
	addr   string
	base   string
	client *http.Client
	logs   *logSink
}

func runService(t *testing.T, cfg Config) *service {
	t.Helper()
	if cfg.DataDir == DefaultDataDir && cfg.DatabaseURL == "" {
		cfg.DataDir = t.TempDir()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logSink{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, RunDeps{Logger: logger, Runner: sandbox.NewInProcess(cfg.Sandbox), Checker: guardrails.NewInProcess(cfg.Sandbox), Listener: ln})
	}()
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	s := &service{t: t, addr: ln.Addr().String(), base: "http://" + ln.Addr().String(),
		client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, logs: logs}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	eventually(t, 15*time.Second, "the service answers", func() bool {
		status, _ := s.call("GET", "/healthz", "")
		return status == http.StatusOK
	})
	return s
}

// call sends one request with the given credential header ("Name: value"
// or "") and returns the status and the error message, if any.
func (s *service) call(method, path, credential string, body ...string) (int, string) {
	s.t.Helper()
	var rd io.Reader
	if len(body) > 0 {
		rd = strings.NewReader(body[0])
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if name, value, ok := strings.Cut(credential, ": "); ok {
		req.Header.Set(name, value)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }() // read below
	raw, _ := io.ReadAll(resp.Body)
	var e errorBody
	_ = json.Unmarshal(raw, &e) // not every answer is an error
	return resp.StatusCode, e.Error.Message
}

func bearerHeader(token string) string { return "Authorization: Bearer " + token }

// flood sends GET requests with the given tokens from two goroutines, each
// closed as soon as it is written: the attack of issue 20, callers that
// hang up at once so that whatever runs on their context is cancelled. stop
// ends it and returns how many were sent.
func (s *service) flood(tokens []string) (stop func() int) {
	var sent atomic.Int64
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; ; i++ {
				select {
				case <-quit:
					return
				case <-time.After(2 * time.Millisecond):
				}
				c, err := net.Dial("tcp", s.addr)
				if err != nil {
					continue
				}
				_, _ = fmt.Fprintf(c, "GET /api/script-templates HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer %s\r\n\r\n", tokens[i%len(tokens)])
				_ = c.Close() // hanging up is the point
				sent.Add(1)
			}
		})
	}
	var once sync.Once
	stop = func() int {
		once.Do(func() { close(quit); wg.Wait() })
		return int(sent.Load())
	}
	s.t.Cleanup(func() { stop() })
	return stop
}

// The warning that the service listens while its database is down says
// why, when the service opens its own listener (TEMPLATES_ADDR) as in
// production: it logged "error": null (a probe).
func TestDatabaseDownWarningSaysWhy(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Addr = probe.Addr().String()
	_ = probe.Close()
	cfg.DatabaseURL = "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"
	logs := &logSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, RunDeps{Logger: slog.New(slog.NewJSONHandler(logs, nil)),
			Runner: sandbox.NewInProcess(cfg.Sandbox), Checker: guardrails.NewInProcess(cfg.Sandbox)})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(logs.records("PostgreSQL is not reachable yet; listening meanwhile")) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	warned := logs.records("PostgreSQL is not reachable yet; listening meanwhile")
	if len(warned) == 0 {
		t.Fatalf("no warning:\n%s", logs.text())
	}
	if e, _ := warned[0]["error"].(string); !strings.Contains(e, "127.0.0.1:1") {
		t.Errorf("the warning does not say why the database is not reachable: %v", warned[0])
	}
}

// A PostgreSQL that is not reachable at start is retried while the service
// listens: /healthz answers (a liveness probe does not kill a service that
// waits for its database), /readyz and the routes answer 503, and a
// SIGTERM meanwhile is a clean stop.
func TestServiceListensWhileItsDatabaseIsDown(t *testing.T) {
	cfg := testConfig()
	cfg.DatabaseURL = "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"
	s := runService(t, cfg) // waits for /healthz
	if status, msg := s.call("GET", "/readyz", ""); status != http.StatusServiceUnavailable || !strings.Contains(msg, "not open yet") {
		t.Errorf("/readyz while the database is down: %d %q, want 503", status, msg)
	}
	// Credentials are checked before the wait for the store: a caller
	// without valid ones is told so at once, not 503 after openingWait.
	for _, cred := range []string{"", "X-API-Key: not-a-key", "Authorization: Bearer x.y.z"} {
		start := time.Now()
		status, msg := s.call("GET", "/api/script-templates", cred)
		if status != http.StatusUnauthorized || time.Since(start) >= openingWait {
			t.Errorf("GET /api/script-templates with %q while the database is down: %d %q after %s, want 401 at once",
				cred, status, msg, time.Since(start))
		}
	}
	if len(s.logs.records("PostgreSQL is not reachable yet; listening meanwhile")) == 0 {
		t.Errorf("no warning that the service listens while it retries:\n%s", s.logs.text())
	}
	// runService's clean-up cancels Run and wants nil: stopping before the
	// store opened is no failure.
}
