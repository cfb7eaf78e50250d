package templatesapi

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

func TestAuthentication(t *testing.T) {
	key := testRSAKey(t, 0)
	is := newJWKSServer(t, "key-1", key)
	cfg := testConfig()
	cfg.JWKSURL = is.URL()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)

	write := tokenClaims(DefaultJWTWriteScope)
	noneToken, err := jwt.NewWithClaims(jwt.SigningMethodNone, write).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	// A token signed with the HS256 secret... where the secret is the
	// issuer's public key: the classic algorithm confusion.
	confused := hsToken(t, string(key.N.Bytes()), write)

	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	hs := func(c jwt.MapClaims) []string { return bearer(hsToken(t, testJWTSecret, c)) }
	tests := []struct {
		name    string
		header  []string
		status  int
		mention string
	}{
		{"no credentials", nil, 401, "authentication required"},
		{"wrong API key", []string{"X-API-Key", "wrong-key-0123456789abcdef"}, 401, msgBadKey},
		{"API key prefix", []string{"X-API-Key", testAPIKey[:10]}, 401, msgBadKey},
		{"API key with its role suffix", []string{"X-API-Key", testReadAPIKey + ":read"}, 401, msgBadKey},
		{"empty API key", []string{"X-API-Key", ""}, 401, msgBadKey},
		{"expired HS256", hs(with(write, "exp", time.Now().Add(-time.Hour).Unix())), 401, "expired"},
		{"exp of 0, 1970", hs(with(write, "exp", 0)), 401, "has expired"},
		{"bad HS256 signature", bearer(hsToken(t, "another-secret-0123456789abcdef-0123", write)), 401, msgUnverifiable},
		{"no exp", hs(with(write, "exp", nil)), 401, "no exp claim"},
		{"string exp", hs(with(write, "exp", "9999999999")), 401, "must be numbers"},
		{"exp past the year 9999", hs(with(write, "exp", 9.3e18)), 401, "out of range"},
		{"exp in milliseconds", hs(with(write, "exp", 1e12)), 401, "out of range"},
		{"exp at the start of year 10000", hs(with(write, "exp", 253402300800)), 401, "out of range"},
		{"exp just under 2^63", hs(with(write, "exp", 9.2e18)), 401, "out of range"},
		{"no sub", hs(with(write, "sub", nil)), 401, "no sub claim"},
		{"empty sub", hs(with(write, "sub", "")), 401, "no sub claim"},
		{"blank sub", hs(with(write, "sub", "   ")), 401, "no sub claim"},
		{"sub of a tab and a newline", hs(with(write, "sub", "\t\n")), 401, "no sub claim"},
		{"sub of a zero-width space", hs(with(write, "sub", "\u200b")), 401, "no sub claim"},
		{"sub of a no-break space and a joiner", hs(with(write, "sub", "\u00a0\u2060")), 401, "no sub claim"},
		{"numeric sub", hs(with(write, "sub", 42)), 401, "wrong type"},
		// As the tenant claim's: an element the role would skip is refused.
		{"scope array with a number", hs(with(write, "scope", []any{DefaultJWTWriteScope, 1})), 401, "scope claim must be"},
		{"scope array with an object", hs(with(write, "scope", []any{map[string]any{}, DefaultJWTReadScope})), 401, "scope claim must be"},
		{"future iat", hs(with(write, "iat", time.Now().Add(time.Minute).Unix())), 401, "not valid yet"},
		{"future nbf", hs(with(write, "nbf", time.Now().Add(time.Minute).Unix())), 401, "not valid yet"},
		// Past int64 seconds: the library's conversion wrapped to the past.
		{"nbf past year 9999", hs(with(write, "nbf", 1e19)), 401, "not valid yet"},
		{"iat far past year 9999", hs(with(write, "iat", 1e300)), 401, "not valid yet"},
		{"other audience", hs(with(write, "aud", "another-application")), 401, "aud is not accepted"},
		{"no audience", hs(with(write, "aud", nil)), 401, "no aud claim"},
		{"other issuer", hs(with(write, "iss", "https://evil.example.com/")), 401, "issuer (iss) is not accepted"},
		{"no issuer", hs(with(write, "iss", nil)), 401, "no iss claim"},
		{"crit header", bearer(hsToken(t, testJWTSecret, write, "crit", []string{"exp"})), 401, "crit"},
		{"alg none", bearer(noneToken), 401, msgUnverifiable},
		{"algorithm confusion", bearer(confused), 401, msgUnverifiable},
		{"not a JWT", bearer("not.a.jwt"), 401, "well-formed"},
		{"basic scheme", []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "Bearer <token>"},
		{"expired RS256", bearer(rsToken(t, key, "key-1", with(write, "exp", time.Now().Add(-time.Minute).Unix()))), 401, "expired"},
		{"RS256 from another key", bearer(rsToken(t, testRSAKey(t, 1), "key-1", write)), 401, msgUnverifiable},
		{"RS256 unknown kid", bearer(rsToken(t, key, "key-2", write)), 401, msgUnverifiable},
		{"good key with a bad token", append([]string{"X-API-Key", testAPIKey}, bearer("garbage")...), 401, "well-formed"},
		{"good API key", []string{"X-API-Key", testAPIKey}, 200, ""},
		{"second API key", []string{"X-API-Key", "second-key-0123456789abcdef"}, 200, ""},
		{"read-only API key", []string{"X-API-Key", testReadAPIKey}, 200, ""},
		{"good HS256", hs(write), 200, ""},
		{"exp at the last second of year 9999", hs(with(write, "exp", 253402300799)), 200, ""},
		{"audience in a list", hs(with(write, "aud", []string{"x", testAudience})), 200, ""},
		{"iat within the leeway", hs(with(write, "iat", time.Now().Add(leeway/2).Unix())), 200, ""},
		{"lowercase scheme", []string{"Authorization", "bearer " + hsToken(t, testJWTSecret, write)}, 200, ""},
		{"good RS256 via JWKS", bearer(rsToken(t, key, "key-1", write)), 200, ""},
		{"RS256 without kid, one key in the set", bearer(rsToken(t, key, "", write)), 200, ""},
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

// TestTrailingBitsOfTheSignatureMatter: base64url leaves the low bits of a
// segment's last character unused (two for an HS256 signature); a lenient
// decoder reads a token whose last character differs only there as the
// same bytes, so a token no issuer produced verified. Strict decoding
// refuses it.
func TestTrailingBitsOfTheSignatureMatter(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	token := hsToken(t, testJWTSecret, tokenClaims(DefaultJWTWriteScope))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	altered := token[:len(token)-1] + string(alphabet[last^1]) // a low, unused bit
	sig := func(tok string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(tok[strings.LastIndexByte(tok, '.')+1:])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(sig(token), sig(altered)) {
		t.Fatal("the altered token's signature does not decode leniently to the same bytes: the test alters the wrong bit")
	}

	wantStatus(t, a.do("GET", "/api/script-templates", nil, "Authorization", "Bearer "+token), http.StatusOK)
	r := a.do("GET", "/api/script-templates", nil, "Authorization", "Bearer "+altered)
	wantStatus(t, r, http.StatusUnauthorized)
	if e := r.apiErr(t); e.Code != CodeUnauthenticated || !strings.Contains(e.Message, "well-formed") {
		t.Errorf("the altered token: %+v, want %s saying it is not a well-formed JWT", e, CodeUnauthenticated)
	}
}

// Reading needs the read role; creating, updating, deleting and test runs
// need the write role. Tokens get theirs from the scope claim, API keys
// from their AUTH_API_KEYS entry.
func TestRolesSeparateReadingFromWriting(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	body := map[string]string{"name": "x", "source": "return 1"}
	bearer := func(c jwt.MapClaims) []string {
		return []string{"Authorization", "Bearer " + hsToken(t, testJWTSecret, c)}
	}
	subjects := []struct {
		name          string
		header        []string
		read, canEdit bool
	}{
		{"read scope", bearer(tokenClaims("openid " + DefaultJWTReadScope)), true, false},
		{"read scope as an array", bearer(with(tokenClaims(""), "scope", []string{DefaultJWTReadScope})), true, false},
		{"no scope", bearer(tokenClaims("")), false, false},
		{"another application's scopes", bearer(tokenClaims("templates:admin other:write")), false, false},
		{"scope of the wrong type", bearer(with(tokenClaims(""), "scope", 7)), false, false},
		{"read scope after two spaces", bearer(tokenClaims("openid  " + DefaultJWTReadScope)), true, false},
		// RFC 6749 §3.3: scopes are separated by ASCII spaces only.
		{"scopes joined by a no-break space", bearer(tokenClaims("openid\u00a0" + DefaultJWTReadScope)), false, false},
		{"scopes joined by a tab", bearer(tokenClaims("openid\t" + DefaultJWTWriteScope)), false, false},
		{"read-only API key", []string{"X-API-Key", testReadAPIKey}, true, false},
		{"write scope", bearer(tokenClaims(DefaultJWTWriteScope)), true, true},
		{"bare API key", []string{"X-API-Key", testAPIKey}, true, true},
	}
	for _, who := range subjects {
		t.Run(who.name, func(t *testing.T) {
			one := "/api/script-templates/" + a.create("for "+who.name, "return 1").ID.String()
			calls := []struct {
				method, path string
				body         any
				write        bool
			}{
				{"GET", "/api/script-templates", nil, false}, {"GET", one, nil, false}, {"GET", "/api/openapi.json", nil, false},
				{"POST", "/api/script-templates", body, true}, {"PUT", one, body, true},
				{"POST", "/api/scripts/test", map[string]string{"source": "return 1"}, true}, {"DELETE", one, nil, true},
			}
			for _, c := range calls {
				r := a.do(c.method, c.path, c.body, who.header...)
				allowed := who.read && (!c.write || who.canEdit)
				switch {
				case !allowed:
					wantForbidden(t, r)
				case r.status >= 300:
					t.Errorf("%s %s: %d %s", c.method, c.path, r.status, r.raw)
				}
			}
		})
	}
	// One template per subject; a writer created one and deleted its own;
	// the refused writes wrote nothing.
	if list := a.list(); len(list) != len(subjects) {
		t.Errorf("after the role checks the store holds %d templates, want %d", len(list), len(subjects))
	}
}

func wantForbidden(t *testing.T, r response) {
	t.Helper()
	if r.status != http.StatusForbidden {
		t.Errorf("status %d, want 403: %s", r.status, r.raw)
		return
	}
	if e := r.apiErr(t); e.Code != CodeForbidden || !strings.Contains(e.Message, "templates") {
		t.Errorf("403 error %+v", e)
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

// A 401 says what the caller may know: what to fix in what it sent. It
// never says which methods are on, that the key set is unreachable or how
// many keys it has, and never echoes the kid.
func TestUnauthorizedBodiesRevealNothing(t *testing.T) {
	dead := newJWKSServer(t, "key-1", testRSAKey(t, 0))
	dead.setMode(jwksFail)
	hugeKid := strings.Repeat("k", 4<<10)
	token := rsToken(t, testRSAKey(t, 0), hugeKid, tokenClaims(DefaultJWTWriteScope))

	keysOnly := testConfig()
	keysOnly.JWTSecret, keysOnly.JWTAudience, keysOnly.JWTIssuer = "", nil, ""
	jwtOnly := testConfig()
	jwtOnly.APIKeys = nil
	jwtOnly.JWKSURL = dead.URL()
	configs := map[string]Config{"API keys only": keysOnly, "JWT only, JWKS down": jwtOnly, "both": testConfig()}

	answers := map[string]map[string]string{} // request → config → body
	for name, cfg := range configs {
		a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
		for req, header := range map[string][]string{
			"none":            nil,
			"API key":         {"X-API-Key", "wrong-key-0123456789abcdef"},
			"RS256, huge kid": {"Authorization", "Bearer " + token},
			"HS256, other secret": {"Authorization", "Bearer " + hsToken(t, "another-secret-0123456789abcdef-0123",
				tokenClaims(DefaultJWTWriteScope))},
		} {
			r := a.do("GET", "/api/script-templates", nil, header...)
			wantStatus(t, r, http.StatusUnauthorized)
			e := r.apiErr(t)
			for _, leak := range []string{"kkkkkkkk", "JWKS", "key set", "AUTH_", "not accepted by this service", "fetch"} {
				if strings.Contains(e.Message, leak) {
					t.Errorf("%s, %s: the 401 says %q (%q)", name, req, leak, e.Message)
				}
			}
			if answers[req] == nil {
				answers[req] = map[string]string{}
			}
			answers[req][name] = e.Message
		}
	}
	// The same refused credential gets the same answer whatever is
	// configured: the answer cannot tell the configuration.
	for req, byConfig := range answers {
		var first string
		for name, msg := range byConfig {
			if first == "" {
				first = msg
			} else if msg != first {
				t.Errorf("%s: the answer depends on the configuration (%s: %q vs %q)", req, name, msg, first)
			}
		}
	}
}
