package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// stub is a loopback HTTP server that counts the requests it receives.
type stub struct {
	*httptest.Server
	hits atomic.Int64
}

func newStub(t testing.TB, h http.HandlerFunc) *stub {
	t.Helper()
	s := &stub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stub) assertHits(t *testing.T, want int64) {
	t.Helper()
	if got := s.hits.Load(); got != want {
		t.Fatalf("stub received %d requests, want %d", got, want)
	}
}

// testToken is the secret the connectors of these tests inject.
const testToken = "s3cr3t-T0ken-4242"

func testEnv(name string) string {
	if name == "CRM_TOKEN" {
		return testToken
	}
	return ""
}

// crm is a connector to base (an http://127.0.0.1:port URL and a path).
func crm(base string) Connector {
	return Connector{
		BaseURL:      base,
		Methods:      []string{"GET", "POST", "PUT"},
		PathPrefixes: []string{"/customers", "/orders/"},
		Headers:      map[string]Secret{"Authorization": {Env: "CRM_TOKEN", Prefix: "Bearer "}},
		Tenants:      []string{"acme"},
	}
}

func newClient(t testing.TB, connectors map[string]Connector) *Client {
	t.Helper()
	c, err := New(connectors, testEnv, func(string) ([]byte, error) { return nil, errors.New("no files") })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// resolveTo makes every name resolve to addrs.
func resolveTo(c *Client, addrs ...string) {
	c.resolve = func(context.Context, string) ([]netip.Addr, error) {
		out := make([]netip.Addr, len(addrs))
		for i, a := range addrs {
			out[i] = netip.MustParseAddr(a)
		}
		return out, nil
	}
}

// asDenied fails unless err is a *DeniedError, and returns a copy of it.
func asDenied(t *testing.T, err error) DeniedError {
	t.Helper()
	var d *DeniedError
	if !errors.As(err, &d) {
		t.Fatalf("error = %v (%T), want a *DeniedError", err, err)
	}
	return *d
}

func asNetwork(t *testing.T, err error) *NetworkError {
	t.Helper()
	var n *NetworkError
	if !errors.As(err, &n) {
		t.Fatalf("error = %v (%T), want a *NetworkError", err, err)
	}
	return n
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
