package templatesapi

import (
	"bufio"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/flowscript/flowscript/internal/templates/storetest"
)

// The acceptance drills of issue 20, against templatesapi.Run on a loopback
// listener with a JWKS server the test runs.

// jwksConfig is testConfig verifying RS256 tokens with idp's keys.
func jwksConfig(idp *jwksServer, minInterval, maxAge time.Duration) Config {
	cfg := testConfig()
	cfg.JWKSURL = idp.URL()
	cfg.JWKSMinInterval, cfg.JWKSMaxAge = minInterval, maxAge
	return cfg
}

// forgedTokens are validly shaped tokens whose kids no key set holds.
func forgedTokens(t *testing.T) []string {
	var out []string
	for i := range 4 {
		out = append(out, rsToken(t, testRSAKey(t, 3), fmt.Sprintf("forged-%d", i), tokenClaims(DefaultJWTWriteScope)))
	}
	return out
}

// A token signed with a newly published key is accepted within
// AUTH_JWKS_MIN_INTERVAL plus one fetch, while anonymous callers send
// unknown kids and hang up at once, and the flood costs the identity
// provider about one fetch per interval.
func TestRotationHoldsUnderAFloodOfHungUpUnknownKids(t *testing.T) {
	k1, k2 := testRSAKey(t, 0), testRSAKey(t, 1)
	idp := newJWKSServer(t, "k1", k1)
	idp.setDelay(50 * time.Millisecond) // a provider across a network: hung-up callers leave before it answers
	cfg := jwksConfig(idp, 200*time.Millisecond, time.Hour)
	svc := runService(t, cfg)
	old := bearerHeader(rsToken(t, k1, "k1", tokenClaims(DefaultJWTReadScope)))
	eventually(t, 10*time.Second, "the first key is accepted", func() bool {
		status, _ := svc.call("GET", "/api/script-templates", old)
		return status == http.StatusOK
	})

	floodStart := time.Now()
	fetchesBefore := idp.fetches.Load()
	stop := svc.flood(forgedTokens(t))
	time.Sleep(3 * cfg.JWKSMinInterval) // the flood is on before the rotation

	idp.publish(map[string]*rsa.PrivateKey{"k1": k1, "k2": k2})
	rotated := time.Now()
	fresh := bearerHeader(rsToken(t, k2, "k2", tokenClaims(DefaultJWTReadScope)))
	bound := cfg.JWKSMinInterval + jwksFetchTimeout // the documented bound
	eventually(t, bound+5*time.Second, "a token signed with the new key is accepted", func() bool {
		status, _ := svc.call("GET", "/api/script-templates", fresh)
		return status == http.StatusOK
	})
	took := time.Since(rotated)
	sent := stop()
	floodFor := time.Since(floodStart)
	fetches := int(idp.fetches.Load() - fetchesBefore)
	t.Logf("new key accepted %s after it was published (bound %s); %d hung-up requests in %s cost %d fetches",
		took.Round(time.Millisecond), bound, sent, floodFor.Round(time.Millisecond), fetches)
	if sent < 20 {
		t.Errorf("the flood sent only %d requests", sent)
	}
	if limit := int(floodFor/cfg.JWKSMinInterval) + 2; fetches > limit {
		t.Errorf("%d fetches in %s: more than one per AUTH_JWKS_MIN_INTERVAL (%d)", fetches, floodFor, limit)
	}
	if status, _ := svc.call("GET", "/api/script-templates", old); status != http.StatusOK {
		t.Errorf("the first key, still published, answers %d", status)
	}
}

// A key removed from the JWKS stops working within AUTH_JWKS_MAX_AGE even
// when every refresh fails (and anonymous callers flood unknown kids):
// until then the last good set is used; then RS256 tokens are refused and
// the reason and the failures are logged.
func TestRemovedKeyStopsWithinMaxAgeEvenWhenRefreshesFail(t *testing.T) {
	for _, mode := range []jwksMode{jwksFail, jwksHang} {
		name := map[jwksMode]string{jwksFail: "fetches fail", jwksHang: "fetches hang"}[mode]
		t.Run(name, func(t *testing.T) {
			k1 := testRSAKey(t, 0)
			idp := newJWKSServer(t, "k1", k1)
			cfg := jwksConfig(idp, 200*time.Millisecond, 3*time.Second)
			svc := runService(t, cfg)
			leaked := bearerHeader(rsToken(t, k1, "k1", tokenClaims(DefaultJWTReadScope)))
			eventually(t, 10*time.Second, "the key is accepted", func() bool {
				status, _ := svc.call("GET", "/api/script-templates", leaked)
				return status == http.StatusOK
			})
			svc.flood(forgedTokens(t))
			// The flood keeps the set fresh while the provider answers.
			eventually(t, 10*time.Second, "the flood triggers fetches", func() bool { return idp.fetches.Load() >= 3 })

			idp.publish(map[string]*rsa.PrivateKey{"k2": testRSAKey(t, 1)}) // the leaked key is withdrawn...
			idp.setMode(mode)                                               // ...and the provider cannot be reached
			cut := time.Now()
			if mode == jwksFail {
				eventually(t, 5*time.Second, "a failed fetch is logged", func() bool {
					return len(svc.logs.records("fetching the JWKS")) > 0
				})
				// The last good set stays in use while it is young.
				status, _ := svc.call("GET", "/api/script-templates", leaked)
				if since := time.Since(cut); since < cfg.JWKSMaxAge/3 && status != http.StatusOK {
					t.Errorf("%s after the provider failed, within the max age: %d, want the last good set in use", since, status)
				}
			}

			// The last good set was fetched before the cut, so no request
			// that starts max age after the cut may be accepted. A request
			// that finds the set stale waits for the fetch in flight (at
			// most jwksFetchTimeout when it hangs), then is refused.
			var lastAccepted, refusedAfter time.Duration
			eventually(t, cfg.JWKSMaxAge+jwksFetchTimeout+5*time.Second, "the withdrawn key is refused", func() bool {
				sent := time.Since(cut)
				status, msg := svc.call("GET", "/api/script-templates", leaked)
				switch status {
				case http.StatusOK:
					lastAccepted = sent
				case http.StatusUnauthorized:
					if msg != msgUnverifiable {
						t.Errorf("401 message %q, want %q", msg, msgUnverifiable)
					}
					refusedAfter = time.Since(cut)
					return true
				default:
					t.Errorf("the withdrawn key answered %d %s", status, msg)
				}
				return false
			})
			t.Logf("withdrawn key last accepted in a request sent %s after the provider went away, refused %s after (max age %s)",
				lastAccepted.Round(time.Millisecond), refusedAfter.Round(time.Millisecond), cfg.JWKSMaxAge)
			if lastAccepted >= cfg.JWKSMaxAge {
				t.Errorf("the withdrawn key was accepted in a request sent %s after the provider went away, past the max age %s", lastAccepted, cfg.JWKSMaxAge)
			}
			for range 3 {
				if status, _ := svc.call("GET", "/api/script-templates", leaked); status != http.StatusUnauthorized {
					t.Errorf("the withdrawn key answers %d after being refused", status)
				}
			}
			stale := svc.logs.records("refusing RS256 tokens")
			if len(stale) == 0 || stale[0]["level"] != "WARN" || stale[0]["max_age"] != cfg.JWKSMaxAge.String() {
				t.Errorf("the refusal's reason is not logged as a warning: %v", stale)
			} else if n, _ := stale[0]["failures_total"].(float64); n < 1 {
				t.Errorf("the refusal's log line counts %v failed fetches", stale[0]["failures_total"])
			}
			if mode == jwksFail {
				// Logged, but not once per failure.
				failed := svc.logs.records("fetching the JWKS")
				if len(failed) != 1 {
					t.Errorf("%d warnings about failed fetches in one minute, want 1 (rate-limited)", len(failed))
				}
			}
		})
	}
}

// With the provider up, a withdrawn key stops once the set is refreshed,
// well within the max age.
func TestRemovedKeyStopsWhenTheSetIsRefreshed(t *testing.T) {
	k1 := testRSAKey(t, 0)
	idp := newJWKSServer(t, "k1", k1)
	cfg := jwksConfig(idp, 100*time.Millisecond, 4*time.Second) // refreshed when 1 s old
	svc := runService(t, cfg)
	tok := bearerHeader(rsToken(t, k1, "k1", tokenClaims(DefaultJWTReadScope)))
	eventually(t, 10*time.Second, "the key is accepted", func() bool {
		status, _ := svc.call("GET", "/api/script-templates", tok)
		return status == http.StatusOK
	})
	idp.publish(map[string]*rsa.PrivateKey{"k2": testRSAKey(t, 1)})
	withdrawn := time.Now()
	eventually(t, cfg.JWKSMaxAge+5*time.Second, "the withdrawn key is refused", func() bool {
		status, _ := svc.call("GET", "/api/script-templates", tok)
		return status == http.StatusUnauthorized
	})
	t.Logf("withdrawn key refused %s after withdrawal", time.Since(withdrawn).Round(time.Millisecond))
	if n := len(svc.logs.records("refusing RS256 tokens")); n != 0 {
		t.Errorf("the set went stale with the provider up (%d warnings)", n)
	}
}

// A JWKS server that hangs never delays a request whose kid is known: the
// known-kid requests all finish while the fetch is still hanging.
func TestHangingJWKSNeverDelaysAKnownKid(t *testing.T) {
	k1 := testRSAKey(t, 0)
	idp := newJWKSServer(t, "k1", k1)
	cfg := jwksConfig(idp, 100*time.Millisecond, time.Hour)
	svc := runService(t, cfg)
	known := bearerHeader(rsToken(t, k1, "k1", tokenClaims(DefaultJWTReadScope)))
	eventually(t, 10*time.Second, "the key is accepted", func() bool {
		status, _ := svc.call("GET", "/api/script-templates", known)
		return status == http.StatusOK
	})

	idp.setMode(jwksHang)
	stop := svc.flood(forgedTokens(t)[:1]) // one unknown kid, sent again and again
	select {
	case <-idp.hangs:
	case <-time.After(10 * time.Second):
		t.Fatal("no fetch reached the hanging JWKS server")
	}
	var slowest time.Duration
	for range 10 {
		start := time.Now()
		status, msg := svc.call("GET", "/api/script-templates", known)
		if status != http.StatusOK {
			t.Fatalf("known kid during the hang: %d %s", status, msg)
		}
		slowest = max(slowest, time.Since(start))
	}
	stop()
	if idp.hangsEnded.Load() != 0 {
		t.Fatalf("the hanging fetch ended before the known-kid requests did (slowest %s): they may have waited for it", slowest)
	}
	if slowest >= jwksFetchTimeout/2 {
		t.Errorf("the slowest known-kid request took %s during the hang", slowest)
	}
	t.Logf("10 known-kid requests during a hanging fetch: slowest %s", slowest.Round(time.Microsecond))
}

// Claim refusals are 401; a read-only role cannot create or delete (403).
func TestClaimsAndRolesOnTheRunningService(t *testing.T) {
	k1 := testRSAKey(t, 0)
	idp := newJWKSServer(t, "k1", k1)
	svc := runService(t, jwksConfig(idp, 100*time.Millisecond, time.Hour))
	write := tokenClaims(DefaultJWTWriteScope)
	now := time.Now()
	hs := func(c jwt.MapClaims, header ...any) string {
		return bearerHeader(hsToken(t, testJWTSecret, c, header...))
	}
	rs := func(c jwt.MapClaims) string { return bearerHeader(rsToken(t, k1, "k1", c)) }
	for name, cred := range map[string]string{
		"wrong audience":          hs(with(write, "aud", "another-application")),
		"wrong audience (RS256)":  rs(with(write, "aud", "another-application")),
		"wrong issuer":            hs(with(write, "iss", "https://other.example.com/")),
		"wrong issuer (RS256)":    rs(with(write, "iss", "https://other.example.com/")),
		"missing sub":             hs(with(write, "sub", nil)),
		"missing sub (RS256)":     rs(with(write, "sub", nil)),
		"future iat":              hs(with(write, "iat", now.Add(time.Hour).Unix())),
		"crit header":             hs(write, "crit", []string{"b64"}),
		"string exp":              hs(with(write, "exp", fmt.Sprint(now.Add(time.Hour).Unix()))),
		"string exp (RS256)":      rs(with(write, "exp", fmt.Sprint(now.Add(time.Hour).Unix()))),
		"missing exp":             hs(with(write, "exp", nil)),
		"no credentials":          "",
		"API key of another kind": "X-API-Key: " + strings.Repeat("z", 24),
	} {
		for _, call := range [][2]string{{"GET", "/api/script-templates"}, {"POST", "/api/script-templates"}} {
			if status, msg := svc.call(call[0], call[1], cred, `{"name":"x","source":"return 1"}`); status != http.StatusUnauthorized {
				t.Errorf("%s: %s %s answered %d %q, want 401", name, call[0], call[1], status, msg)
			}
		}
	}

	status, _ := svc.call("POST", "/api/script-templates", "X-API-Key: "+testAPIKey, `{"name":"kept","source":"return 1"}`)
	if status != http.StatusCreated {
		t.Fatalf("create with the write key: %d", status)
	}
	list := "/api/script-templates"
	var id string
	{
		req, _ := http.NewRequest("GET", svc.base+list, nil)
		req.Header.Set("X-API-Key", testAPIKey)
		resp, err := svc.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close() // read
		_, rest, _ := strings.Cut(string(raw), `"id":"`)
		id, _, _ = strings.Cut(rest, `"`)
	}
	for name, reader := range map[string]string{
		"read scope":        rs(tokenClaims(DefaultJWTReadScope)),
		"read scope, HS256": hs(tokenClaims(DefaultJWTReadScope)),
		"read-only API key": "X-API-Key: " + testReadAPIKey,
	} {
		if status, msg := svc.call("GET", list, reader); status != http.StatusOK {
			t.Errorf("%s: list answered %d %q", name, status, msg)
		}
		if status, _ := svc.call("POST", list, reader, `{"name":"not allowed","source":"return 1"}`); status != http.StatusForbidden {
			t.Errorf("%s: create answered %d, want 403", name, status)
		}
		if status, _ := svc.call("DELETE", list+"/"+id, reader); status != http.StatusForbidden {
			t.Errorf("%s: delete answered %d, want 403", name, status)
		}
	}
	writer := rs(write)
	if status, _ := svc.call("POST", list, writer, `{"name":"by a writer","source":"return 1"}`); status != http.StatusCreated {
		t.Errorf("write scope: create answered %d", status)
	}
	if status, _ := svc.call("DELETE", list+"/"+id, writer); status != http.StatusNoContent {
		t.Errorf("write scope: delete answered %d", status)
	}
}

// 3,000 idle connections do not stop an authenticated client from being
// served: at TEMPLATES_MAX_CONNS (64 here) each new connection closes the
// longest-idle one, so the server holds at most 64 and the client's new
// connection is admitted.
func TestIdleConnectionsDoNotLockOutAClient(t *testing.T) {
	const idle = 3000
	cfg := testConfig()
	cfg.MaxConns = 64
	svc := runService(t, cfg)

	conns := make([]net.Conn, 0, idle)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close() // the test's own connections
		}
	})
	for i := range idle {
		c, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			continue // never sends a byte
		}
		// An anonymous keep-alive connection: one probe, then idle.
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n"); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		_ = resp.Body.Close() // a tiny body, read by ReadResponse's buffer
	}

	start := time.Now()
	status, msg := svc.call("GET", "/api/script-templates", "X-API-Key: "+testAPIKey)
	if status != http.StatusOK {
		t.Fatalf("with %d idle connections open, the authenticated client got %d %s", idle, status, msg)
	}
	t.Logf("served in %s with %d idle connections opened", time.Since(start).Round(time.Millisecond), idle)

	// The cap: the server closed all but at most MaxConns of them.
	var closed atomic.Int64
	open := conns
	eventually(t, 10*time.Second, "the server holds at most TEMPLATES_MAX_CONNS connections", func() bool {
		var still []net.Conn
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, c := range open {
			wg.Go(func() {
				_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
				if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) || isReset(err) {
					closed.Add(1)
					return
				}
				mu.Lock()
				still = append(still, c)
				mu.Unlock()
			})
		}
		wg.Wait()
		open = still
		return len(open) <= cfg.MaxConns
	})
	t.Logf("the server closed %d of the %d idle connections; %d still open (cap %d)", closed.Load(), idle, len(open), cfg.MaxConns)
	if evicted := svc.logs.records("connection limit reached"); len(evicted) != 1 {
		t.Errorf("%d warnings about the connection limit, want 1 (rate-limited)", len(evicted))
	}
}

// TestTrickledBodiesAreAnsweredAtOnce: a request whose body comes a byte
// at a time is refused (401 without credentials, 403 for a reader) at
// once, on a connection that then closes; net/http read up to 256 KB of
// the unread body first, so each such caller held its answer and a
// connection for the whole read timeout (35 s), and TEMPLATES_MAX_CONNS of
// them locked every caller out. A body read to its end keeps the
// connection alive.
func TestTrickledBodiesAreAnsweredAtOnce(t *testing.T) {
	svc := runService(t, testConfig())
	for _, c := range []struct {
		name, header string
		want         int
	}{
		{"anonymous", "", http.StatusUnauthorized},
		{"reader on a write route", "X-API-Key: " + testReadAPIKey + "\r\n", http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close() //nolint:errcheck // the test's own
			if _, err := io.WriteString(conn, "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\n"+
				c.header+"Content-Length: 100000\r\n\r\n{\"source\":\""); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go trickle(conn, stop)
			start := time.Now()
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer after %s: %v", time.Since(start), err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != c.want || !resp.Close {
				t.Errorf("got %d (closing: %v) after %s, want %d on a connection that closes", resp.StatusCode, resp.Close, time.Since(start), c.want)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the answer took %s: the server waited for the body", took)
			}
			// And the server lets the connection go: it read the rest of
			// the trickle until its read timeout, the connection busy all
			// that while.
			answered := time.Now()
			_, err = br.ReadByte()
			if !errors.Is(err, io.EOF) && !isReset(err) {
				t.Errorf("after the answer the connection gave %v, want it closed by the server", err)
			} else if held := time.Since(answered); held > 10*time.Second {
				t.Errorf("the server held the connection %s after answering", held)
			}
		})
	}
	t.Run("a body declared over the limit is refused before it is sent", func(t *testing.T) {
		conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // the test's own
		if _, err := fmt.Fprintf(conn, "POST /api/script-templates HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nX-API-Key: %s\r\nContent-Length: 10000000000\r\nExpect: 100-continue\r\n\r\n",
			testAPIKey); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge { // not 100 Continue
			t.Fatalf("status %d, want 413 before the body", resp.StatusCode)
		}
	})
	t.Run("a body read to its end keeps the connection", func(t *testing.T) {
		conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // the test's own
		br := bufio.NewReader(conn)
		body := `{"source":"return 1"}`
		for i := range 2 {
			if _, err := fmt.Fprintf(conn, "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nX-API-Key: %s\r\nContent-Length: %d\r\n\r\n%s",
				testAPIKey, len(body), body); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("request %d: %d (closing: %v), want 200 on a kept connection", i+1, resp.StatusCode, resp.Close)
			}
		}
	})
}

// trickle writes a byte of body to conn every 100 ms until stop is closed
// or a write fails.
func trickle(conn net.Conn, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(100 * time.Millisecond):
			if _, err := io.WriteString(conn, "a"); err != nil {
				return
			}
		}
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// pingCounter forwards TCP to PostgreSQL and counts the pgx pings ("--
// ping" simple queries) the service sends.
type pingCounter struct {
	ln     net.Listener
	target string
	pings  atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func startPingCounter(t *testing.T, dbURL string) (string, *pingCounter) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pingCounter{ln: ln, target: u.Host}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = ln.Close() // ends accept
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close() // the pipes end with them
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	u.Host = ln.Addr().String()
	return u.String(), p
}

func (p *pingCounter) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close() // refusing
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(up, c, true) })
		p.wg.Go(func() { p.pipe(c, up, false) })
	}
}

func (p *pingCounter) pipe(dst, src net.Conn, count bool) {
	defer func() { _ = dst.Close(); _ = src.Close() }() // one side ended: tear down both
	buf := make([]byte, 32<<10)
	var tail []byte
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if count {
				chunk := make([]byte, 0, len(tail)+n)
				chunk = append(append(chunk, tail...), buf[:n]...)
				p.pings.Add(int64(strings.Count(string(chunk), "-- ping")))
				tail = append([]byte(nil), chunk[max(0, len(chunk)-6):]...) // "-- ping" split across reads
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// /readyz hit in a loop, by several callers at once, reaches the database
// at most once per readyCacheFor. pgxpool adds a health-check ping when it
// hands out a connection idle for over a second, so one readiness check
// is at most two pings on the wire.
func TestReadyzReachesTheStoreAtMostOncePerInterval(t *testing.T) {
	dbURL, counter := startPingCounter(t, storetest.PostgresSchemaURL(t))
	cfg := testConfig()
	cfg.DatabaseURL = dbURL
	svc := runService(t, cfg)

	before := counter.pings.Load()
	start := time.Now()
	var probes, notReady atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for time.Since(start) < 2500*time.Millisecond {
				status, _ := svc.call("GET", "/readyz", "")
				probes.Add(1)
				if status != http.StatusOK {
					notReady.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	pings := counter.pings.Load() - before
	checks := int64(elapsed/readyCacheFor) + 1 // one per interval, counting the first
	t.Logf("%d /readyz answers in %s reached PostgreSQL with %d pings (at most %d checks of up to 2 pings)",
		probes.Load(), elapsed.Round(time.Millisecond), pings, checks)
	if probes.Load() < 50 {
		t.Errorf("only %d probes answered: the loop did not load the probe", probes.Load())
	}
	if notReady.Load() > 0 {
		t.Errorf("%d probes answered not ready", notReady.Load())
	}
	if pings > 2*checks {
		t.Errorf("%d pings for %d probes in %s: more than one check per %s", pings, probes.Load(), elapsed, readyCacheFor)
	}
	if pings == 0 {
		t.Error("no ping reached PostgreSQL through the counter: the test measures nothing")
	}
}

// TestOneWriteKeyTricklingBodiesHoldsAQuarterOfTheConnections: a write
// key that opens TEMPLATES_MAX_CONNS connections and trickles a save's body
// on each has at most a quarter of them read; the rest are answered 503
// SERVICE_BUSY at once, unread, on connections that close, and the probes
// and other credentials are answered meanwhile. Before, each trickled body
// held its connection busy for the read timeout, and the connection limit
// never closes a busy one: /healthz went unanswered for 35 s a round.
func TestOneWriteKeyTricklingBodiesHoldsAQuarterOfTheConnections(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns = 16
	svc := runService(t, cfg)
	share := cfg.MaxConns / bodyShareParts

	stop := make(chan struct{})
	var wg sync.WaitGroup
	statuses := make(chan int, cfg.MaxConns)
	for range cfg.MaxConns {
		conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(conn, "POST /api/script-templates HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nX-API-Key: %s\r\nContent-Length: 60000\r\n\r\n{\"name\":\"", // a small body: the body budget always admits it
			testAPIKey); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer conn.Close() //nolint:errcheck // the test's own
			trickle(conn, stop)
		})
		wg.Go(func() { // the answer, if any comes before stop
			_ = conn.SetReadDeadline(time.Now().Add(8 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			var netErr net.Error
			switch {
			case errors.As(err, &netErr) && netErr.Timeout():
				statuses <- 0 // still being read
				return
			case err != nil:
				statuses <- -1 // closed unanswered: the connection limit's refusal
				return
			}
			_ = resp.Body.Close()
			if !resp.Close {
				t.Errorf("answer %d on a connection kept open, want it closed", resp.StatusCode)
			}
			statuses <- resp.StatusCode
		})
	}
	// Meanwhile the service answers the probes and the other credentials.
	eventually(t, 10*time.Second, "/healthz answered", func() bool {
		status, _ := svc.call("GET", "/healthz", "")
		return status == http.StatusOK
	})
	// A save's connection can close unanswered, and unread: a keep-alive
	// connection that the limit evicted as idle when the server accepted a
	// trickle late, or a new one refused while the trickles answered 503
	// still hold theirs (net/http lingers before closing them). The client
	// sends it again then, as one does when a connection closes without an
	// answer; the share must leave a connection for it within the trickles.
	var status int
	var msg string
	eventually(t, 5*time.Second, "a save under another key answered", func() bool {
		status, msg = svc.call("POST", "/api/script-templates", "X-API-Key: second-key-0123456789abcdef",
			`{"name": "while-trickled", "source": "return 1"}`)
		return status != 0
	})
	if status != http.StatusCreated {
		t.Errorf("a save under another key while one key trickles: %d %s, want 201", status, msg)
	}
	busy, unanswered, refused := 0, 0, 0
	for range cfg.MaxConns {
		switch status := <-statuses; status {
		case http.StatusServiceUnavailable:
			busy++
		case 0:
			unanswered++
		case -1:
			refused++
		default:
			t.Errorf("a trickled save answered %d, want 503 or no answer while it trickles", status)
		}
	}
	t.Logf("%d trickled saves under one key: %d read (no answer yet), %d refused with 503, %d closed by the connection limit", cfg.MaxConns, unanswered, busy, refused)
	if unanswered > share {
		t.Errorf("%d trickled bodies read at once under one key, want at most %d (a quarter of TEMPLATES_MAX_CONNS %d)", unanswered, share, cfg.MaxConns)
	}
	// With the trickles gone, the key's saves are read again.
	close(stop)
	wg.Wait()
	eventually(t, 10*time.Second, "a save under the key that trickled", func() bool {
		status, _ := svc.call("POST", "/api/script-templates", "X-API-Key: "+testAPIKey, `{"name": "after-trickles", "source": "return 1"}`)
		return status == http.StatusCreated
	})
}

// TestTrickledTestRunHoldsNoSandboxSlot: a test run whose body trickles in
// takes its sandbox slot only once its body is read, so it does not keep
// other authors' test runs out (429 SANDBOX_BUSY) for the read timeout.
// Before, the slot was taken first: with the one test slot of
// SANDBOX_MAX_PARALLEL 2, one trickle refused every test run for 35 s.
func TestTrickledTestRunHoldsNoSandboxSlot(t *testing.T) {
	cfg := testConfig()
	if slots := testRunSlots(cfg.Sandbox.MaxParallel); slots != 1 {
		t.Fatalf("testConfig gives %d test slots; the test wants 1", slots)
	}
	svc := runService(t, cfg)
	conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	if _, err := fmt.Fprintf(conn, "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nX-API-Key: %s\r\nContent-Length: 60000\r\n\r\n{\"source\":\"",
		testAPIKey); err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		defer conn.Close() //nolint:errcheck // the test's own
		trickle(conn, stop)
	})
	time.Sleep(300 * time.Millisecond) // the trickle's request is in its handler, reading
	for _, key := range []string{"second-key-0123456789abcdef", testAPIKey} {
		status, msg := svc.call("POST", "/api/scripts/test", "X-API-Key: "+key, `{"source": "return 'ran'"}`)
		if status != http.StatusOK {
			t.Errorf("a test run beside a trickled one (key %.6s…): %d %s, want 200", key, status, msg)
		}
	}
}

// TestNetHTTPOwnAnswersAreJSON: the requests net/http refuses before any
// handler runs (a missing or bad Host, a bad header, headers past its
// read limit, an unknown Transfer-Encoding, an HTTP version it does not
// speak, a line that is not HTTP, an Expect other than 100-continue) and
// the targets that are not a path (HTTP/2's preface) are answered in the
// API's JSON error shape, with their status, on a connection that closes.
// net/http wrote them in plain text, or with an empty body.
func TestNetHTTPOwnAnswersAreJSON(t *testing.T) {
	svc := runService(t, testConfig())
	for _, c := range []struct {
		name, request string
		status        int
		code, says    string
	}{
		{"no Host", "GET /api/script-templates HTTP/1.1\r\n\r\n", 400, CodeBadRequest, "missing required Host header"},
		{"bad Host", "GET /api/script-templates HTTP/1.1\r\nHost: a b\r\n\r\n", 400, CodeBadRequest, "malformed Host header"},
		{"bad header name", "GET /healthz HTTP/1.1\r\nHost: api\r\nBad Name: x\r\n\r\n", 400, CodeBadRequest, "not valid HTTP"},
		{"not HTTP", "HELLO\r\n\r\n", 400, CodeBadRequest, "check its request line"},
		{"headers past the read limit", "GET /healthz HTTP/1.1\r\nHost: api\r\nX-Big: " + strings.Repeat("a", 60<<10) + "\r\n\r\n", 431, CodeHeadersTooLarge, "fewer headers"},
		{"unknown Transfer-Encoding", "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: gzip\r\n\r\n", 501, CodeNotImplemented, "Transfer-Encoding"},
		{"HTTP/3.0", "GET /healthz HTTP/3.0\r\nHost: api\r\n\r\n", 505, CodeHTTPVersionNotSupported, "HTTP/1.1"},
		{"an Expect other than 100-continue", "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", 417, CodeExpectationFailed, "without it"},
		{"HTTP/2's preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, CodeBadRequest, "HTTP/2 without TLS"},
		{"a * target", "GET * HTTP/1.1\r\nHost: api\r\n\r\n", 400, CodeBadRequest, "not a path"},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: api\r\n\r\n", 400, CodeBadRequest, "not a path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close() //nolint:errcheck // the test's own
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, c.request); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			var e errorBody
			if resp.StatusCode != c.status || !resp.Close || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || json.Unmarshal(raw, &e) != nil {
				t.Fatalf("%d %q (closing: %v) %s, want %d in JSON on a connection that closes", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Close, raw, c.status)
			}
			if e.Error.Code != c.code || !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("error %+v, want code %s and a message that says %q", e.Error, c.code, c.says)
			}
		})
	}
}

// TestChunkedRequestClosesItsConnection: a request with a chunked body
// (here with a Content-Length beside it, which net/http drops) is answered
// on a connection that closes, so nothing sent behind it on that
// connection is read as a request of its own (RFC 9112 §6.3).
func TestChunkedRequestClosesItsConnection(t *testing.T) {
	svc := runService(t, testConfig())
	conn, err := net.DialTimeout("tcp", svc.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close() //nolint:errcheck // the test's own
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	body := `{"source":"return 1"}`
	if _, err := fmt.Fprintf(conn, "POST /api/scripts/test HTTP/1.1\r\nHost: api\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: api\r\n\r\n",
		testAPIKey, len(body), body); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("the chunked test run: %d (closing: %v), want 200 on a connection that closes", resp.StatusCode, resp.Close)
	}
	if second, err := http.ReadResponse(br, nil); err == nil {
		t.Errorf("the request sent behind the chunked one was answered (%d): the connection stayed open", second.StatusCode)
	}
}
