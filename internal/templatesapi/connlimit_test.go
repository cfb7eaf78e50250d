package templatesapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// serveLimited serves a Server through httpServer, as Run does, and
// returns its address and limiter.
func serveLimited(t *testing.T, cfg Config) (string, *connLimiter) {
	t.Helper()
	srv, err := NewServer(cfg, openEmbedded(t, cfg), sandbox.NewInProcess(cfg.Sandbox), guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs, limited := srv.httpServer(ln)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(limited) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		srv.Close()
	})
	return ln.Addr().String(), limited.(*connLimiter)
}

// When every connection is busy with a request, a new one is refused at
// once rather than evicting a request in progress; when one turns idle,
// the next newcomer takes its place.
func TestConnectionLimitNeverEvictsABusyConnection(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns = minMaxConns
	// Each busy connection's save under a key of its own: one credential
	// has at most a quarter of the connections with a body in flight
	// (bodyShareParts), and under one key six of the eight were answered
	// 503 at once, so which connection still held its request was the
	// scheduler's choice (CI once found the first one answered 503).
	keys := make([]string, cfg.MaxConns)
	for i := range keys {
		keys[i] = fmt.Sprintf("conn-key-%d-0123456789abcdef", i)
	}
	cfg.APIKeys = append(cfg.APIKeys, keys...)
	addr, lim := serveLimited(t, cfg)

	// Saves, not test runs: with one sandbox slot the other test runs were
	// answered 429 at once.
	body := `{"name":"conn","source":"return 1"}`
	var busy []net.Conn
	t.Cleanup(func() {
		for _, c := range busy {
			_ = c.Close() // the test's own connections
		}
	})
	for i := range cfg.MaxConns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		busy = append(busy, c)
		// A save whose body is still on its way: the handler waits for it.
		_, err = fmt.Fprintf(c, "POST /api/script-templates HTTP/1.1\r\nHost: api\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			keys[i], len(body), body[:5])
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	eventually(t, 10*time.Second, "every connection is busy", func() bool {
		lim.mu.Lock()
		defer lim.mu.Unlock()
		n := 0
		for c := range lim.conns {
			if !c.idle {
				n++
			}
		}
		return n == cfg.MaxConns
	})

	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = extra.Close() }() // the test's own
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("a connection beyond the cap, all busy: read %v, want it closed", err)
	}
	if lim.refused.Load() != 1 || lim.evicted.Load() != 0 {
		t.Errorf("refused %d, evicted %d; want 1 and 0", lim.refused.Load(), lim.evicted.Load())
	}

	// The first request completes; its connection turns idle.
	if _, err := io.WriteString(busy[0], body[5:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(busy[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close() // only the status matters
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the completed save answered %d", resp.StatusCode)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/script-templates", nil)
	req.Header.Set("X-API-Key", testAPIKey)
	eventually(t, 10*time.Second, "a new client is served in the idle connection's place", func() bool {
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode == http.StatusOK
	})
	if lim.evicted.Load() < 1 {
		t.Error("the idle connection was not evicted")
	}
	if n := lim.open(); n > cfg.MaxConns {
		t.Errorf("%d connections open, cap %d", n, cfg.MaxConns)
	}
}
