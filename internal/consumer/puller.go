package consumer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The puller asks the shared consumer for exactly as many jobs as this
// replica has idle slots (DESIGN.md §5: a replica pulls only when a
// worker is free, so it never holds a job no worker is free for, and the
// lag scaler sees every job still waiting in the stream).
//
// nats.go's Consumer.Next opens a subscription for each pull and closes it
// after: two more protocol messages per job for the broker and the client,
// and a goroutine. The puller keeps Parallel+1 subscriptions for good and
// sends each pull request on an idle one, so the subscription a job comes
// on names its request; when several slots are idle at once it asks for
// all their jobs in one request.
//
// It counts, for each open request, how many jobs it may still bring. A
// request ends when it has brought them all, when the broker says it
// expired (408) or ended (404, 409), or, should that answer be lost (a
// reconnection), a while after it should have expired. A subscription goes
// back to the end of the idle line when its request ends, so a late answer
// to an ended request seldom lands on the next one. A job that comes for no
// open request goes to a free slot when there is one; otherwise the
// dispatcher hands it back at once, noted as an interrupted delivery so it
// does not count as an attempt. No job is held beyond the free slots, and
// none is dropped.
//
// The puller is used by the dispatcher goroutine only.
type puller struct {
	nc      *nats.Conn
	subject string // the consumer's next-message API subject
	wait    time.Duration
	subs    []*nats.Subscription
	idle    []*nats.Subscription // not attached to a request, oldest first
	open    map[*nats.Subscription]*pullRequest
	// owed is how many jobs the open requests may still bring.
	owed int
	in   chan *nats.Msg
	// closed ends a callback blocked on in once the dispatcher is gone.
	closed chan struct{}
	body   []byte
}

// pullRequest is one open pull request.
type pullRequest struct {
	// remaining is how many jobs it may still bring.
	remaining int
	// deadline is when the puller stops waiting for its end.
	deadline time.Time
}

// newPuller subscribes to the replies of the pull requests for stream's
// consumer, for up to parallel jobs at once; each request waits up to wait
// for jobs.
func newPuller(nc *nats.Conn, stream, consumer string, wait time.Duration, parallel int) (*puller, error) {
	p := &puller{
		nc:      nc,
		subject: "$JS.API.CONSUMER.MSG.NEXT." + stream + "." + consumer,
		wait:    wait,
		open:    map[*nats.Subscription]*pullRequest{},
		// The callback blocks when the dispatcher is behind; nats.go keeps
		// the rest in the subscription's pending buffer.
		in:     make(chan *nats.Msg, 4*parallel+16),
		closed: make(chan struct{}),
	}
	deliver := func(m *nats.Msg) {
		select {
		case p.in <- m:
		case <-p.closed:
		}
	}
	for range parallel + 1 {
		sub, err := nc.Subscribe(nc.NewInbox(), deliver)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("subscribing to the pull replies: %w", err)
		}
		p.subs = append(p.subs, sub)
	}
	p.idle = slices.Clone(p.subs)
	return p, nil
}

// request asks for n jobs; the request ends by the deadline it returns.
func (p *puller) request(now time.Time, n int) (time.Time, error) {
	if len(p.idle) == 0 { // a bug: at most parallel requests are open
		return time.Time{}, errors.New("sending a pull request: every reply subscription is in use")
	}
	sub := p.idle[0]
	p.body = fmt.Appendf(p.body[:0], `{"batch":%d,"expires":%d}`, n, p.wait.Nanoseconds())
	if err := p.nc.PublishRequest(p.subject, sub.Subject, p.body); err != nil {
		return time.Time{}, fmt.Errorf("sending a pull request: %w", err)
	}
	p.idle = p.idle[1:]
	// The broker expires the request wait after it reads it: a while
	// later its answer was lost (a reconnection, a leader that died).
	deadline := now.Add(p.wait + max(p.wait/2, time.Second))
	p.open[sub] = &pullRequest{remaining: n, deadline: deadline}
	p.owed += n
	return deadline, nil
}

// delivered counts one job of the request on sub. It reports whether the
// request was owed it (false: a job for a request that already ended).
func (p *puller) delivered(sub *nats.Subscription) bool {
	r, ok := p.open[sub]
	if !ok {
		return false
	}
	r.remaining--
	p.owed--
	if r.remaining == 0 {
		p.end(sub)
	}
	return true
}

// end closes the request on sub: it brings no more jobs.
func (p *puller) end(sub *nats.Subscription) {
	r, ok := p.open[sub]
	if !ok {
		return
	}
	p.owed -= r.remaining
	delete(p.open, sub)
	p.idle = append(p.idle, sub)
}

// expire ends the requests past their deadline and returns the earliest
// deadline left (zero when none is open).
func (p *puller) expire(now time.Time) (next time.Time) {
	for sub, r := range p.open {
		if !now.Before(r.deadline) {
			p.end(sub)
			continue
		}
		if next.IsZero() || r.deadline.Before(next) {
			next = r.deadline
		}
	}
	return next
}

// close ends the subscriptions.
func (p *puller) close() {
	close(p.closed)
	for _, sub := range p.subs {
		_ = sub.Unsubscribe()
	}
}

// replyKind is what a reply to a pull request is.
type replyKind int

const (
	replyJob    replyKind = iota // a job
	replyIgnore                  // a heartbeat, or news of a request already ended
	replyEnd                     // the request ended: an idle queue, an expired request, a leader change
	replyFail                    // the request failed: the error says why
)

// pullReply reads a reply to a pull request: a job or one of the broker's
// statuses, with the error a failure means for the pull.
func pullReply(m *nats.Msg) (replyKind, error) {
	if len(m.Data) > 0 || len(m.Header) == 0 {
		return replyJob, nil
	}
	status := m.Header.Get("Status")
	desc := strings.ToLower(m.Header.Get("Description"))
	switch status {
	case "":
		return replyJob, nil
	case "100":
		return replyIgnore, nil
	case "404", "408":
		return replyEnd, nil
	case "503":
		return replyFail, nats.ErrNoResponders
	case "400":
		return replyFail, jetstream.ErrBadRequest
	case "409":
		switch {
		case strings.Contains(desc, "consumer deleted"):
			return replyFail, jetstream.ErrConsumerDeleted
		case strings.Contains(desc, "leadership change"), strings.Contains(desc, "server shutdown"):
			return replyEnd, nil
		case strings.Contains(desc, "batch completed"):
			// Sent after the batch's last job, which already ended the
			// request (only with max_bytes, which the puller never sets).
			return replyIgnore, nil
		}
	}
	return replyFail, fmt.Errorf("the broker ended a pull request: %s %s", status, m.Header.Get("Description"))
}

// jobMsg is a job delivered on the puller's subscription, with the
// jetstream.Msg methods the executor settles it with.
type jobMsg struct {
	msg *nats.Msg
	nc  *nats.Conn
	mu  sync.Mutex
	// acked: an ack or a term was sent; another would be a duplicate.
	acked bool
}

var _ jetstream.Msg = (*jobMsg)(nil)

func (m *jobMsg) Metadata() (*jetstream.MsgMetadata, error) {
	meta, err := m.msg.Metadata()
	if err != nil {
		return nil, err
	}
	return &jetstream.MsgMetadata{
		Sequence:     jetstream.SequencePair{Consumer: meta.Sequence.Consumer, Stream: meta.Sequence.Stream},
		NumDelivered: meta.NumDelivered,
		NumPending:   meta.NumPending,
		Timestamp:    meta.Timestamp,
		Stream:       meta.Stream,
		Consumer:     meta.Consumer,
		Domain:       meta.Domain,
	}, nil
}

func (m *jobMsg) Data() []byte         { return m.msg.Data }
func (m *jobMsg) Headers() nats.Header { return m.msg.Header }
func (m *jobMsg) Subject() string      { return m.msg.Subject }
func (m *jobMsg) Reply() string        { return m.msg.Reply }

func (m *jobMsg) Ack() error { return m.publish("+ACK", true) }

// DoubleAck sends an ack and waits for the broker to confirm it.
func (m *jobMsg) DoubleAck(ctx context.Context) error {
	return m.settle(true, func() error {
		_, err := m.nc.RequestWithContext(ctx, m.msg.Reply, []byte("+ACK"))
		return err
	})
}

func (m *jobMsg) Nak() error { return m.publish("-NAK", true) }

func (m *jobMsg) NakWithDelay(delay time.Duration) error {
	if delay <= 0 {
		return m.Nak()
	}
	return m.publish(fmt.Sprintf(`-NAK {"delay": %d}`, delay.Nanoseconds()), true)
}

func (m *jobMsg) InProgress() error { return m.publish("+WPI", false) }

func (m *jobMsg) Term() error { return m.publish("+TERM", true) }

func (m *jobMsg) TermWithReason(reason string) error { return m.publish("+TERM "+reason, true) }

// publish sends body to the message's ack subject; final: it settles the
// message.
func (m *jobMsg) publish(body string, final bool) error {
	return m.settle(final, func() error { return m.nc.Publish(m.msg.Reply, []byte(body)) })
}

// settle runs send unless the message is already settled, and marks it
// settled when send succeeds and final is true.
func (m *jobMsg) settle(final bool, send func() error) error {
	if m.msg.Reply == "" {
		return jetstream.ErrMsgNoReply
	}
	m.mu.Lock()
	acked := m.acked
	m.mu.Unlock()
	if acked {
		return jetstream.ErrMsgAlreadyAckd
	}
	if err := send(); err != nil {
		return err
	}
	if final {
		m.mu.Lock()
		m.acked = true
		m.mu.Unlock()
	}
	return nil
}
