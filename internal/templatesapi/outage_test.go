package templatesapi

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/templates/storetest"
	"github.com/flowscript/flowscript/internal/testenv"
)

// cutProxy forwards TCP to PostgreSQL until Cut, which drops every
// connection and refuses new ones, as a database restart or a network
// partition would; Restore lets connections through again. It stands
// between the API and the machine's PostgreSQL so the outage disturbs no
// other test.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = ln.Close() // ends accept; its error says nothing about the test
		p.Cut()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			_ = c.Close() // refusing the connection
			continue
		}
		up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = c.Close() // refusing the connection
			continue
		}
		if !p.track(c, up) {
			continue
		}
		p.wg.Go(func() { p.pipe(c, up) })
		p.wg.Go(func() { p.pipe(up, c) })
	}
}

func (p *cutProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		for _, c := range conns {
			_ = c.Close() // refusing the connection
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	io.Copy(dst, src) //nolint:errcheck // a cut ends the copy
	_ = dst.Close()   // one side ended: tear down both
	_ = src.Close()
}

// Cut drops every connection and refuses new ones.
func (p *cutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close() // cutting: the connection is meant to fail
	}
	clear(p.conns)
}

// Restore lets connections through again.
func (p *cutProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// viaProxy rewrites a PostgreSQL URL to go through the proxy.
func viaProxy(t *testing.T, raw string) (string, *cutProxy) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := startCutProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	return u.String(), p
}

func TestPostgresOutageIs503ThenRecoversWithoutRestart(t *testing.T) {
	cfg := testConfig()
	dbURL, proxy := viaProxy(t, storetest.PostgresSchemaURL(t))
	a := startAPI(t, cfg, openPostgresURL(t, cfg, dbURL), nil)
	before := a.create("before the outage", "return 1")

	proxy.Cut()
	for _, call := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/script-templates", nil},
		{"GET", "/api/script-templates/" + before.ID.String(), nil},
		{"POST", "/api/script-templates", map[string]string{"name": "during", "source": "return 2"}},
		{"PUT", "/api/script-templates/" + before.ID.String(), map[string]string{"name": "during", "source": "return 2"}},
		{"DELETE", "/api/script-templates/" + before.ID.String(), nil},
	} {
		start := time.Now()
		r := a.authed(call.method, call.path, call.body)
		if r.status != http.StatusServiceUnavailable {
			t.Errorf("%s %s during the outage: %d %s, want 503", call.method, call.path, r.status, r.raw)
			continue
		}
		if e := r.apiErr(t); e.Code != CodeStoreUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("%s %s: %+v, Retry-After %q", call.method, call.path, e, r.header.Get("Retry-After"))
		}
		if took := time.Since(start); took > storeTimeout {
			t.Errorf("%s %s took %s to fail", call.method, call.path, took)
		}
	}
	wantStatus(t, a.do("GET", "/readyz", nil), http.StatusServiceUnavailable)
	// Test runs do not need the store.
	if r, out := a.testRun(map[string]any{"source": "return 'still testing'"}); r.status != http.StatusOK || !out.OK {
		t.Errorf("test run during the outage: %d %s", r.status, r.raw)
	}

	proxy.Restore()
	eventually(t, 15*time.Second, "the API answers again after PostgreSQL is back", func() bool {
		return a.authed("GET", "/api/script-templates", nil).status == http.StatusOK
	})
	// The probe's answer is cached for readyCacheFor.
	eventually(t, readyCacheFor+5*time.Second, "/readyz answers ready again", func() bool {
		return a.do("GET", "/readyz", nil).status == http.StatusOK
	})
	list := a.list()
	if len(list) != 1 || list[0].ID != before.ID || list[0].Name != "before the outage" {
		t.Errorf("after the outage the store holds %+v: the failed writes must have written nothing", list)
	}
	a.create("after the outage", "return 3")
}

// The embedded store closed under the server (a disk gone bad, a shutdown
// race) is a 503 too, never a 500 with internals.
func TestEmbeddedStoreClosedIs503(t *testing.T) {
	cfg := testConfig()
	store := openEmbedded(t, cfg)
	a := startAPI(t, cfg, store, nil)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	r := a.authed("GET", "/api/script-templates", nil)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := r.apiErr(t); e.Code != CodeStoreUnavailable {
		t.Errorf("%+v", e)
	}
}

// A real restart of a real PostgreSQL server (a private one: the machine's
// is shared with other tests): requests during the stop answer 503, and the
// same API process serves again once the server is back.
func TestPostgresRestartIs503ThenRecoversWithoutRestart(t *testing.T) {
	pg := testenv.StartPostgresServer(t)
	cfg := testConfig()
	a := startAPI(t, cfg, openPostgresURL(t, cfg, pg.URL()), nil)
	before := a.create("before the restart", "return 1")

	pg.Stop()
	r := a.authed("GET", "/api/script-templates", nil)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := r.apiErr(t); e.Code != CodeStoreUnavailable {
		t.Errorf("GET during the restart: %+v", e)
	}
	wantStatus(t, a.authed("POST", "/api/script-templates", map[string]string{"name": "during", "source": "return 2"}),
		http.StatusServiceUnavailable)

	pg.Start()
	eventually(t, 15*time.Second, "the API answers again after PostgreSQL restarted", func() bool {
		return a.authed("GET", "/api/script-templates", nil).status == http.StatusOK
	})
	list := a.list()
	if len(list) != 1 || list[0].ID != before.ID {
		t.Errorf("after the restart the store holds %+v: the refused write must have written nothing", list)
	}
	a.create("after the restart", "return 3")
}
