package templatesapi

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestRunServesThenShutsDownGracefully(t *testing.T) {
	cfg := testConfig()
	cfg.DataDir = t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gate{next: sandbox.NewInProcess(cfg.Sandbox), entered: make(chan struct{}, 1), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, RunDeps{Runner: g, Checker: guardrails.NewInProcess(cfg.Sandbox), Listener: ln})
	}()

	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	base := "http://" + ln.Addr().String()
	eventually(t, 10*time.Second, "the service answers", func() bool {
		resp, err := client.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode == http.StatusOK
	})

	// A test run in flight when the signal comes finishes and is answered.
	inFlight := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/scripts/test", strings.NewReader(`{"source":"return 'finished'"}`))
		req.Header.Set("X-API-Key", testAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			inFlight <- 0
			return
		}
		_ = resp.Body.Close() // only the status matters
		inFlight <- resp.StatusCode
	}()
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the test run did not start")
	}
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run returned %v with a request in flight", err)
	case <-time.After(200 * time.Millisecond): // still draining, as it should
	}
	close(g.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(cfg.Sandbox.Timeout + shutdownGrace + 5*time.Second):
		t.Fatal("Run did not return after the context ended")
	}
	if status := <-inFlight; status != http.StatusOK {
		t.Errorf("the in-flight run answered %d, want 200", status)
	}
	if resp, err := client.Get(base + "/healthz"); err == nil {
		_ = resp.Body.Close() // any answer at all is the failure
		t.Error("the service still answers after shutdown")
	}
}

func TestRunRefusesWithoutARunner(t *testing.T) {
	if err := Run(context.Background(), testConfig(), RunDeps{}); err == nil {
		t.Error("Run without a runner started")
	}
}

// TestRunRefusesWithoutAChecker: a runner that cannot check sources (the
// in-process one) needs a checker beside it; none is made up.
func TestRunRefusesWithoutAChecker(t *testing.T) {
	cfg := testConfig()
	cfg.DataDir = t.TempDir()
	err := Run(context.Background(), cfg, RunDeps{Runner: sandbox.NewInProcess(cfg.Sandbox)})
	if err == nil || !strings.Contains(err.Error(), "checker") {
		t.Errorf("Run without a checker: %v; want a refusal naming the checker", err)
	}
}
