package templatesapi

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// issuer signs RS256 tokens and serves its keys as a JWKS.
type issuer struct {
	key     *rsa.PrivateKey
	kid     string
	ts      *httptest.Server
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key, kid: "key-1"}
	is.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		is.fetches.Add(1)
		enc := base64.RawURLEncoding
		// A failed write shows up as the client's fetch error.
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{
			{"kty": "EC", "kid": "ignored", "crv": "P-256"},
			{"kty": "RSA", "kid": is.kid, "use": "sig", "alg": "RS256",
				"n": enc.EncodeToString(key.N.Bytes()), "e": enc.EncodeToString(big.NewInt(int64(key.E)).Bytes())},
		}})
	}))
	t.Cleanup(is.ts.Close)
	return is
}

func claims(exp time.Duration) jwt.RegisteredClaims {
	now := time.Now()
	return jwt.RegisteredClaims{Subject: "author@example.com", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(exp))}
}

func hsToken(t *testing.T, secret string, c jwt.Claims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rsToken(t *testing.T, key *rsa.PrivateKey, kid string, c jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuthentication(t *testing.T) {
	is := newIssuer(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.JWKSURL = is.ts.URL
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)

	noneToken, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims(time.Hour)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	// A token signed with the HS256 secret... where the secret is the
	// issuer's public key: the classic algorithm confusion.
	confused := hsToken(t, string(is.key.N.Bytes()), claims(time.Hour))
	noExp := hsToken(t, testJWTSecret, jwt.RegisteredClaims{Subject: "x"})

	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	tests := []struct {
		name    string
		header  []string
		status  int
		mention string
	}{
		{"no credentials", nil, 401, "authentication required"},
		{"wrong API key", []string{"X-API-Key", "wrong-key-0123456789abcdef"}, 401, "API key is not valid"},
		{"API key prefix", []string{"X-API-Key", testAPIKey[:10]}, 401, "API key is not valid"},
		{"empty API key", []string{"X-API-Key", ""}, 401, "API key is not valid"},
		{"expired HS256", bearer(hsToken(t, testJWTSecret, claims(-time.Hour))), 401, "expired"},
		{"bad HS256 signature", bearer(hsToken(t, "another-secret-0123456789abcdef-0123", claims(time.Hour))), 401, "signature"},
		{"no exp", bearer(noExp), 401, "exp"},
		{"alg none", bearer(noneToken), 401, "signature"},
		{"algorithm confusion", bearer(confused), 401, "signature"},
		{"not a JWT", bearer("not.a.jwt"), 401, "well-formed"},
		{"basic scheme", []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "Bearer <token>"},
		{"expired RS256", bearer(rsToken(t, is.key, is.kid, claims(-time.Minute))), 401, "expired"},
		{"RS256 from another key", bearer(rsToken(t, other, is.kid, claims(time.Hour))), 401, "signature"},
		{"RS256 unknown kid", bearer(rsToken(t, is.key, "key-2", claims(time.Hour))), 401, `kid "key-2"`},
		{"good key with a bad token", append([]string{"X-API-Key", testAPIKey}, bearer("garbage")...), 401, "well-formed"},
		{"good API key", []string{"X-API-Key", testAPIKey}, 200, ""},
		{"second API key", []string{"X-API-Key", "second-key-0123456789abcdef"}, 200, ""},
		{"good HS256", bearer(hsToken(t, testJWTSecret, claims(time.Hour))), 200, ""},
		{"lowercase scheme", []string{"Authorization", "bearer " + hsToken(t, testJWTSecret, claims(time.Hour))}, 200, ""},
		{"good RS256 via JWKS", bearer(rsToken(t, is.key, is.kid, claims(time.Hour))), 200, ""},
		{"RS256 without kid, one key in the set", bearer(rsToken(t, is.key, "", claims(time.Hour))), 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do("GET", "/api/script-templates", nil, tt.header...)
			wantStatus(t, r, tt.status)
			if tt.status != 401 {
				return
			}
			e := r.apiErr(t)
			if e.Code != CodeUnauthenticated || !strings.Contains(e.Message, tt.mention) {
				t.Errorf("error %+v, want %s mentioning %q", e, CodeUnauthenticated, tt.mention)
			}
			if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
	// Unknown kids do not make every request fetch the key set again.
	if n := is.fetches.Load(); n > 2 {
		t.Errorf("the JWKS was fetched %d times; an unknown kid must not trigger a fetch per request", n)
	}
}

func TestEveryRouteRequiresAuthentication(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	var public []string
	for _, rt := range a.srv.routes() {
		path := strings.ReplaceAll(rt.path, "{id}", uuid.NewString())
		if rt.public {
			public = append(public, rt.method+" "+rt.path)
			wantStatus(t, a.do(rt.method, path, nil), http.StatusOK)
			continue
		}
		for _, header := range [][]string{nil, {"X-API-Key", "nope-nope-nope-nope"}, {"Authorization", "Bearer x"}} {
			r := a.do(rt.method, path, `{"name":"x","source":"return 1"}`, header...)
			if r.status != http.StatusUnauthorized {
				t.Errorf("%s %s with %v: status %d, want 401: %s", rt.method, path, header, r.status, r.raw)
				continue
			}
			if e := r.apiErr(t); e.Code != CodeUnauthenticated {
				t.Errorf("%s %s: code %s", rt.method, path, e.Code)
			}
		}
	}
	// Only the probes are public, and deliberately.
	if got := strings.Join(public, ", "); got != "GET /healthz, GET /readyz" {
		t.Errorf("public routes: %s, want only the probes", got)
	}
	// Nothing else answers anonymously either: unknown paths, wrong
	// methods, the probes with another method.
	for _, call := range [][2]string{
		{"GET", "/"}, {"GET", "/api"}, {"GET", "/api/unknown"}, {"PATCH", "/api/script-templates"},
		{"POST", "/healthz"}, {"GET", "/api/../healthz"}, {"OPTIONS", "/api/scripts/test"},
	} {
		r := a.do(call[0], call[1], nil)
		if r.status != http.StatusUnauthorized {
			t.Errorf("anonymous %s %s: status %d, want 401", call[0], call[1], r.status)
		}
	}
}

func TestAuthenticatorRefreshesTheKeySetWhenAKeyRotates(t *testing.T) {
	is := newIssuer(t)
	cfg := testConfig()
	cfg.JWKSURL = is.ts.URL
	auth := NewAuthenticator(cfg, is.ts.Client())
	now := time.Now()
	auth.jwks.now = func() time.Time { return now }

	check := func(kid string, want bool) {
		t.Helper()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Bearer "+rsToken(t, is.key, kid, claims(time.Hour)))
		_, err := auth.Authenticate(req)
		if (err == nil) != want {
			t.Errorf("kid %q: err %v, want ok=%v", kid, err, want)
		}
	}
	check("key-1", true)
	is.kid = "key-2"      // the issuer rotates
	check("key-2", false) // within jwksMinRefresh of the last fetch: no refetch
	now = now.Add(jwksMinRefresh)
	check("key-2", true)
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}
