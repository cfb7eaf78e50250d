package templatesapi

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/flowscript/flowscript/internal/templates"
)

// Answers are encoded whole and held until the client has read them, and
// a client that reads slowly holds its answer until the write timeout (the
// sandbox timeout plus a minute): 300 readers of pages of 7.6 MB that
// never read took the process to 6.3 GB. So an answer to a read over
// smallBodyBytes (a page of templates, a template, a version) takes its
// bytes from a second budget while it is written, and gives them back
// when the write ends. Smaller answers, and HEAD's, are not counted. One
// credential holds at most a quarter of the budget, so that readers which
// stall under one key leave large reads to the others.
const (
	answerBudgetAnswers = 8 // answers of the largest size the budget holds
	answerShareParts    = 4 // one credential's share: a part of the budget
)

// answerBudget counts the bytes of the large answers being written, in
// all and per credential. It never waits.
type answerBudget struct {
	size, share int64

	mu   sync.Mutex
	held int64
	by   map[string]int64 // by credential (Principal.Method and Subject)
}

func newAnswerBudget(size, share int64) *answerBudget {
	return &answerBudget{size: size, share: share, by: map[string]int64{}}
}

// take reserves n bytes for who, and reports false, reserving nothing,
// when the budget or who's share has no room for them.
func (b *answerBudget) take(who string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.size || b.by[who]+n > b.share {
		return false
	}
	b.held += n
	b.by[who] += n
	return true
}

// give returns n bytes that take reserved for who.
func (b *answerBudget) give(who string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	if b.by[who] -= n; b.by[who] <= 0 {
		delete(b.by, who)
	}
}

// inUse is how many bytes are reserved.
func (b *answerBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// admitAnswer takes body's bytes from the answer budget, for r's caller,
// when it is over smallBodyBytes and r is not a HEAD (whose body is not
// sent). Defer release: the bytes are held until the body is written. With
// the budget or the caller's share spent the answer is 503 SERVICE_BUSY.
func (s *Server) admitAnswer(r *http.Request, body []byte) (release func(), herr *httpError) {
	n := int64(cap(body)) // what the answer holds, its encoder's spare room included
	if n <= smallBodyBytes || r.Method == http.MethodHead {
		return func() {}, nil
	}
	who := caller(r)
	if !s.answers.take(who, n) {
		return nil, newError(http.StatusServiceUnavailable, CodeServiceBusy, fmt.Sprintf(
			"the service is busy sending large answers to clients that read them slowly (this credential's, or all of them) and did not send this one (%d bytes); "+
				"retry after Retry-After seconds, or ask for a smaller page (limit)", len(body))).
			with("Retry-After", "5")
	}
	return func() { s.answers.give(who, n) }, nil
}

// caller names r's credential for the per-credential shares of the
// budgets: its method and subject, or "anonymous".
func caller(r *http.Request) string {
	if res := authFrom(r.Context()); res != nil {
		return res.principal.Method + ":" + res.principal.Subject
	}
	return "anonymous"
}

// answerBudgetBytes is the size of the process's answer budget:
// answerBudgetAnswers answers of the largest size, a page at its text
// budget plus one template at its caps, as the encoder may hold it (twice
// its length).
func (c Config) answerBudgetBytes() int64 {
	return answerBudgetAnswers * 2 * (templates.MaxPageBytes + c.templateBodyBytes())
}

// newServerAnswerBudget is the budget NewServer gives a server of cfg.
func newServerAnswerBudget(cfg Config) *answerBudget {
	size := cfg.answerBudgetBytes()
	return newAnswerBudget(size, size/answerShareParts)
}
