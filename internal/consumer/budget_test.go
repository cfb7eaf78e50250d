package consumer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestStoreFailureOnTheLastAttempt: a job whose result cannot be stored on
// its last attempt is not lost: it is handed back, ended as
// DELIVERY_EXHAUSTED by the next delivery, and kept in JOBS until that
// result and its dead letter are stored.
func TestStoreFailureOnTheLastAttempt(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.MaxDeliver = 2
		cfg.StoreRetryMaxElapsed = 200 * time.Millisecond
		withoutHealthCheck(&cfg) // RESULTS stays deleted until the test creates it
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		ctx := testenv.Context(t, 60*time.Second)
		if err := js.DeleteStream(ctx, cfg.ResultsStream); err != nil {
			t.Fatal(err)
		}
		publish(t, js, cfg, cpfJob("last-store"))
		waitFor(t, 20*time.Second, "deliveries past the budget", func() bool {
			return consumerInfo(t, js, cfg).NumRedelivered >= 1 && consumerInfo(t, js, cfg).Delivered.Consumer > uint64(cfg.MaxDeliver)
		})
		if n := streamMsgs(t, js, cfg.JobsStream); n != 1 {
			t.Fatalf("the job left JOBS (%d messages) without a stored result", n)
		}
		if _, err := js.CreateStream(ctx, ResultsStreamConfig(cfg)); err != nil {
			t.Fatal(err)
		}
		res := results(t, js, cfg, 1, 30*time.Second)["last-store"]
		readAll(t, js, cfg.DLQStream, 1, 10*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if res.Status != flowjob.StatusFailed || res.Error == nil || res.Error.Code != flowjob.CodeDeliveryExhausted {
			t.Errorf("result %+v, want failed DELIVERY_EXHAUSTED", res)
		} else if !strings.Contains(res.Error.Message, "attempts (MAX_DELIVER is 2); last error: ") {
			t.Errorf("its message %q does not say how many attempts were made against MAX_DELIVER", res.Error.Message)
		}
		if runs := r.calls.Load(); runs != 1 {
			t.Errorf("the job ran %d times, want 1 (later deliveries could not look its result up)", runs)
		}
	})
}

// TestStoreRefusalOnTheLastAttemptIsNamed: when RESULTS answers but refuses
// the result (full, discarding new messages), the DELIVERY_EXHAUSTED result
// and its dead letter, stored once RESULTS takes them, say what the store
// answered on the last attempt, not only "see that replica's log".
func TestStoreRefusalOnTheLastAttemptIsNamed(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.MaxDeliver = 2
		cfg.StoreRetryMaxElapsed = 200 * time.Millisecond
		withoutHealthCheck(&cfg)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		ctx := testenv.Context(t, 60*time.Second)
		full := ResultsStreamConfig(cfg)
		full.MaxMsgs, full.Discard = 1, jetstream.DiscardNew
		if _, err := js.UpdateStream(ctx, full); err != nil {
			t.Fatal(err)
		}
		filler := encode(t, flowjob.Result{Version: 1, JobID: "filler", Status: flowjob.StatusSucceeded})
		if err := NewResultStore(js, cfg).Store(ctx, filler, nil); err != nil {
			t.Fatal(err)
		}
		publish(t, js, cfg, cpfJob("refused"))
		waitFor(t, 20*time.Second, "a delivery past the budget", func() bool {
			return consumerInfo(t, js, cfg).Delivered.Consumer > uint64(cfg.MaxDeliver)
		})
		if _, err := js.UpdateStream(ctx, ResultsStreamConfig(cfg)); err != nil {
			t.Fatal(err)
		}
		res := results(t, js, cfg, 2, 30*time.Second)["refused"]
		letters := readAll(t, js, cfg.DLQStream, 1, 10*time.Second)
		if res.Error == nil || res.Error.Code != flowjob.CodeDeliveryExhausted {
			t.Fatalf("result %+v, want failed DELIVERY_EXHAUSTED", res)
		}
		for what, text := range map[string]string{
			"the result's message":   res.Error.Message,
			"the dead letter reason": letters[0].header.Get(HeaderDLQReason),
		} {
			if !strings.Contains(text, "the last attempt could not store its result: storing result of job refused") ||
				!strings.Contains(text, "maximum messages") {
				t.Errorf("%s is %q, want the store's refusal of the last attempt", what, text)
			}
		}
	})
}

// newBudget is a delivery budget leaving out up to maxLeftOut interruptions, on
// the interruptions bucket of streams provisioned for the test on url, and
// the test's context.
func newBudget(t *testing.T, url string, maxLeftOut int) (context.Context, *deliveryBudget) {
	t.Helper()
	cfg := testConfig(t, url)
	ctx := testenv.Context(t, 20*time.Second)
	s := provision(ctx, t, jetStream(t, connect(t, url)), cfg)
	return ctx, &deliveryBudget{kv: s.Interruptions, max: maxLeftOut, log: testLogger(t)}
}

// TestInterruptionsDoNotCountAsAttempts: deliveries noted as interrupted
// are left out of a job's attempts, up to MaxDeliver of them.
func TestInterruptionsDoNotCountAsAttempts(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		ctx, b := newBudget(t, url, 2)
		d := &delivery{attempt: 1, streamSeq: 7, log: testLogger(t)}
		for _, want := range []int{1, 1, 1, 2, 3} {
			if got := b.tries(ctx, d); got != want {
				t.Fatalf("delivery %d: tries %d, want %d", d.attempt, got, want)
			}
			b.noteInterruption(ctx, d)
			d.attempt++
		}
		other := &delivery{attempt: 3, streamSeq: 8, log: testLogger(t)}
		if got := b.tries(ctx, other); got != 3 {
			t.Errorf("a job without notes: tries %d, want its 3 deliveries", got)
		}
		if got := (*deliveryBudget)(nil).tries(ctx, other); got != 3 {
			t.Errorf("no budget: tries %d, want 3", got)
		}
	})
}

// TestNotesOfAnEarlierRelease: during a rolling upgrade an old replica
// notes an interruption, or a last failure, under the job's sequence alone;
// the new replica reads it when the job was stored before the note was
// made, and not when the note is older than the job (it belongs to a job of
// an earlier JOBS stream with the same sequence).
func TestNotesOfAnEarlierRelease(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		ctx, b := newBudget(t, url, 5)

		stored := time.Now().Add(-time.Minute)
		if _, err := b.kv.PutString(ctx, "7", "2"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.kv.PutString(ctx, "7.failure", "the result store refused it"); err != nil {
			t.Fatal(err)
		}
		d := &delivery{attempt: 3, streamSeq: 7, published: stored, log: testLogger(t)}
		if got := b.tries(ctx, d); got != 1 {
			t.Errorf("a job stored before the old release's note: tries %d, want 1 (3 deliveries, 2 interrupted)", got)
		}
		if got := b.lastFailure(ctx, d); got != "the result store refused it" {
			t.Errorf("its last failure: %q", got)
		}

		later := &delivery{attempt: 3, streamSeq: 7, published: time.Now().Add(time.Minute), log: testLogger(t)}
		if got := b.tries(ctx, later); got != 3 {
			t.Errorf("a job stored after the note (a recreated JOBS stream): tries %d, want 3", got)
		}
		if got := b.lastFailure(ctx, later); got != "" {
			t.Errorf("a job stored after the note took its failure %q", got)
		}

		b.noteInterruption(ctx, d) // carries the old note's count over to the new key
		d.attempt++
		if got := b.tries(ctx, d); got != 1 {
			t.Errorf("after a third interruption: tries %d, want 1 (4 deliveries, 3 interrupted)", got)
		}
		if err := b.kv.Delete(ctx, "7"); err != nil {
			t.Fatal(err)
		}
		if got := b.tries(ctx, d); got != 1 {
			t.Errorf("the old note gone: tries %d, want 1 (the new key holds all 3)", got)
		}
	})
}

// TestLeftoversWithAResultAreSwept: jobs the broker left below the
// consumer's ack floor (as nats-server 2.9 does after a crash) are removed
// when their result is stored and reported otherwise. A limits stream
// stands in for the crashed work queue: it keeps acked messages too.
func TestLeftoversWithAResultAreSwept(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 30*time.Second)
		provision(ctx, t, js, cfg)
		leftCfg := JobsStreamConfig(cfg)
		leftCfg.Name, leftCfg.Retention = cfg.JobsStream+"_LEFT", jetstream.LimitsPolicy
		leftCfg.Subjects = []string{"left." + cfg.Consumer + ".>"}
		jobs, err := js.CreateStream(ctx, leftCfg)
		if err != nil {
			t.Fatal(err)
		}
		testenv.DeleteStreamsAtCleanup(t, url, leftCfg.Name)
		store := NewResultStore(js, cfg)
		for i, id := range []string{"left-1", "left-2", "left-3", "pending"} {
			data, _ := json.Marshal(cpfJob(id))
			if _, err := js.Publish(ctx, "left."+cfg.Consumer+".x", data); err != nil {
				t.Fatal(err)
			}
			if i < 2 {
				if err := store.Store(ctx, encode(t, flowjob.Result{Version: 1, JobID: id, Status: flowjob.StatusSucceeded}), nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		cons, err := jobs.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "left", AckPolicy: jetstream.AckExplicitPolicy})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := cons.Fetch(4, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			if seq := m.Headers(); seq != nil || true {
				if meta, _ := m.Metadata(); meta.Sequence.Stream <= 3 {
					if err := m.DoubleAck(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		filter := "left." + cfg.Consumer + ".>"
		sw, err := sweepLeftovers(ctx, jobs, cons, store, filter, 0, maxSweep)
		if err != nil {
			t.Fatal(err)
		}
		if sw.removed != 2 || len(sw.kept) != 1 || sw.kept[0] != 3 {
			t.Fatalf("sweep removed %d and kept %v, want 2 removed and sequence 3 kept", sw.removed, sw.kept)
		}
		info, err := jobs.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs != 2 {
			t.Errorf("%d messages left, want 2 (the unanswered leftover and the pending job)", info.State.Msgs)
		}
		again, err := sweepLeftovers(ctx, jobs, cons, store, filter, sw.lastKept, maxSweep)
		if err != nil || again.removed != 0 || len(again.kept) != 0 {
			t.Errorf("second sweep: %+v, %v: want nothing new", again, err)
		}
		if _, err := jobs.GetMsg(context.Background(), 4); err != nil {
			t.Errorf("the pending job above the ack floor was touched: %v", err)
		}
	})
}
