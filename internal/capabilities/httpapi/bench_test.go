package httpapi

import (
	"context"
	"io"
	"net/http"
	"testing"
)

// BenchmarkDo is one GET to a loopback stub that answers a small JSON body,
// connection kept alive: the cost of the policy checks, the HTTP round trip
// and the response's reading, redaction and JSON check.
func BenchmarkDo(b *testing.B) {
	s := newStub(b, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":42,"name":"Ana","tags":["a","b"]}`)
	})
	c := newClient(b, map[string]Connector{"crm": crm(s.URL + "/api/v1/")})
	req := Request{Connector: "crm", Method: "GET", Path: "/customers/42?expand=1", Query: map[string]string{"x": "y"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), "acme", req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicy is the checks alone (no I/O): connector, tenant, method,
// path, query and headers.
func BenchmarkPolicy(b *testing.B) {
	c := newClient(b, map[string]Connector{"crm": crm("https://crm.example.com/api/v1/")})
	req := Request{Connector: "crm", Method: "GET", Path: "/customers/42?expand=1", Query: map[string]string{"x": "y"},
		Headers: map[string]string{"X-Trace": "abc"}}
	b.ReportAllocs()
	for b.Loop() {
		conn, err := c.authorize("acme", req)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.target(conn, req.Path, req.Query); err != nil {
			b.Fatal(err)
		}
		if _, err := c.scriptHeaders(conn, req.Headers); err != nil {
			b.Fatal(err)
		}
	}
}
