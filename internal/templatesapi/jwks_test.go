package templatesapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// authenticate runs one request with a bearer token through a.
func authenticate(ctx context.Context, a *Authenticator, token string) error {
	req := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	_, err := a.Authenticate(req)
	return err
}

// Many callers of an unknown kid share one fetch, and callers that give up
// do not cancel it: the fetch runs on the cache's own context.
func TestJWKSFetchIsSingleFlightAndOutlivesItsCallers(t *testing.T) {
	idp := newJWKSServer(t, "k1", testRSAKey(t, 0))
	idp.setMode(jwksHang)
	cfg := jwksConfig(idp, 100*time.Millisecond, time.Hour)
	a := NewAuthenticator(cfg, nil, nil)
	t.Cleanup(a.Close)

	forged := forgedTokens(t)[0]
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := authenticate(ctx, a, forged); err == nil {
				t.Error("a forged kid was accepted")
			}
		})
	}
	select {
	case <-idp.hangs:
	case <-time.After(10 * time.Second):
		t.Fatal("no fetch started")
	}
	cancel() // every caller hangs up
	wg.Wait()
	time.Sleep(100 * time.Millisecond) // a cancelled fetch would end now
	if n := idp.fetches.Load(); n != 1 {
		t.Errorf("20 concurrent callers made %d fetches, want 1", n)
	}
	if idp.hangsEnded.Load() != 0 {
		t.Error("the fetch ended when its callers hung up")
	}
	a.Close() // now it ends
	if idp.hangsEnded.Load() == 0 {
		eventually(t, 5*time.Second, "Close ends the fetch", func() bool { return idp.hangsEnded.Load() == 1 })
	}
	if st := a.JWKSStats(); st.Fetches != 1 || st.Failures != 1 {
		t.Errorf("stats %+v, want the one fetch, failed", st)
	}
}

// The back-off starts when a fetch ends, not when it starts: a slow
// provider cannot be asked again the moment it answers.
func TestJWKSBackOffStartsWhenTheFetchEnds(t *testing.T) {
	idp := newJWKSServer(t, "k1", testRSAKey(t, 0))
	idp.setDelay(300 * time.Millisecond) // slower than the interval
	cfg := jwksConfig(idp, 200*time.Millisecond, time.Hour)
	a := NewAuthenticator(cfg, nil, nil)
	t.Cleanup(a.Close)

	forged := forgedTokens(t)[0]
	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				_ = authenticate(context.Background(), a, forged) // refused; it triggers fetches
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	spans := idp.fetchSpans()
	if len(spans) < 2 {
		t.Fatalf("%d fetches in 2 s", len(spans))
	}
	for i := 1; i < len(spans); i++ {
		if gap := spans[i][0].Sub(spans[i-1][1]); gap < cfg.JWKSMinInterval {
			t.Errorf("fetch %d started %s after fetch %d ended, want at least %s", i+1, gap, i, cfg.JWKSMinInterval)
		}
		if spans[i][0].Before(spans[i-1][1]) {
			t.Errorf("fetches %d and %d overlap", i, i+1)
		}
	}
	st := a.JWKSStats()
	if st.Failures != 0 || st.Keys != 1 || st.FetchedAt.IsZero() || int(st.Fetches) < len(spans)-1 {
		t.Errorf("stats %+v after %d answered fetches", st, len(spans))
	}
}

// Failed fetches are counted in JWKSStats and logged, rate-limited.
func TestJWKSFailuresAreCountedAndLogged(t *testing.T) {
	idp := newJWKSServer(t, "k1", testRSAKey(t, 0))
	idp.setMode(jwksFail)
	cfg := jwksConfig(idp, 100*time.Millisecond, time.Hour)
	a, logs := startLoggedAPI(t, cfg, 0)
	forged := bearerHeader(forgedTokens(t)[0])
	name, value, _ := strings.Cut(forged, ": ")
	eventually(t, 10*time.Second, "three failed fetches", func() bool {
		wantStatus(t, a.do("GET", "/api/script-templates", nil, name, value), http.StatusUnauthorized)
		return a.srv.JWKSStats().Failures >= 3
	})
	failed := logs.records("fetching the JWKS")
	if len(failed) != 1 || failed[0]["level"] != "WARN" || failed[0]["error"] == nil {
		t.Errorf("failed fetches logged as %v, want one warning (rate-limited) with the error", failed)
	}
	idp.setMode(jwksServe)
	eventually(t, 10*time.Second, "a fetch succeeds again", func() bool {
		_ = a.do("GET", "/api/script-templates", nil, name, value)
		return len(logs.records("JWKS fetched again")) == 1
	})
}

// A key the set marks for something else than verifying signatures, by
// "use" or by "key_ops" (RFC 7517 §4.2–4.3), is not used to verify tokens.
func TestJWKSKeepsOnlyVerifyingKeys(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	key := func(kid string, extra map[string]any) map[string]any {
		m := map[string]any{"kty": "RSA", "kid": kid, "n": enc.EncodeToString(k.N.Bytes()), "e": enc.EncodeToString(big.NewInt(int64(k.E)).Bytes())}
		maps.Copy(m, extra)
		return m
	}
	set := map[string]any{"keys": []any{
		key("plain", nil),
		key("sig", map[string]any{"use": "sig"}),
		key("verify", map[string]any{"key_ops": []string{"sign", "verify"}}),
		key("enc", map[string]any{"use": "enc"}),
		key("encrypt", map[string]any{"key_ops": []string{"encrypt"}}),
		key("no-ops", map[string]any{"key_ops": []string{}}),
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(set)
	}))
	defer srv.Close()
	c := newJWKSCache(jwksOptions{url: srv.URL, log: slog.New(slog.DiscardHandler), maxAge: time.Hour, minInterval: time.Second})
	defer c.close()
	keys, err := c.fetch()
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(keys))
	if want := []string{"plain", "sig", "verify"}; !slices.Equal(got, want) {
		t.Errorf("keys kept: %v, want %v", got, want)
	}
}
