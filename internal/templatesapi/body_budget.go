package templatesapi

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
)

// CodeServiceBusy says a process-wide budget is spent: other large request
// bodies are being read or handled, and this one was not read; or other
// large answers are being sent, and this one was not (answer_budget.go).
const CodeServiceBusy = "SERVICE_BUSY"

// Request bodies are read whole into memory and decoded (decodeJSON), and
// a body of \u0078 escapes costs several times its size while it is: 150
// test runs of 7.8 MB each took the process from 54 MB to 4.5 GB. So every
// route that reads a body first takes the bytes it may bring from one
// budget for the whole process, and gives them back when its handler
// ends.
const (
	// bodyBudgetBodies is how many bodies of the largest size the service
	// accepts (a test run's, Config.testBodyBytes) the budget holds at
	// once: about 30 MiB with the default sandbox limits.
	bodyBudgetBodies = 4
	// smallBodyBytes: a body whose Content-Length is at most this always
	// fits the budget. It is counted, so that large bodies find less room,
	// but never refused for the budget: small saves and test runs are never
	// turned away because large bodies hold it (only for their
	// credential's count, below). TEMPLATES_MAX_CONNS bounds how many such
	// bodies are in flight.
	smallBodyBytes = 64 << 10
)

// A body is read for as long as its client takes to send it, up to the
// read timeout, and its connection is busy meanwhile, which the connection
// limit never closes: 1,024 bodies trickled under one write key held every
// connection, /healthz's included, for 35 s a round. So one credential has
// at most a quarter of TEMPLATES_MAX_CONNS requests with a body in flight
// (being read or handled); past that, 503 SERVICE_BUSY, unread, on a
// connection that closes (withUnreadBodyClosing).
const bodyShareParts = 4

// bodyBudget counts the bytes of request bodies the handlers may hold at
// once, and the requests with a body in flight per credential. It never
// waits: a body that does not fit is refused at once.
type bodyBudget struct {
	size int64
	held atomic.Int64

	perCaller int // requests with a body one credential may have in flight
	mu        sync.Mutex
	by        map[string]int
}

func newBodyBudget(size int64, perCaller int) *bodyBudget {
	return &bodyBudget{size: size, perCaller: max(perCaller, 1), by: map[string]int{}}
}

// enter counts one more body in flight for who, and reports false,
// counting nothing, when who has perCaller of them already.
func (b *bodyBudget) enter(who string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by[who] >= b.perCaller {
		return false
	}
	b.by[who]++
	return true
}

// leave ends a body that enter counted for who.
func (b *bodyBudget) leave(who string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by[who]--; b.by[who] <= 0 {
		delete(b.by, who)
	}
}

// take reserves n bytes, and reports false, reserving nothing, when a body
// of more than smallBodyBytes would take the budget past its size.
func (b *bodyBudget) take(n int64) bool {
	for {
		held := b.held.Load()
		if n > smallBodyBytes && held+n > b.size {
			return false
		}
		if b.held.CompareAndSwap(held, held+n) {
			return true
		}
	}
}

// give returns n bytes that take reserved.
func (b *bodyBudget) give(n int64) { b.held.Add(-n) }

// admitBody takes from the body budget what r's body may bring, before any
// of it is read: its Content-Length, or limit (the route's cap) when it
// declares none. No body, and a body declared over limit (decodeJSON
// refuses it unread, 413), take nothing. Defer release: the bytes are
// held until the handler ends. With the budget spent the answer is 503
// SERVICE_BUSY, and the body is not read.
func (s *Server) admitBody(r *http.Request, limit int64) (release func(), herr *httpError) {
	n := r.ContentLength
	switch {
	case n < 0: // chunked: as much as the route accepts
		n = limit
	case n == 0 || n > limit:
		return func() {}, nil
	}
	who := caller(r)
	if !s.bodies.enter(who) {
		return nil, newError(http.StatusServiceUnavailable, CodeServiceBusy, fmt.Sprintf(
			"this credential has %d requests with a body in flight, the most one credential may (a quarter of TEMPLATES_MAX_CONNS), and this one was not read: "+
				"nothing was run or written; let those finish (send each body at once), then retry after Retry-After seconds", s.bodies.perCaller)).
			with("Retry-After", "2")
	}
	if !s.bodies.take(n) {
		s.bodies.leave(who)
		return nil, bodiesBusy(n)
	}
	return func() {
		s.bodies.give(n)
		s.bodies.leave(who)
	}, nil
}

// readJSON admits r's body (admitBody) and decodes it into dst
// (decodeJSON), under one route cap. Defer release when herr is nil: the
// bytes stay held until the handler ends, as the decoded body does.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) (release func(), herr *httpError) {
	held, herr := s.admitBody(r, limit)
	if herr != nil {
		return nil, herr
	}
	defer func() {
		if release == nil { // an error, or a panic: the caller has nothing to release
			held()
		}
	}()
	if herr := decodeJSON(w, r, limit, dst); herr != nil {
		return nil, herr
	}
	return held, nil
}

// bodiesBusy is the answer to a body of n bytes that the spent body budget
// could not admit.
func bodiesBusy(n int64) *httpError {
	return newError(http.StatusServiceUnavailable, CodeServiceBusy, fmt.Sprintf(
		"the service is busy with other large requests and did not read this one (%d bytes): nothing was run or written; "+
			"retry after Retry-After seconds (a body whose Content-Length is at most %d KiB always fits)", n, smallBodyBytes>>10)).
		with("Retry-After", "2")
}

// templateBodyBytes caps a save's body: a source at its cap, every byte
// escaped as \u00XX, plus room for the name and description.
func (c Config) templateBodyBytes() int64 {
	return int64(6*c.Sandbox.MaxSourceBytes) + 64<<10
}

// testBodyBytes caps a test run's body: its source and inputs at their
// caps, escaped so, plus room for the rest. It is the largest body any
// route accepts.
func (c Config) testBodyBytes() int64 {
	return int64(6*(c.Sandbox.MaxSourceBytes+c.Sandbox.MaxInputBytes)) + 64<<10
}

// replayBodyBytes caps a replay's body: a source, as a save's.
func (c Config) replayBodyBytes() int64 { return c.templateBodyBytes() }

// bodyBudgetBytes is the size of the process's body budget:
// bodyBudgetBodies bodies of the largest size a route accepts.
func (c Config) bodyBudgetBytes() int64 { return bodyBudgetBodies * c.testBodyBytes() }
