package consumer

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/internal/testenv"
)

// pulled publishes n cpf jobs and pulls them, unacked, as the executor's
// puller hands them out.
func pulled(t *testing.T, url string, n int) (Config, *nats.Conn, []*jobMsg) {
	t.Helper()
	cfg, nc, js := provisioned(t, url)
	for i := range n {
		publish(t, js, cfg, cpfJob(fmt.Sprintf("ack-group-%d", i)))
	}
	p, err := newPuller(nc, cfg.JobsStream, cfg.Consumer, 5*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	if _, err := p.request(time.Now(), n); err != nil {
		t.Fatal(err)
	}
	msgs := make([]*jobMsg, n)
	for i := range msgs {
		msgs[i] = &jobMsg{msg: next(t, p, 5*time.Second), nc: nc}
	}
	return cfg, nc, msgs
}

// TestAckGroupsConfirmEveryAck: acks added faster than the broker confirms
// them go out in groups, one confirmation per group, and a confirmed group
// means every ack in it is applied: the consumer has nothing pending the
// moment the last confirmation arrives. On both brokers, since the
// grouping rests on the broker applying a connection's acks in order.
func TestAckGroupsConfirmEveryAck(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		const n = 200
		cfg, nc, msgs := pulled(t, url, n)
		js := jetStream(t, nc)
		for round := range 3 { // three times: an order the broker got wrong would show in one
			if round > 0 {
				cfg, nc, msgs = pulled(t, url, n)
				js = jetStream(t, nc)
			}
			a := newAckGroups(n)
			var mu sync.Mutex
			var failed []error
			var wg sync.WaitGroup
			for _, m := range msgs {
				wg.Add(1)
				if !a.add(m, func(err error) {
					if err != nil {
						mu.Lock()
						failed = append(failed, err)
						mu.Unlock()
					}
					wg.Done()
				}) {
					t.Fatal("the queue refused an ack below its capacity")
				}
			}
			wg.Wait()
			info := consumerInfo(t, js, cfg) // before anything else: the acks must be applied already
			a.close()
			if len(failed) > 0 {
				t.Fatalf("round %d: %d acks failed, the first: %v", round, len(failed), failed[0])
			}
			if info.NumAckPending != 0 || info.AckFloor.Stream != n {
				t.Fatalf("round %d: once every group was confirmed: %d acks pending, ack floor %d; want 0, %d",
					round, info.NumAckPending, info.AckFloor.Stream, n)
			}
			if a.confirmations >= n || a.confirmations < n/maxAckGroup {
				t.Fatalf("round %d: %d confirmations for %d acks; want groups of up to %d", round, a.confirmations, n, maxAckGroup)
			}
			for _, m := range msgs {
				if err := m.Ack(); !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
					t.Fatalf("round %d: an ack after its group's: %v; want it refused as a duplicate", round, err)
				}
			}
		}
	})
}

// TestAckGroupFailureFailsEveryAck: when a group's confirmation does not
// come, every ack of the group is reported failed, although the broker may
// have applied them; each is then confirmed on its own (Executor.confirm),
// which the broker answers for an ack it already applied too.
func TestAckGroupFailureFailsEveryAck(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg, nc, msgs := pulled(t, url, 3)
		js := jetStream(t, nc)
		// The last ack of the group goes where nobody answers.
		last := *msgs[2].msg
		last.Reply = "fstest.nobody.answers"
		lost := &jobMsg{msg: &last, nc: nc}
		// All three queued before the group's goroutine starts: one group.
		a := &ackGroups{in: make(chan pendingAck, 3), out: make(chan struct{})}
		errs := make(chan error, 3)
		for _, m := range []*jobMsg{msgs[0], msgs[1], lost} {
			if !a.add(m, func(err error) { errs <- err }) {
				t.Fatal("the queue refused an ack below its capacity")
			}
		}
		go a.run()
		for range 3 {
			if err := <-errs; err == nil {
				t.Fatal("an ack of a group whose confirmation never came was reported confirmed")
			}
		}
		a.close()
		ctx := testenv.Context(t, 10*time.Second)
		for i, m := range msgs {
			if err := m.confirmAck(ctx); err != nil {
				t.Fatalf("confirming ack %d on its own: %v", i, err)
			}
		}
		if info := consumerInfo(t, js, cfg); info.NumAckPending != 0 || info.AckFloor.Stream != 3 {
			t.Fatalf("after confirming each ack: %d pending, ack floor %d; want 0, 3", info.NumAckPending, info.AckFloor.Stream)
		}
	})
}
