package consumer

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// ackGroups sends the acks of jobs whose results are stored and has the
// broker confirm them a group at a time: every ack of a group but the last
// is published as is, the last is sent as a request, and the broker's
// answer to it confirms the group.
//
// Why that confirms the earlier acks: they travel on the same connection
// before the last, and the broker takes a consumer's acks in the order
// they arrive — one queue, worked through by one goroutine, the
// confirmation sent after the ack it answers has been applied (on a
// cluster, once it is replicated). A confirmation that never comes (a
// lost connection, a broker that does not answer in confirmTimeout) fails
// the whole group: each of its acks is then sent again and confirmed on
// its own, with the retries of Executor.confirm. Sending an ack twice is
// harmless, and an ack that was lost all the same (one that reached a
// consumer leader just before it lost its leadership) costs what a lost
// ack always costs: the job is delivered again and answered from its
// stored result, without running.
//
// One group is in flight at a time. Under a light load a group is one
// ack, confirmed as before; under a backlog the acks that arrive while a
// confirmation is awaited form the next group, so the broker answers, and
// the executor reads, one confirmation per group instead of one per job
// (BenchmarkDrainRatio: README, Performance).
type ackGroups struct {
	in chan pendingAck
	// out is closed when run has confirmed or failed every ack it took.
	out chan struct{}
	// confirmations counts the groups sent (run's goroutine writes it;
	// read it after close).
	confirmations int
}

// pendingAck is an ack waiting for its group; done is called once, from
// the group's goroutine, with nil when the broker confirmed it.
type pendingAck struct {
	msg  *jobMsg
	done func(error)
}

// maxAckGroup bounds a group: one confirmation covers at most this many
// acks.
const maxAckGroup = 32

func newAckGroups(queue int) *ackGroups {
	a := &ackGroups{in: make(chan pendingAck, queue), out: make(chan struct{})}
	go a.run()
	return a
}

// add queues msg's ack. It never blocks: when the queue is full it
// reports false and the caller confirms the ack on its own.
func (a *ackGroups) add(msg *jobMsg, done func(error)) bool {
	select {
	case a.in <- pendingAck{msg: msg, done: done}:
		return true
	default:
		return false
	}
}

// close ends the groups once the acks already added are confirmed or
// failed. No add may follow.
func (a *ackGroups) close() {
	close(a.in)
	<-a.out
}

func (a *ackGroups) run() {
	defer close(a.out)
	group := make([]pendingAck, 0, maxAckGroup)
	for first := range a.in {
		group = append(group[:0], first)
	gather:
		for len(group) < maxAckGroup {
			select {
			case p, ok := <-a.in:
				if !ok {
					break gather
				}
				group = append(group, p)
			default:
				break gather
			}
		}
		confirmGroup(group)
		a.confirmations++
		clear(group) // the group's callbacks hold their jobs' deliveries
	}
}

// confirmGroup publishes the acks of group, the last as a request, and
// reports the broker's answer to every ack that was sent.
func confirmGroup(group []pendingAck) {
	last := len(group) - 1
	sent := make([]bool, len(group))
	for i, p := range group[:last] {
		err := p.msg.Ack()
		if errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			err = nil // settled once already: nothing to confirm
		}
		if err != nil {
			p.done(err)
			continue
		}
		sent[i] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), confirmTimeout)
	err := group[last].msg.confirmAck(ctx)
	cancel()
	for i, p := range group[:last] {
		if sent[i] {
			p.done(err)
		}
	}
	group[last].done(err)
}
