package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// provisioned is a test config on the broker at url with its streams and
// consumer, and a connection to it.
func provisioned(t *testing.T, url string) (Config, *nats.Conn, jetstream.JetStream) {
	t.Helper()
	cfg := testConfig(t, url)
	nc := connect(t, url)
	js := jetStream(t, nc)
	provision(testenv.Context(t, 20*time.Second), t, js, cfg)
	return cfg, nc, js
}

// next reads the puller's next reply, failing the test after d.
func next(t *testing.T, p *puller, d time.Duration) *nats.Msg {
	t.Helper()
	select {
	case m := <-p.in:
		return m
	case <-time.After(d):
		t.Fatalf("no pull reply after %s", d)
		return nil
	}
}

// gate is a channel that open closes, once; the test's cleanup opens it
// at the latest, so nothing waiting on it outlives the test.
func gate(t *testing.T) (release <-chan struct{}, open func()) {
	c := make(chan struct{})
	open = sync.OnceFunc(func() { close(c) })
	t.Cleanup(open)
	return c, open
}

// TestPullerBringsOneRequestsJobsOnItsSubscription: one request for
// several idle slots brings that many jobs, all on the request's
// subscription, and the request ends with the last of them; the
// subscription goes to the end of the idle line.
func TestPullerBringsOneRequestsJobsOnItsSubscription(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg, nc, js := provisioned(t, url)
		for i := range 5 {
			publish(t, js, cfg, cpfJob(fmt.Sprintf("pull-%d", i)))
		}
		p, err := newPuller(nc, cfg.JobsStream, cfg.Consumer, time.Second, 3)
		if err != nil {
			t.Fatal(err)
		}
		defer p.close()
		if len(p.idle) != 4 {
			t.Fatalf("%d idle subscriptions for 3 slots, want 4", len(p.idle))
		}
		first := p.idle[0]
		if _, err := p.request(time.Now(), 3); err != nil {
			t.Fatal(err)
		}
		if p.owed != 3 || len(p.open) != 1 {
			t.Fatalf("after one request for 3: owed %d, open %d; want 3, 1", p.owed, len(p.open))
		}
		for i := range 3 {
			m := next(t, p, 5*time.Second)
			if kind, err := pullReply(m); kind != replyJob || err != nil {
				t.Fatalf("reply %d: kind %d, error %v; want a job", i, kind, err)
			}
			if m.Sub != first {
				t.Fatalf("job %d came on another subscription than its request's", i)
			}
			if !p.delivered(m.Sub) {
				t.Fatalf("job %d was not owed to the open request", i)
			}
		}
		if p.owed != 0 || len(p.open) != 0 {
			t.Fatalf("after 3 jobs: owed %d, open %d; want 0, 0", p.owed, len(p.open))
		}
		if p.idle[len(p.idle)-1] != first {
			t.Fatal("the ended request's subscription is not at the end of the idle line")
		}
		select {
		case m := <-p.in:
			t.Fatalf("a reply beyond the batch of 3: %v %q", m.Header, m.Data)
		case <-time.After(200 * time.Millisecond):
		}
	})
}

// TestPullerRequestOnAnIdleQueueEnds: a request on an empty stream ends
// with the broker's timeout, which is no pull failure, and frees what it
// was owed.
func TestPullerRequestOnAnIdleQueueEnds(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg, nc, _ := provisioned(t, url)
		p, err := newPuller(nc, cfg.JobsStream, cfg.Consumer, 100*time.Millisecond, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer p.close()
		if _, err := p.request(time.Now(), 2); err != nil {
			t.Fatal(err)
		}
		m := next(t, p, 5*time.Second)
		kind, err := pullReply(m)
		if kind != replyEnd || err != nil {
			t.Fatalf("the reply to a request on an idle queue: kind %d, error %v; want its end and no error", kind, err)
		}
		p.end(m.Sub)
		if p.owed != 0 || len(p.open) != 0 || len(p.idle) != 3 {
			t.Fatalf("after the timeout: owed %d, open %d, idle %d; want 0, 0, 3", p.owed, len(p.open), len(p.idle))
		}
	})
}

// TestPullerGivesUpOnALostAnswer: a request whose end never comes (the
// consumer is gone) is ended at its deadline, so the slots it covered ask
// again.
func TestPullerGivesUpOnALostAnswer(t *testing.T) {
	nc := connect(t, testenv.EmbeddedNATS(t).ClientURL())
	p, err := newPuller(nc, "NO_SUCH_STREAM", "NO_SUCH_CONSUMER", 50*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	start := time.Now()
	deadline, err := p.request(start, 1)
	if err != nil {
		t.Fatal(err)
	}
	if next := p.expire(deadline.Add(-time.Millisecond)); !next.Equal(deadline) || p.owed != 1 {
		t.Fatalf("before its deadline: next %v (want %v), owed %d (want 1)", next, deadline, p.owed)
	}
	if next := p.expire(deadline); !next.IsZero() || p.owed != 0 || len(p.idle) != 2 {
		t.Fatalf("at its deadline: next %v (want none), owed %d (want 0), idle %d (want 2)", next, p.owed, len(p.idle))
	}
	// The broker answers a request to a consumer that does not exist with
	// no responders: a pull failure.
	_, err = pullReply(next(t, p, 5*time.Second))
	if !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("the answer to a pull from a missing consumer: %v, want no responders", err)
	}
}

// TestPullReplyStatuses maps each broker status on a pull reply to what it
// means for the executor.
func TestPullReplyStatuses(t *testing.T) {
	status := func(code, desc string) *nats.Msg {
		m := nats.NewMsg("_INBOX.x")
		m.Header.Set("Status", code)
		if desc != "" {
			m.Header.Set("Description", desc)
		}
		return m
	}
	job := nats.NewMsg("flowscript.jobs.execute")
	job.Data = []byte(`{}`)
	for _, tc := range []struct {
		name string
		msg  *nats.Msg
		kind replyKind
		err  error // nil: no failure
	}{
		{"a job", job, replyJob, nil},
		{"a heartbeat", status("100", "Idle Heartbeat"), replyIgnore, nil},
		{"no messages", status("404", "No Messages"), replyEnd, nil},
		{"expired", status("408", "Request Timeout"), replyEnd, nil},
		{"leader change", status("409", "Leadership Change"), replyEnd, nil},
		{"server shutdown", status("409", "Server Shutdown"), replyEnd, nil},
		{"batch completed", status("409", "Batch Completed"), replyIgnore, nil},
		{"consumer deleted", status("409", "Consumer Deleted"), replyFail, jetstream.ErrConsumerDeleted},
		{"no responders", status("503", ""), replyFail, nats.ErrNoResponders},
		{"bad request", status("400", "Bad Request"), replyFail, jetstream.ErrBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pullReply(tc.msg)
			if got != tc.kind || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("pullReply: %d, %v; want %d, %v", got, err, tc.kind, tc.err)
			}
		})
	}
	got, err := pullReply(status("409", "Exceeded MaxWaiting"))
	if got != replyFail || err == nil || !strings.Contains(err.Error(), "409 Exceeded MaxWaiting") {
		t.Fatalf("an unknown conflict: %d, %v; want a failure naming it", got, err)
	}
}

// TestJobMsgSettlesOnce: a job taken by the puller is acked with the
// broker's confirmation, once; a second ack or a nak after it is refused
// without reaching the broker, as jetstream.Msg does.
func TestJobMsgSettlesOnce(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	cfg, nc, js := provisioned(t, url)
	publish(t, js, cfg, cpfJob("settle-once"))
	p, err := newPuller(nc, cfg.JobsStream, cfg.Consumer, time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if _, err := p.request(time.Now(), 1); err != nil {
		t.Fatal(err)
	}
	msg := &jobMsg{msg: next(t, p, 5*time.Second), nc: nc}
	meta, err := msg.Metadata()
	if err != nil || meta.NumDelivered != 1 || meta.Sequence.Stream != 1 || meta.Stream != cfg.JobsStream {
		t.Fatalf("metadata %+v, %v; want the first delivery of stream sequence 1 of %s", meta, err, cfg.JobsStream)
	}
	if err := msg.InProgress(); err != nil {
		t.Fatalf("a progress ack before the ack: %v", err)
	}
	if err := msg.DoubleAck(testenv.Context(t, 5*time.Second)); err != nil {
		t.Fatalf("a confirmed ack: %v", err)
	}
	for name, again := range map[string]func() error{"ack": msg.Ack, "nak": msg.Nak, "term": msg.Term, "progress": msg.InProgress} {
		if err := again(); !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			t.Errorf("a %s after the ack: %v, want %v", name, err, jetstream.ErrMsgAlreadyAckd)
		}
	}
	if info := consumerInfo(t, js, cfg); info.AckFloor.Stream != 1 || info.NumAckPending != 0 {
		t.Fatalf("after the ack: ack floor %d, pending acks %d; want 1, 0", info.AckFloor.Stream, info.NumAckPending)
	}
}

// TestLateJobWithNoFreeSlotIsHandedBack: a job that comes for no open
// request (the answer to a pull request given up on) while every slot is
// busy is not held: it is handed back at once, runs when a slot is free,
// and the hand-back does not count as an attempt.
func TestLateJobWithNoFreeSlotIsHandedBack(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	cfg, nc, js := provisioned(t, url)
	cfg.Parallel = 1
	r := newRunner(4) // the runner allows more than Parallel: the executor must hold back
	release, free := gate(t)
	r.before = func(ctx context.Context, req sandbox.Request, call int64) (sandbox.Result, bool) {
		if call == 1 {
			<-release // the first job holds the only slot
		}
		return sandbox.Result{}, false
	}
	e := startExecutor(t, connect(t, url), cfg, r)
	publish(t, js, cfg, cpfJob("holds-the-slot"))
	waitFor(t, 10*time.Second, "the first job to run", func() bool { return r.calls.Load() == 1 })
	publish(t, js, cfg, cpfJob("comes-late"))

	// A pull request the dispatcher did not send, answered on one of its
	// subscriptions: the job that comes is owed to no request.
	p := e.puller.Load()
	req := fmt.Appendf(nil, `{"batch":1,"expires":%d}`, time.Second.Nanoseconds())
	if err := nc.PublishRequest(p.subject, p.subs[len(p.subs)-1].Subject, req); err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(context.Background(), cfg.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	late, err := stream.GetMsg(context.Background(), 2) // the late job is stream sequence 2
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the late job's hand-back to be noted", func() bool {
		_, err := e.handler.budget.kv.Get(context.Background(), key(&delivery{streamSeq: 2, published: late.Time}))
		return err == nil
	})
	if m := r.maxSeen.Load(); m > 1 {
		t.Fatalf("the runner saw %d jobs at once, over Parallel=1", m)
	}
	free()
	got := results(t, js, cfg, 2, 20*time.Second)
	if res := got["comes-late"]; res.Status != flowjob.StatusSucceeded || res.Attempt != 1 {
		t.Fatalf("the late job's result: status %s, attempt %d; want succeeded at attempt 1 (a hand-back is not an attempt)", res.Status, res.Attempt)
	}
	if n := r.calls.Load(); n != 2 {
		t.Fatalf("the runner ran %d jobs, want 2 (each once)", n)
	}
}

// TestDispatcherBatchesUncoveredSlots: slots freed one by one are asked
// for together once batch of them are uncovered, a lone uncovered slot
// after pullBatchWait at the latest, and a covered replica waits for
// nothing.
func TestDispatcherBatchesUncoveredSlots(t *testing.T) {
	if got := pullBatch(8); got != 2 {
		t.Errorf("pullBatch(8) = %d, want 2", got)
	}
	for _, parallel := range []int{1, 4, 7} {
		if got := pullBatch(parallel); got != 1 {
			t.Errorf("pullBatch(%d) = %d, want 1 (no batching below 8 slots)", parallel, got)
		}
	}
	t0 := time.Now()
	d := dispatcher{batch: 2}
	if ask, later := d.batched(t0, 0); ask || !later.IsZero() {
		t.Fatalf("every slot covered: ask %v, look again at %v; want neither", ask, later)
	}
	ask, later := d.batched(t0, 1)
	if ask || !later.Equal(t0.Add(pullBatchWait)) {
		t.Fatalf("one slot uncovered: ask %v, look again at %v; want to wait until %v", ask, later, t0.Add(pullBatchWait))
	}
	if ask, later := d.batched(t0.Add(pullBatchWait/2), 1); ask || !later.Equal(t0.Add(pullBatchWait)) {
		t.Fatalf("the same slot, later: ask %v, look again at %v; the wait must count from when it was left uncovered", ask, later)
	}
	if ask, _ := d.batched(t0.Add(pullBatchWait/2), 2); !ask {
		t.Fatal("two slots uncovered: no request; want one for both")
	}
	if ask, _ := d.batched(t0.Add(pullBatchWait), 1); !ask {
		t.Fatalf("a slot uncovered for %s: no request; want one", pullBatchWait)
	}
	d.batched(t0.Add(pullBatchWait), 0) // the request covered it
	t1 := t0.Add(time.Second)
	if ask, later := d.batched(t1, 1); ask || !later.Equal(t1.Add(pullBatchWait)) {
		t.Fatalf("a slot uncovered anew: ask %v, look again at %v; want to wait until %v", ask, later, t1.Add(pullBatchWait))
	}
	if ask, _ := (&dispatcher{batch: 1}).batched(t0, 1); !ask {
		t.Fatal("batch 1, one slot uncovered: no request; want one at once")
	}
}

// TestLoneFreeSlotGetsJobsBehindLongOnes: with 7 of 8 slots held by long
// jobs and no request open, the one free slot still asks for the next job
// (the dispatcher batches uncovered slots, but never waits for a second
// one that may not come).
func TestLoneFreeSlotGetsJobsBehindLongOnes(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg, _, js := provisioned(t, url)
		cfg.Parallel = 8
		release, free := gate(t)
		r := newRunner(cfg.Parallel)
		r.before = func(ctx context.Context, req sandbox.Request, _ int64) (sandbox.Result, bool) {
			if strings.Contains(req.Source, "'long'") {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return sandbox.Result{}, false
		}
		startExecutor(t, connect(t, url), cfg, r)
		for i := range cfg.Parallel - 1 {
			publish(t, js, cfg, newJob(fmt.Sprintf("long-%d", i), "return 'long'"))
		}
		publish(t, js, cfg, cpfJob("quick-1"))
		results(t, js, cfg, 1, 20*time.Second)
		waitFor(t, 10*time.Second, "the long jobs to hold their slots", func() bool {
			return r.running.Load() == int64(cfg.Parallel-1)
		})
		// Every open request ends within its pull wait: the free slot is
		// then covered by none.
		time.Sleep(3 * cfg.PullWait)
		publish(t, js, cfg, cpfJob("quick-2"))
		got := results(t, js, cfg, 2, 20*time.Second)
		if res, ok := got["quick-2"]; !ok || res.Status != flowjob.StatusSucceeded {
			t.Fatalf("the job for the lone free slot: %+v; want it succeeded while the long jobs run", res)
		}
		if n := r.running.Load(); n != int64(cfg.Parallel-1) {
			t.Fatalf("%d jobs running when quick-2's result came, want the %d long ones", n, cfg.Parallel-1)
		}
		free()
		results(t, js, cfg, cfg.Parallel+1, 20*time.Second)
	})
}

// TestBacklogIsPulledInBatches: under a backlog, 8 slots ask for their
// jobs in requests of more than one (dispatcher.batched), and never for
// more than their free slots.
func TestBacklogIsPulledInBatches(t *testing.T) {
	const jobs = 400
	eachBroker(t, func(t *testing.T, url string) {
		cfg, nc, js := provisioned(t, url)
		cfg.Parallel = 8
		var mu sync.Mutex
		batches := map[int]int{} // batch size → requests
		sub, err := nc.Subscribe("$JS.API.CONSUMER.MSG.NEXT."+cfg.JobsStream+"."+cfg.Consumer, func(m *nats.Msg) {
			var req struct {
				Batch int `json:"batch"`
			}
			if err := json.Unmarshal(m.Data, &req); err != nil {
				t.Errorf("a pull request the test cannot read: %q: %v", m.Data, err)
				return
			}
			mu.Lock()
			batches[req.Batch]++
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			publish(t, js, cfg, cpfJob(fmt.Sprintf("backlog-%03d", i)))
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		startExecutor(t, connect(t, url), cfg, newRunner(cfg.Parallel))
		results(t, js, cfg, jobs, 60*time.Second)
		_ = sub.Unsubscribe()
		mu.Lock()
		defer mu.Unlock()
		requests, batched := 0, 0
		for size, n := range batches {
			if size < 1 || size > cfg.Parallel {
				t.Errorf("%d requests for %d jobs: want 1 to %d (Parallel)", n, size, cfg.Parallel)
			}
			requests += n
			if size > 1 {
				batched += n
			}
		}
		// Two at a time would give jobs/2 requests; a slow machine leaves
		// more slots alone past pullBatchWait, so the bound has slack.
		if batched < requests/10 {
			t.Fatalf("%d of %d pull requests asked for more than one job (%v): the backlog was pulled a job at a time", batched, requests, batches)
		}
		t.Logf("%d pull requests for %d jobs: %v", requests, jobs, batches)
	})
}
