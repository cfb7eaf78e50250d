package templatesapi

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// JWKS caching: keys are kept for jwksTTL; an unknown kid triggers a refresh
// at most every jwksMinRefresh, so a flood of forged kids cannot hammer the
// issuer. When a refresh fails, the keys already known keep working.
const (
	jwksTTL          = 10 * time.Minute
	jwksMinRefresh   = 10 * time.Second
	jwksFetchLimit   = 1 << 20
	jwksFetchTimeout = 5 * time.Second
)

// keyError is a verification key that cannot be found; its message is safe
// to return.
type keyError struct{ msg string }

func (e *keyError) Error() string { return e.msg }

type jwksCache struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu          sync.Mutex
	keys        map[string]*rsa.PublicKey
	fetched     time.Time // last successful fetch
	lastAttempt time.Time
}

func newJWKSCache(url string, client *http.Client) *jwksCache {
	if client == nil {
		client = &http.Client{Timeout: jwksFetchTimeout}
	}
	return &jwksCache{url: url, client: client, now: time.Now}
}

// key returns the RSA key with kid ("" is accepted when the set has exactly
// one key).
func (c *jwksCache) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	k, found := c.lookup(kid)
	stale := now.Sub(c.fetched) >= jwksTTL
	if (!found || stale) && now.Sub(c.lastAttempt) >= jwksMinRefresh {
		c.lastAttempt = now
		keys, err := c.fetch(ctx)
		if err == nil {
			c.keys, c.fetched = keys, now
			k, found = c.lookup(kid)
		} else if !found {
			return nil, &keyError{"the key set at AUTH_JWKS_URL could not be fetched"}
		}
	}
	if !found {
		if kid == "" {
			return nil, &keyError{"the token has no kid and the key set has more than one key"}
		}
		return nil, &keyError{fmt.Sprintf("no key with kid %q in the key set", kid)}
	}
	return k, nil
}

func (c *jwksCache) lookup(kid string) (*rsa.PublicKey, bool) {
	if kid == "" && len(c.keys) == 1 {
		for _, k := range c.keys {
			return k, true
		}
	}
	k, ok := c.keys[kid]
	return k, ok
}

type jwkSet struct {
	Keys []struct {
		Kty string `json:"kty"`
		Kid string `json:"kid"`
		Use string `json:"use"`
		Alg string `json:"alg"`
		N   string `json:"n"`
		E   string `json:"e"`
	} `json:"keys"`
}

func (c *jwksCache) fetch(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, fmt.Errorf("building the JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the JWKS: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // read-only: the decoding error is the one that matters
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the JWKS: status %d", resp.StatusCode)
	}
	var set jwkSet
	if err := json.NewDecoder(io.LimitReader(resp.Body, jwksFetchLimit)).Decode(&set); err != nil {
		return nil, fmt.Errorf("decoding the JWKS: %w", err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256") {
			continue
		}
		pub, err := rsaKey(k.N, k.E)
		if err != nil {
			continue // one bad key must not hide the good ones
		}
		keys[k.Kid] = pub
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the JWKS has no RS256 signing key")
	}
	return keys, nil
}

func rsaKey(n64, e64 string) (*rsa.PublicKey, error) {
	nb, err := base64.RawURLEncoding.DecodeString(n64)
	if err != nil {
		return nil, err
	}
	eb, err := base64.RawURLEncoding.DecodeString(e64)
	if err != nil {
		return nil, err
	}
	n := new(big.Int).SetBytes(nb)
	e := new(big.Int).SetBytes(eb)
	if n.BitLen() < 2048 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
		return nil, fmt.Errorf("RSA key too small or with a bad exponent")
	}
	return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
}
