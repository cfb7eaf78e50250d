package templatesapi

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The key set (JWKS) is fetched in the background, on the cache's own
// context, one fetch at a time; requests never hold a lock across the
// network:
//
//   - A token whose kid is in a set younger than AUTH_JWKS_MAX_AGE is
//     verified at once, whatever a fetch is doing.
//   - A set older than refreshAfter (min(jwksRefreshAfter, max age / 4)) is
//     refreshed in the background; the request does not wait.
//   - An unknown kid, a set past its maximum age, or no set yet: the
//     request waits for the fetch in flight, or starts one, but gives up
//     when its caller leaves; the fetch carries on for everyone else.
//   - No fetch starts sooner than AUTH_JWKS_MIN_INTERVAL after the previous
//     one ended, successful or not: a flood of forged kids costs the
//     issuer one fetch per interval.
//   - A failed fetch keeps the previous set until it is AUTH_JWKS_MAX_AGE
//     old (counted from the start of the fetch that got it); then RS256
//     tokens are refused and the reason is logged.
const (
	jwksRefreshAfter = 5 * time.Minute
	jwksFetchLimit   = 1 << 20
	jwksFetchTimeout = 5 * time.Second
	// jwksLogEvery spaces the warnings about failed fetches and a stale
	// set; each line counts the ones held back.
	jwksLogEvery = time.Minute
	// maxLoggedKid bounds a forged kid in the log.
	maxLoggedKid = 64
)

// keyError is a verification key that cannot be found. Its reason is for
// the log; the caller is only told the token cannot be verified.
type keyError struct{ reason string }

func (e *keyError) Error() string { return e.reason }

// JWKSStats describes the key set's fetches, for tests and operators (the
// service serves no /metrics; failures are also logged).
type JWKSStats struct {
	Fetches   uint64    // fetches that ended, successful or not
	Failures  uint64    // fetches that failed
	Keys      int       // keys in the set in use
	FetchedAt time.Time // start of the last successful fetch; zero before one
}

type jwksOptions struct {
	url         string
	client      *http.Client
	log         *slog.Logger
	maxAge      time.Duration
	minInterval time.Duration
}

// keySet is one successful fetch; it is never modified once stored.
type keySet struct {
	keys    map[string]*rsa.PublicKey
	fetched time.Time
}

func (s *keySet) lookup(kid string) (*rsa.PublicKey, bool) {
	if kid == "" && len(s.keys) == 1 {
		for _, k := range s.keys {
			return k, true
		}
	}
	k, ok := s.keys[kid]
	return k, ok
}

type jwksCache struct {
	jwksOptions
	refreshAfter time.Duration

	ctx    context.Context // the fetches' own: ended by close, never by a caller
	cancel context.CancelFunc
	wg     sync.WaitGroup

	set atomic.Pointer[keySet]

	// mu guards the three fields below; it is never held across I/O.
	mu        sync.Mutex
	flight    chan struct{} // closed when the fetch in flight ends; nil when none
	notBefore time.Time     // no fetch starts before this
	closed    bool

	fetches, failures atomic.Uint64
	failedInRow       atomic.Uint64
	failLog, staleLog *logLimiter
}

func newJWKSCache(o jwksOptions) *jwksCache {
	if o.client == nil {
		// Its own transport, so close can drop its idle connections.
		o.client = &http.Client{Timeout: jwksFetchTimeout, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &jwksCache{
		jwksOptions:  o,
		refreshAfter: min(jwksRefreshAfter, o.maxAge/4),
		ctx:          ctx,
		cancel:       cancel,
		failLog:      newLogLimiter(jwksLogEvery),
		staleLog:     newLogLimiter(jwksLogEvery),
	}
}

// close ends the fetch in flight and refuses new ones.
func (c *jwksCache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.client.CloseIdleConnections()
}

func (c *jwksCache) stats() JWKSStats {
	st := JWKSStats{Fetches: c.fetches.Load(), Failures: c.failures.Load()}
	if set := c.set.Load(); set != nil {
		st.Keys, st.FetchedAt = len(set.keys), set.fetched
	}
	return st
}

// key returns the RSA key with kid ("" is accepted when the set has exactly
// one key).
func (c *jwksCache) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	if set := c.set.Load(); set != nil {
		age := time.Since(set.fetched)
		if age < c.maxAge {
			if age >= c.refreshAfter {
				c.refresh() // in the background: this request does not wait
			}
			if k, ok := set.lookup(kid); ok {
				return k, nil
			}
		}
	}
	// Nothing usable: wait for a fetch, the one in flight or a new one,
	// unless the last one ended less than minInterval ago.
	if done := c.refresh(); done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, &keyError{"the caller left while the key set was being fetched"}
		}
	}
	set := c.set.Load()
	if set == nil {
		return nil, &keyError{"no key set: AUTH_JWKS_URL has not been fetched successfully yet"}
	}
	if age := time.Since(set.fetched); age >= c.maxAge {
		c.logStale(age)
		return nil, &keyError{fmt.Sprintf("the key set is %s old, past AUTH_JWKS_MAX_AGE (%s): fetches of AUTH_JWKS_URL are failing",
			age.Round(time.Second), c.maxAge)}
	}
	if k, ok := set.lookup(kid); ok {
		return k, nil
	}
	if kid == "" {
		return nil, &keyError{"the token has no kid and the key set has more than one key"}
	}
	if len(kid) > maxLoggedKid {
		kid = kid[:maxLoggedKid] + "…"
	}
	return nil, &keyError{fmt.Sprintf("no key with kid %q in the key set", kid)}
}

// refresh starts a fetch unless one is in flight, the last one ended less
// than minInterval ago, or the cache is closed. It returns the channel
// closed when the fetch in flight ends, or nil when there is none.
func (c *jwksCache) refresh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flight != nil {
		return c.flight
	}
	if c.closed || time.Now().Before(c.notBefore) {
		return nil
	}
	done := make(chan struct{})
	c.flight = done
	c.wg.Add(1)
	go c.run(done)
	return done
}

func (c *jwksCache) run(done chan struct{}) {
	defer c.wg.Done()
	started := time.Now()
	keys, err := c.fetch()
	if err == nil {
		c.set.Store(&keySet{keys: keys, fetched: started})
	}
	c.record(err, len(keys))
	// The back-off starts when the fetch ends, whatever its outcome.
	c.mu.Lock()
	c.flight = nil
	c.notBefore = time.Now().Add(c.minInterval)
	c.mu.Unlock()
	close(done)
}

// record counts a fetch and logs failures, at most one line per
// jwksLogEvery, and the first success after failures.
func (c *jwksCache) record(err error, keys int) {
	c.fetches.Add(1)
	if err == nil {
		if n := c.failedInRow.Swap(0); n > 0 {
			c.log.Info("JWKS fetched again", "keys", keys, "after_failures", n)
		} else {
			c.log.Debug("JWKS fetched", "keys", keys)
		}
		return
	}
	total := c.failures.Add(1)
	c.failedInRow.Add(1)
	if c.ctx.Err() != nil {
		return // closing: not the issuer's fault
	}
	if ok, held := c.failLog.allow(); ok {
		attrs := []any{"error", err, "failures_total", total, "held_back", held}
		if set := c.set.Load(); set != nil {
			attrs = append(attrs, "keys_age", time.Since(set.fetched).Round(time.Second).String(), "max_age", c.maxAge.String())
		}
		c.log.Warn("fetching the JWKS (AUTH_JWKS_URL) failed; the previous keys stay in use until AUTH_JWKS_MAX_AGE", attrs...)
	}
}

func (c *jwksCache) logStale(age time.Duration) {
	if ok, held := c.staleLog.allow(); ok {
		c.log.Warn("refusing RS256 tokens: the key set is older than AUTH_JWKS_MAX_AGE and cannot be refreshed",
			"keys_age", age.Round(time.Second).String(), "max_age", c.maxAge.String(),
			"failures_total", c.failures.Load(), "held_back", held)
	}
}

type jwkSet struct {
	Keys []struct {
		Kty    string   `json:"kty"`
		Kid    string   `json:"kid"`
		Use    string   `json:"use"`
		KeyOps []string `json:"key_ops"`
		Alg    string   `json:"alg"`
		N      string   `json:"n"`
		E      string   `json:"e"`
	} `json:"keys"`
}

func (c *jwksCache) fetch() (map[string]*rsa.PublicKey, error) {
	ctx, cancel := context.WithTimeout(c.ctx, jwksFetchTimeout)
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
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256") ||
			(k.KeyOps != nil && !slices.Contains(k.KeyOps, "verify")) { // RFC 7517 §4.3: not for verifying
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
