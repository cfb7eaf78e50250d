package templatesapi

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// RSA keys are slow to generate under -race: the tests share four.
var (
	rsaKeysOnce sync.Once
	rsaKeys     [4]*rsa.PrivateKey
)

func testRSAKey(t testing.TB, i int) *rsa.PrivateKey {
	t.Helper()
	rsaKeysOnce.Do(func() {
		for n := range rsaKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			rsaKeys[n] = k
		}
	})
	return rsaKeys[i]
}

// jwksMode is how the test issuer's JWKS endpoint behaves.
type jwksMode int

const (
	jwksServe jwksMode = iota // answer with the published keys
	jwksFail                  // answer 503
	jwksHang                  // never answer, until the client gives up
)

// jwksServer is an identity provider's JWKS endpoint on loopback, whose
// keys and behaviour a test changes while the API runs.
type jwksServer struct {
	ts *httptest.Server

	mu    sync.Mutex
	keys  map[string]*rsa.PublicKey
	mode  jwksMode
	delay time.Duration  // before answering in jwksServe mode
	spans [][2]time.Time // start and end of each answered fetch

	fetches    atomic.Int32
	hangs      chan struct{} // one value per fetch that starts hanging
	hangsEnded atomic.Int32
	release    chan struct{} // closed at cleanup
}

func newJWKSServer(t *testing.T, kid string, key *rsa.PrivateKey) *jwksServer {
	t.Helper()
	j := &jwksServer{keys: map[string]*rsa.PublicKey{kid: &key.PublicKey}, hangs: make(chan struct{}, 64), release: make(chan struct{})}
	j.ts = httptest.NewServer(j)
	t.Cleanup(func() {
		close(j.release)
		j.ts.Close()
	})
	return j
}

func (j *jwksServer) URL() string { return j.ts.URL + "/.well-known/jwks.json" }

// publish replaces the served keys.
func (j *jwksServer) publish(keys map[string]*rsa.PrivateKey) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.keys = map[string]*rsa.PublicKey{}
	for kid, k := range keys {
		j.keys[kid] = &k.PublicKey
	}
}

func (j *jwksServer) setMode(m jwksMode) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.mode = m
}

// setDelay makes answers wait d.
func (j *jwksServer) setDelay(d time.Duration) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.delay = d
}

func (j *jwksServer) fetchSpans() [][2]time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([][2]time.Time(nil), j.spans...)
}

func (j *jwksServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	j.fetches.Add(1)
	j.mu.Lock()
	mode, delay := j.mode, j.delay
	enc := base64.RawURLEncoding
	keys := []map[string]string{{"kty": "EC", "kid": "ignored", "crv": "P-256"}}
	for kid, k := range j.keys {
		keys = append(keys, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": enc.EncodeToString(k.N.Bytes()), "e": enc.EncodeToString(big.NewInt(int64(k.E)).Bytes())})
	}
	j.mu.Unlock()
	switch mode {
	case jwksFail:
		http.Error(w, "identity provider down", http.StatusServiceUnavailable)
	case jwksHang:
		select {
		case j.hangs <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-j.release:
		}
		j.hangsEnded.Add(1)
	default:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys}) // a failed write is the client's fetch error
		j.mu.Lock()
		j.spans = append(j.spans, [2]time.Time{start, time.Now()})
		j.mu.Unlock()
	}
}

// tokenClaims are claims this service accepts, with scope as given ("" for
// none).
func tokenClaims(scope string) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"sub": "author@example.com", "aud": testAudience, "iss": testIssuer,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// with returns a copy of c with the given claims set (nil deletes).
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func hsToken(t testing.TB, secret string, c jwt.Claims, header ...any) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	for i := 0; i+1 < len(header); i += 2 {
		tok.Header[header[i].(string)] = header[i+1]
	}
	s, err := tok.SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rsToken(t testing.TB, key *rsa.PrivateKey, kid string, c jwt.Claims) string {
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
