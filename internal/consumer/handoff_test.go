package consumer

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestSlotIsFreeWhileAResultIsStored: a job gives its sandbox slot back once
// its script has run, so the next job runs while the broker stores the last
// one's result; the replica then holds at most Parallel jobs storing
// results beside the Parallel in its slots, and never pulls a job no slot
// is free for. The store is held up by deleting RESULTS: stores are retried
// until it is back.
func TestSlotIsFreeWhileAResultIsStored(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.Parallel = 1
		cfg.StoreRetryMaxElapsed = time.Minute
		withoutHealthCheck(&cfg) // RESULTS stays deleted until the test creates it
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(4) // the runner allows more than Parallel: the executor must hold back
		e := startExecutor(t, nc, cfg, r)
		ctx := testenv.Context(t, time.Minute)
		if err := js.DeleteStream(ctx, cfg.ResultsStream); err != nil {
			t.Fatal(err)
		}
		const n = 3
		for i := range n {
			publish(t, js, cfg, cpfJob(fmt.Sprintf("handoff-%d", i)))
		}
		// The first job's store is failing; the second runs meanwhile.
		waitFor(t, 20*time.Second, "a second job to run while the first one's result cannot be stored",
			func() bool { return r.calls.Load() == 2 })
		// Both are storing: no slot is free for the third (Parallel=1 and
		// as many again storing), so it stays in JOBS, not pulled.
		waitFor(t, 10*time.Second, "both jobs to leave their slot", func() bool { return e.InFlight() == 0 })
		time.Sleep(300 * time.Millisecond)
		info := consumerInfo(t, js, cfg)
		if calls := r.calls.Load(); calls != 2 || info.NumAckPending != 2 || info.NumPending != 1 {
			t.Fatalf("with two results waiting for the store: %d runs, %d jobs held, %d waiting in JOBS; want 2, 2, 1",
				calls, info.NumAckPending, info.NumPending)
		}
		if _, err := js.CreateOrUpdateStream(ctx, ResultsStreamConfig(cfg)); err != nil {
			t.Fatal(err)
		}
		got := results(t, js, cfg, n, 30*time.Second)
		settled(t, js, cfg, 10*time.Second)
		for id, res := range got {
			if res.Status != flowjob.StatusSucceeded || res.Attempt != 1 {
				t.Errorf("%s: status %s at attempt %d, want succeeded at attempt 1", id, res.Status, res.Attempt)
			}
		}
		if m := r.maxSeen.Load(); m != 1 || e.MaxInFlight() != 1 {
			t.Errorf("%d jobs ran at once (%d held a slot at once), over Parallel=1", m, e.MaxInFlight())
		}
		if calls := r.calls.Load(); calls != n {
			t.Errorf("%d runs for %d jobs: a job ran twice", calls, n)
		}
	})
}
