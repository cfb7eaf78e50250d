package templatesapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// bodyReads counts, per request, the body bytes the service read: a
// request carrying "X-Probe: i" has its reads counted in n[i].
type bodyReads struct{ n []atomic.Int64 }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// startCounting is startAPI with the body reads of probes counted.
func startCounting(t *testing.T, cfg Config, runner sandbox.Runner, probes int) (*api, *bodyReads) {
	t.Helper()
	if runner == nil {
		runner = sandbox.NewInProcess(cfg.Sandbox)
	}
	srv, err := NewServer(cfg, openEmbedded(t, cfg), runner, guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	reads := &bodyReads{n: make([]atomic.Int64, probes)}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i, err := strconv.Atoi(r.Header.Get("X-Probe")); err == nil && i >= 0 && i < probes {
			r.Body = countingBody{ReadCloser: r.Body, n: &reads.n[i]}
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(ts.Close)
	return &api{t: t, srv: srv, ts: ts, client: ts.Client()}, reads
}

// TestRunsOverTheLimitReadNoBody: with every slot taken, a test run and a
// replay are answered 429 SANDBOX_BUSY at once without a byte of their
// bodies read; the service read whole test-run bodies (up to 7.9 MB, and
// several times that decoding them) before finding no slot free.
func TestRunsOverTheLimitReadNoBody(t *testing.T) {
	cfg := testConfig() // MaxParallel 2: one slot
	cfg.NATSURL = testenv.EmbeddedNATS(t).ClientURL()
	g := &gate{next: sandbox.NewInProcess(cfg.Sandbox), entered: make(chan struct{}, 1), release: make(chan struct{})}
	a, reads := startCounting(t, cfg, g, 2)
	var wg sync.WaitGroup
	wg.Go(func() { a.testRun(map[string]any{"source": "return 'held'"}) })
	defer wg.Wait()
	defer close(g.release)
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the held run did not start")
	}

	source := strings.Repeat(`\u0078`, cfg.Sandbox.MaxSourceBytes)
	for i, call := range []struct{ path, body string }{
		{"/api/scripts/test", `{"source":"` + source + `","inputVariables":[]}`},
		{"/api/failures/job-1/replay", `{"source":"` + source + `"}`},
	} {
		r := a.authed("POST", call.path, call.body, "X-Probe", strconv.Itoa(i))
		wantStatus(t, r, http.StatusTooManyRequests)
		if e := r.apiErr(t); e.Code != CodeSandboxBusy || r.header.Get("Retry-After") == "" {
			t.Errorf("POST %s: %+v (Retry-After %q), want %s with Retry-After", call.path, e, r.header.Get("Retry-After"), CodeSandboxBusy)
		}
		if n := reads.n[i].Load(); n != 0 {
			t.Errorf("POST %s: the service read %d bytes of a body it had no slot for, want none", call.path, n)
		}
	}
}

// TestLargeBodiesDrawFromOneBudget: many large bodies at once are read only
// as far as the process's body budget (bodyBudgetBodies test-run bodies at
// their cap) allows: the others are answered 503 SERVICE_BUSY at once,
// unread, so the heap grows by about the budget whatever the number of
// callers (150 bodies of 7.8 MB took the process to 4.5 GB). Small
// requests are still served while large ones hold the whole budget.
func TestLargeBodiesDrawFromOneBudget(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.MaxSourceBytes, cfg.Sandbox.MaxInputBytes = 256<<10, 64<<10
	budget := cfg.bodyBudgetBytes()
	const callers = 48
	a, reads := startCounting(t, cfg, nil, callers)

	// Saves just under their cap, all \u0078 escapes: each stops one byte
	// short of its end, so every body read stays in memory until release.
	size := int(cfg.templateBodyBytes()) - 1000
	head, tail := `{"name":"big","source":"`, `"}`
	escapes := (size - len(head) - len(tail)) / 6
	body := []byte(head + strings.Repeat(`\u0078`, escapes) + strings.Repeat("x", size-len(head)-len(tail)-6*escapes) + tail)
	admitted := int(budget / int64(size))
	if admitted >= callers/4 {
		t.Fatalf("the budget admits %d of %d bodies: the test needs far more callers than that", admitted, callers)
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	release := make(chan struct{})
	answers := make([]*http.Response, callers)
	var answered atomic.Int64
	var wg sync.WaitGroup
	for i := range callers {
		conn, err := net.DialTimeout("tcp", a.ts.Listener.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // the test's own
		_ = conn.SetDeadline(time.Now().Add(time.Minute))
		if _, err := fmt.Fprintf(conn, "POST /api/script-templates HTTP/1.1\r\nHost: api\r\nX-API-Key: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\nX-Probe: %d\r\n\r\n", testAPIKey, len(body), i); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			// A refused body is not read: the server may close the
			// connection while it is sent.
			if _, err := conn.Write(body[:len(body)-1]); err == nil {
				<-release
				_, _ = conn.Write(body[len(body)-1:])
			}
		})
		wg.Go(func() {
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				answers[i] = resp
			}
			answered.Add(1)
		})
	}
	stop := sync.OnceFunc(func() { close(release) })
	defer wg.Wait()
	defer stop()

	// Every caller is either answered or has its body read but for the
	// last byte.
	settled := func() (stalled int, ok bool) {
		for i := range callers {
			if reads.n[i].Load() == int64(len(body)-1) {
				stalled++
			}
		}
		return stalled, stalled+int(answered.Load()) == callers
	}
	eventually(t, 30*time.Second, "every large body answered or read", func() bool { _, ok := settled(); return ok })
	stalled, _ := settled()

	runtime.GC()
	var during runtime.MemStats
	runtime.ReadMemStats(&during)
	growth := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d callers of %d bytes, budget %d bytes: %d bodies read, heap grew by %d bytes", callers, len(body), budget, stalled, growth)
	if stalled > admitted {
		t.Errorf("%d bodies of %d bytes were read at once, want at most %d (the budget of %d bytes)", stalled, len(body), admitted, budget)
	}
	if limit := 3 * budget; growth > limit {
		t.Errorf("the heap grew by %d bytes while the bodies were read, want at most %d (3 × the budget)", growth, limit)
	}

	// Small requests are served while the large ones hold the budget.
	wantStatus(t, a.authed("GET", "/api/script-templates", nil), http.StatusOK)
	wantStatus(t, a.authed("POST", "/api/script-templates", map[string]string{"name": "small", "source": "return 1"}), http.StatusCreated)

	stop()
	wg.Wait()
	busy := 0
	for i, resp := range answers {
		switch {
		case resp == nil:
			t.Errorf("caller %d got no answer", i)
		case resp.StatusCode == http.StatusServiceUnavailable:
			busy++
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("caller %d: 503 without Retry-After", i)
			}
		case resp.StatusCode != http.StatusUnprocessableEntity: // read whole: the source is over its cap
			t.Errorf("caller %d: status %d, want 503 or 422", i, resp.StatusCode)
		}
	}
	if busy != callers-stalled {
		t.Errorf("%d callers were answered 503, want the %d whose bodies were not read", busy, callers-stalled)
	}
	eventually(t, 10*time.Second, "the budget given back", func() bool { return a.srv.bodies.held.Load() == 0 })
}

// TestBodiesBusyAnswer: a body refused by the spent budget gets 503
// SERVICE_BUSY with Retry-After and a message saying what to do, and the
// budget's bytes come back when the requests end.
func TestBodiesBusyAnswer(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	// Hold all of the budget but a small body's worth, as large bodies
	// being read would.
	held := cfg.bodyBudgetBytes() - smallBodyBytes
	if !a.srv.bodies.take(held) {
		t.Fatal("an idle budget refused a body")
	}
	large := `{"name":"large",` + strings.Repeat(" ", smallBodyBytes) + `"source":"return 1"}` // a valid save
	r := a.authed("POST", "/api/script-templates", large)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := r.apiErr(t); e.Code != CodeServiceBusy || !strings.Contains(e.Message, "busy with other large requests") ||
		!strings.Contains(e.Message, "retry") || r.header.Get("Retry-After") == "" {
		t.Errorf("a large body over the budget: %+v (Retry-After %q)", e, r.header.Get("Retry-After"))
	}
	// Small bodies are read even with the budget spent.
	a.srv.bodies.take(smallBodyBytes)
	wantStatus(t, a.authed("POST", "/api/script-templates", map[string]string{"name": "small", "source": "return 1"}), http.StatusCreated)
	r, out := a.testRun(map[string]any{"source": "return 'small'"})
	if r.status != http.StatusOK || out.Output == nil || *out.Output != "small" {
		t.Errorf("a small test run with the budget spent: %d %s", r.status, r.raw)
	}
	a.srv.bodies.give(held + smallBodyBytes)
	if n := a.srv.bodies.held.Load(); n != 0 {
		t.Errorf("the budget holds %d bytes after every request ended, want 0", n)
	}
	wantStatus(t, a.authed("POST", "/api/script-templates", large), http.StatusCreated)
}
