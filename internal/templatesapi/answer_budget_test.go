package templatesapi

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
)

// controlSources saves n templates named name whose sources are mostly
// control characters: each weighs six times its length in JSON.
func controlSources(a *api, name string, n int, size int) {
	a.t.Helper()
	source := "return 1\n//" + strings.Repeat("\x01", size-len("return 1\n//"))
	for i := range n {
		a.create(fmt.Sprintf("%s-%d", name, i), source)
	}
}

// TestAPageOfControlCharactersKeepsItsBudget: a page ends once its JSON
// passes templates.MaxPageBytes, not its stored text: a page of sources
// made of control characters (six bytes each in JSON) was 7.6 MB for a
// budget of 1 MiB.
func TestAPageOfControlCharactersKeepsItsBudget(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.MaxSourceBytes = 256 << 10
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	const size = 200 << 10
	controlSources(a, "ctl", 8, size)

	r := a.authed("GET", "/api/script-templates?name=ctl&limit=200", nil)
	wantStatus(t, r, http.StatusOK)
	var page []templates.Template
	r.json(t, &page)
	// One template is 6 × 200 KiB of JSON: the page holds one past the
	// budget, where all 8 (9.6 MB) came before.
	if limit := templates.MaxPageBytes + 6*size + 4<<10; len(r.raw) > limit || len(page) != 1 {
		t.Errorf("a page of %d templates, %d bytes of JSON; want 1 template and at most %d bytes", len(page), len(r.raw), limit)
	}
	if r.header.Get("Link") == "" {
		t.Error("no Link to the next page")
	}
}

// TestLargeAnswersDrawFromOneBudget: with the answer budget held, a read
// whose answer is over smallBodyBytes is answered 503 SERVICE_BUSY with
// Retry-After, no ETag and no next-page links, and a small read is
// answered; with the budget back, the large read is answered.
func TestLargeAnswersDrawFromOneBudget(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.MaxSourceBytes = 256 << 10
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	budget := cfg.answerBudgetBytes()
	a.srv.answers = newAnswerBudget(budget, budget) // before any request: one holder may take it all
	controlSources(a, "big", 3, 200<<10)
	a.create("small", "return 1")

	if !a.srv.answers.take("holder", budget) {
		t.Fatal("the answer budget is held at the start")
	}
	r := a.do("GET", "/api/script-templates?name=big", nil, "X-API-Key", testReadAPIKey)
	if r.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d with the answer budget held, want 503 (%d bytes of answer)", r.status, len(r.raw))
	}
	if e := r.apiErr(t); e.Code != CodeServiceBusy || !strings.Contains(e.Message, "retry after Retry-After seconds") {
		t.Errorf("error %+v, want %s saying to retry", e, CodeServiceBusy)
	}
	for _, h := range []string{"ETag", "Link", "X-Next-Cursor"} {
		if v := r.header.Get(h); v != "" {
			t.Errorf("503 with %s %q", h, v)
		}
	}
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	wantStatus(t, a.authed("GET", "/api/script-templates?name=small", nil), http.StatusOK)
	// A HEAD sends no body: it is answered, with its ETag.
	head := a.authed("HEAD", "/api/script-templates?name=big", nil)
	if head.status != http.StatusOK || head.header.Get("ETag") == "" {
		t.Errorf("HEAD with the answer budget held: status %d, ETag %q; want 200 with an ETag", head.status, head.header.Get("ETag"))
	}
	// A refused If-Match names no next page either.
	r = a.authed("GET", "/api/script-templates?name=big&limit=1", nil, "If-Match", `"other"`)
	if r.status == http.StatusOK || r.header.Get("Link") != "" || r.header.Get("X-Next-Cursor") != "" {
		t.Errorf("a refused If-Match: status %d, Link %q, X-Next-Cursor %q; want an error without them",
			r.status, r.header.Get("Link"), r.header.Get("X-Next-Cursor"))
	}
	a.srv.answers.give("holder", budget)
	if r := a.authed("GET", "/api/script-templates?name=big", nil); r.status != http.StatusOK {
		t.Fatalf("status %d with the answer budget back, want 200", r.status)
	}

	eventually(t, 10*time.Second, "the answer budget given back", func() bool { return a.srv.answers.inUse() == 0 })
}

// TestReadersThatNeverReadHoldOnlyTheBudget: clients that ask for large
// answers under one credential and never read them hold at most that
// credential's share of the answer budget between them (the kernel's
// socket buffers aside); the others are answered 503 at once, and the
// service answers small reads, and large reads under another credential,
// meanwhile. Before the budget, each such client held its answer,
// encoder's spare room included, until the write timeout: 300 of them
// took the process to 6.3 GB.
func TestReadersThatNeverReadHoldOnlyTheBudget(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.MaxSourceBytes = 256 << 10
	srv, err := NewServer(cfg, openEmbedded(t, cfg), sandbox.NewInProcess(cfg.Sandbox), guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Answers of 1.2 MB, each held by the encoder in up to 2.5 MiB; a
	// budget of six and a share of three, set before any request. The
	// server's socket buffers are small, so that a write blocks as soon as
	// the client stops reading, as the kernel's would past its buffers.
	const answerBytes = 5 << 19
	budget, share := int64(6*answerBytes), int64(3*answerBytes)
	srv.answers = newAnswerBudget(budget, share)
	var started, running atomic.Int64 // requests, and handlers not yet returned
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Add(1)
		running.Add(1)
		defer running.Add(-1)
		srv.ServeHTTP(w, r)
	}))
	ts.Listener = smallSendBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(ts.Close)
	a := &api{t: t, srv: srv, ts: ts, client: ts.Client()}
	controlSources(a, "huge", 2, 200<<10)
	a.create("small", "return 1")

	base := started.Load()
	settledGC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const readers = 20
	conns := make([]net.Conn, 0, readers)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range readers {
		conn, err := net.DialTimeout("tcp", ts.Listener.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.(*net.TCPConn).SetReadBuffer(1024)
		conns = append(conns, conn)
		if _, err := fmt.Fprintf(conn, "GET /api/script-templates?name=huge&limit=1 HTTP/1.1\r\nHost: api\r\nX-API-Key: %s\r\n\r\n", testReadAPIKey); err != nil {
			t.Fatal(err)
		}
	}
	// The handlers encode, and block in their writes or answer 503. Each
	// encodes its answer before it asks the budget, so the heap is
	// measured once every handler that did not get the budget has
	// returned: the share holds at most six answers of at least 1.2 MB
	// (under -race, on a busy machine, 20 encodes took more than a second).
	limit := share + 2*answerBytes
	holders := share / (6 * 200 << 10)
	eventually(t, 60*time.Second, "every reader's handler blocked in its write or returned", func() bool {
		if held := srv.answers.inUse(); held > share {
			t.Fatalf("the answer budget holds %d bytes for one credential, over its share of %d", held, share)
		}
		return started.Load()-base == readers && running.Load() <= holders && srv.answers.inUse() > 0
	})
	settledGC()
	var during runtime.MemStats
	runtime.ReadMemStats(&during)
	growth := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	held := srv.answers.inUse()
	t.Logf("%d readers that never read: heap grew by %d bytes, the answer budget holds %d of %d bytes (a share %d)", readers, growth, held, budget, share)
	if held > share {
		t.Errorf("the answer budget holds %d bytes for one credential, over its share of %d", held, share)
	}
	if growth > limit {
		t.Errorf("the heap grew by %d bytes with %d readers that never read, want at most %d (a share and two answers)", growth, readers, limit)
	}
	wantStatus(t, a.authed("GET", "/api/script-templates?name=small", nil), http.StatusOK)
	// Another credential's large read is sent: the stalled ones hold
	// only their own share.
	if r := a.authed("GET", "/api/script-templates?name=huge&limit=1", nil); r.status != http.StatusOK {
		t.Errorf("a large read under another credential: status %d, want 200", r.status)
	}
	for _, c := range conns {
		_ = c.Close()
	}
	eventually(t, 10*time.Second, "the answer budget given back", func() bool { return srv.answers.inUse() == 0 })
}

// settledGC collects twice: encoding/json keeps its buffers in a
// sync.Pool, which one collection only moves to its victim cache.
func settledGC() {
	runtime.GC()
	runtime.GC()
}

// smallSendBuffers gives each accepted connection a 4 KiB send buffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}
