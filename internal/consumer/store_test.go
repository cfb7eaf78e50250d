package consumer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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
			if _, err := Provision(ctx, js, cfg, ApplyConfig); err != nil {
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
			len(jobs.Subjects) != 1 || jobs.Subjects[0] != cfg.Subjects().JobsFilter() {
			t.Errorf("JOBS stream config = %+v", jobs)
		}
		info := consumerInfo(t, js, cfg)
		if info.Config.AckPolicy != jetstream.AckExplicitPolicy || info.Config.AckWait != cfg.AckWait ||
			info.Config.MaxDeliver != -1 || info.Config.Durable != cfg.Consumer {
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

// TestProvisionNamesTheStreamThatHoldsItsSubjects: a replica given a
// JOBS_STREAM of another name over subjects an existing stream takes is
// told which stream that is (the broker's 10065 does not say).
func TestProvisionNamesTheStreamThatHoldsItsSubjects(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 20*time.Second)
		if _, err := Provision(ctx, js, cfg, ApplyConfig); err != nil {
			t.Fatal(err)
		}
		other := cfg
		other.JobsStream = cfg.JobsStream + "_2"
		testenv.DeleteStreamsAtCleanup(t, url, other.JobsStream)
		_, err := Provision(ctx, js, other, ApplyConfig)
		if want := "stream " + cfg.JobsStream + " already takes its subjects (" + cfg.Subjects().JobsFilter() + ")"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("provisioning over another stream's subjects: %v, want it to say %q", err, want)
		}
	})
}

// TestProvisionOwnsTheConfig: a replica applies its settings when it
// starts (ApplyConfig) and, re-provisioning later, only creates what is
// missing (CreateMissing), so an older replica still running in a rollout
// never reverts a newer one's settings.
func TestProvisionOwnsTheConfig(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		old := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 20*time.Second)
		newer := old
		newer.AckWait, newer.JobsMaxMsgs = 2*old.AckWait, old.JobsMaxMsgs/2
		if _, err := Provision(ctx, js, newer, ApplyConfig); err != nil {
			t.Fatal(err)
		}
		if _, err := Provision(ctx, js, old, CreateMissing); err != nil {
			t.Fatal(err)
		}
		check := func(when string, want Config) {
			t.Helper()
			if got := consumerInfo(t, js, want).Config.AckWait; got != want.AckWait {
				t.Errorf("%s: consumer AckWait %s, want %s", when, got, want.AckWait)
			}
			s, err := js.Stream(ctx, want.JobsStream)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.CachedInfo().Config.MaxMsgs; got != want.JobsMaxMsgs {
				t.Errorf("%s: JOBS MaxMsgs %d, want %d", when, got, want.JobsMaxMsgs)
			}
		}
		check("an older replica re-provisioning", newer)
		if err := js.DeleteConsumer(ctx, old.JobsStream, old.Consumer); err != nil {
			t.Fatal(err)
		}
		if _, err := Provision(ctx, js, old, CreateMissing); err != nil {
			t.Fatal(err)
		}
		check("a deleted consumer recreated by an older replica", Config{JobsStream: newer.JobsStream, Consumer: newer.Consumer,
			AckWait: old.AckWait, JobsMaxMsgs: newer.JobsMaxMsgs})
		if _, err := Provision(ctx, js, old, ApplyConfig); err != nil {
			t.Fatal(err)
		}
		check("a replica starting with the old settings", old)
	})
}

// TestProvisionRacesAreHarmless: replicas starting together provision at
// once; every one of them succeeds.
func TestProvisionRacesAreHarmless(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		js := jetStream(t, connect(t, url))
		ctx := testenv.Context(t, 30*time.Second)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { _, errs[i] = Provision(ctx, js, cfg, ApplyConfig) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}
	})
}

// TestResultStoreFirstWins pins the broker behaviour the executor relies on:
// an expected last subject sequence of 0 stores only the first result of a
// job id, on NATS 2.9 and on the current server, also under a race.
func TestResultStoreFirstWins(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		ctx, cfg, js, store := provisionedStore(t, url)

		first := flowjob.Result{Version: 1, JobID: "job-1", Status: flowjob.StatusSucceeded, Attempt: 1}
		second := first
		second.Status, second.Attempt = flowjob.StatusFailed, 2
		if err := store.Store(ctx, encode(t, first), nil); err != nil {
			t.Fatalf("storing the first result: %v", err)
		}
		if err := store.Store(ctx, encode(t, second), nil); !errors.Is(err, ErrResultExists) {
			t.Fatalf("storing a second result: got %v, want ErrResultExists", err)
		}
		got, err := store.Load(ctx, "job-1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != flowjob.StatusSucceeded || got.Attempt != 1 {
			t.Errorf("stored result = %+v, want the first one", got)
		}
		if _, err := store.Load(ctx, "job-none"); !errors.Is(err, ErrNoResult) {
			t.Errorf("loading a missing result: got %v, want ErrNoResult", err)
		}

		// Ten writers race on each of ten job ids: one wins per id.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[string]int{}
		for job := range 10 {
			for writer := range 10 {
				wg.Go(func() {
					r := flowjob.Result{Version: 1, JobID: fmt.Sprintf("race-%d", job), Attempt: writer + 1}
					err := store.Store(context.Background(), encode(t, r), nil)
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

func encode(t testing.TB, r flowjob.Result) EncodedResult {
	t.Helper()
	enc, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestResultStoreCarriesOnlyAWellFormedTraceContext: the job's
// traceparent and tracestate reach the stored result as the propagator
// reads them; a malformed traceparent is dropped, as on the Reply-To copy.
func TestResultStoreCarriesOnlyAWellFormedTraceContext(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx, cfg, js, store := provisionedStore(t, testenv.EmbeddedNATS(t).ClientURL())
	s, err := js.Stream(ctx, cfg.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		job                   string
		header                nats.Header
		wantParent, wantState string
	}{
		{"tp-good", nats.Header{flowjob.HeaderTraceParent: {parent}, flowjob.HeaderTraceState: {"vendor=x"}}, parent, "vendor=x"},
		{"tp-garbage", nats.Header{flowjob.HeaderTraceParent: {"garbage"}, flowjob.HeaderTraceState: {"vendor=x"}}, "", ""},
		{"tp-none", nil, "", ""},
	} {
		if err := store.Store(ctx, encode(t, flowjob.Result{Version: 1, JobID: c.job, Status: flowjob.StatusSucceeded, Attempt: 1}), c.header); err != nil {
			t.Fatal(err)
		}
		m, err := s.GetLastMsgForSubject(ctx, cfg.Subjects().Result(c.job))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Header.Get(flowjob.HeaderTraceParent); got != c.wantParent {
			t.Errorf("%s: traceparent %q, want %q", c.job, got, c.wantParent)
		}
		if got := m.Header.Get(flowjob.HeaderTraceState); got != c.wantState {
			t.Errorf("%s: tracestate %q, want %q", c.job, got, c.wantState)
		}
	}
}

// provisionedStore is a ResultStore on url's broker, its streams
// provisioned under a config of their own, with a context for the test.
func provisionedStore(t *testing.T, url string) (context.Context, Config, jetstream.JetStream, *ResultStore) {
	t.Helper()
	cfg := testConfig(t, url)
	js := jetStream(t, connect(t, url))
	ctx := testenv.Context(t, 20*time.Second)
	if _, err := Provision(ctx, js, cfg, ApplyConfig); err != nil {
		t.Fatal(err)
	}
	return ctx, cfg, js, NewResultStore(js, cfg)
}
