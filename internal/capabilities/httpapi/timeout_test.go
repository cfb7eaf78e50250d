package httpapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// hang is a stub that never answers (until the client goes away).
func hang(t *testing.T) *stub {
	done := make(chan struct{})
	s := newStub(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	t.Cleanup(func() { close(done) }) // runs before the stub's Close
	return s
}

func TestHangingServiceEndsAtTheCallersDeadline(t *testing.T) {
	s := hang(t)
	conn := crm(s.URL)
	conn.Timeout = time.Minute
	c := newClient(t, map[string]Connector{"crm": conn})
	const deadline = 300 * time.Millisecond
	start := time.Now()
	_, err := c.Do(ctxFor(t, deadline), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	late := time.Since(start) - deadline
	n := asNetwork(t, err)
	if !n.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %+v", n)
	}
	if n.Message != `connector "crm": GET /customers: the job's deadline passed before the response` {
		t.Fatalf("message = %q", n.Message)
	}
	t.Logf("Do returned %s after the deadline", late)
	if late > time.Second { // generous: CI is 2 shared cores with -race
		t.Fatalf("Do returned %s after the deadline", late)
	}
}

func TestHangingServiceEndsAtTheConnectorsTimeout(t *testing.T) {
	s := hang(t)
	conn := crm(s.URL)
	conn.Timeout = 200 * time.Millisecond
	c := newClient(t, map[string]Connector{"crm": conn})
	start := time.Now()
	_, err := c.Do(ctxFor(t, time.Minute), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	n := asNetwork(t, err)
	if !n.Timeout || n.Message != `connector "crm": GET /customers: timed out after 200ms` {
		t.Fatalf("error = %+v", n)
	}
	if errors.Is(err, context.DeadlineExceeded) { // the caller's context did not end: the script may catch it
		t.Fatal("a connector's timeout reads as the caller's deadline")
	}
	if d := time.Since(start); d > 200*time.Millisecond+time.Second {
		t.Fatalf("Do took %s", d)
	}
}

// A body that stalls after the headers ends at the deadline too.
func TestStalledBodyEndsAtTheDeadline(t *testing.T) {
	done := make(chan struct{})
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"partial":`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	t.Cleanup(func() { close(done) })
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	_, err := c.Do(ctxFor(t, 300*time.Millisecond), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if n := asNetwork(t, err); !n.Timeout {
		t.Fatalf("error = %+v", n)
	}
}
