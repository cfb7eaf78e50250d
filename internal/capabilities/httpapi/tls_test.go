package httpapi

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTLS(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	s.StartTLS()
	defer s.Close()
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})

	// A certificate the machine does not trust: a network error the script may catch.
	_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if n := asNetwork(t, err); n.Message != `connector "crm": GET /customers: the TLS handshake failed (certificate or protocol)` {
		t.Fatalf("message = %q", n.Message)
	}

	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	c.transport.TLSClientConfig.RootCAs = pool
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if err != nil || resp.Body != "HTTP/1.1" {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
}
