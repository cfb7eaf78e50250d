package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

func TestProvisionIsIdempotent(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 20*time.Second)
		for i := range 2 {
			if _, err := Provision(ctx, js, cfg); err != nil {
				t.Fatalf("provisioning (call %d): %v", i+1, err)
			}
		}
		s, err := js.Stream(ctx, cfg.JobsStream)
		if err != nil {
			t.Fatal(err)
		}
		jobs := s.CachedInfo().Config
		if jobs.Retention != jetstream.WorkQueuePolicy || jobs.Storage != jetstream.FileStorage ||
			jobs.Discard != jetstream.DiscardNew || jobs.Duplicates != cfg.DuplicateWindow ||
			len(jobs.Subjects) != 1 || jobs.Subjects[0] != cfg.JobsSubjects() {
			t.Errorf("JOBS stream config = %+v", jobs)
		}
		info := consumerInfo(t, js, cfg)
		if info.Config.AckPolicy != jetstream.AckExplicitPolicy || info.Config.AckWait != cfg.AckWait ||
			info.Config.MaxDeliver != cfg.MaxDeliver || info.Config.Durable != cfg.Consumer {
			t.Errorf("consumer config = %+v", info.Config)
		}
		rs, err := js.Stream(ctx, cfg.ResultsStream)
		if err != nil {
			t.Fatal(err)
		}
		if got := rs.CachedInfo().Config.MaxMsgsPerSubject; got != 1 {
			t.Errorf("RESULTS MaxMsgsPerSubject = %d, want 1", got)
		}
	})
}

// TestResultStoreFirstWins pins the broker behaviour the executor relies on:
// an expected last subject sequence of 0 stores only the first result of a
// job id, on NATS 2.9 and on the current server, also under a race.
func TestResultStoreFirstWins(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 20*time.Second)
		if _, err := Provision(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
		store := NewResultStore(js, cfg)

		first := flowjob.Result{Version: 1, JobID: "job-1", Status: flowjob.StatusSucceeded, Attempt: 1}
		second := first
		second.Status, second.Attempt = flowjob.StatusFailed, 2
		if err := store.Store(ctx, first, nil); err != nil {
			t.Fatalf("storing the first result: %v", err)
		}
		if err := store.Store(ctx, second, nil); !errors.Is(err, ErrResultExists) {
			t.Fatalf("storing a second result: got %v, want ErrResultExists", err)
		}
		got, err := store.Load(ctx, "job-1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != flowjob.StatusSucceeded || got.Attempt != 1 {
			t.Errorf("stored result = %+v, want the first one", got)
		}
		if _, err := store.Load(ctx, "job-none"); !errors.Is(err, jetstream.ErrMsgNotFound) {
			t.Errorf("loading a missing result: got %v, want ErrMsgNotFound", err)
		}

		// Ten writers race on each of ten job ids: one wins per id.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[string]int{}
		for job := range 10 {
			for writer := range 10 {
				wg.Go(func() {
					r := flowjob.Result{Version: 1, JobID: fmt.Sprintf("race-%d", job), Attempt: writer + 1}
					err := store.Store(context.Background(), r, nil)
					switch {
					case err == nil:
						mu.Lock()
						wins[r.JobID]++
						mu.Unlock()
					case !errors.Is(err, ErrResultExists):
						t.Errorf("racing store: %v", err)
					}
				})
			}
		}
		wg.Wait()
		for job := range 10 {
			if n := wins[fmt.Sprintf("race-%d", job)]; n != 1 {
				t.Errorf("race-%d: %d writers won, want 1", job, n)
			}
		}
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 11 {
			t.Errorf("RESULTS holds %d messages, want 11", n)
		}
	})
}
