package consumer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

func TestResultLookupPolicy(t *testing.T) {
	for _, tc := range []struct {
		replicas int
		policy   ResultLookup
		want     bool
	}{
		{1, LookupAuto, false},
		{3, LookupAuto, true},
		{5, LookupAuto, true},
		{3, LookupRedeliveries, false},
		{1, LookupEveryDelivery, true},
	} {
		cfg := Config{Replicas: tc.replicas, ResultLookup: tc.policy}.WithDefaults()
		if got := cfg.LooksUpEveryDelivery(); got != tc.want {
			t.Errorf("replicas %d, policy %d: LooksUpEveryDelivery() = %v, want %v", tc.replicas, tc.policy, got, tc.want)
		}
	}
	if err := (Config{ResultLookup: 7}).WithDefaults().Validate(); err == nil {
		t.Error("an unknown lookup policy passed Validate")
	}
}

// TestFinishedJobDeliveredAgainIsNotRun: with the lookup on every delivery
// (a cluster's default), a finished job that comes back as a first
// delivery — a stale replica's copy of JOBS, a consumer whose state went
// back — is answered from the store and never runs again; its inbox is
// told only when it is not the inbox already told. Here the job comes back
// as a second message of the same job, as a publish after the duplicate
// window would bring it.
func TestFinishedJobDeliveredAgainIsNotRun(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.ResultLookup = LookupEveryDelivery
		nc := connect(t, url)
		js := jetStream(t, nc)
		replies, root := replyInboxes(t, nc, cfg)
		first, second := root+".first", root+".second"
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		data, _ := json.Marshal(cpfJob("again-1"))
		publishRaw(t, js, cfg, data, "again-1", nats.Header{flowjob.HeaderReplyTo: []string{first}})
		results(t, js, cfg, 1, 10*time.Second)
		publishRaw(t, js, cfg, data, "again-1-same-inbox", nats.Header{flowjob.HeaderReplyTo: []string{first}})
		publishRaw(t, js, cfg, data, "again-1-new-inbox", nats.Header{flowjob.HeaderReplyTo: []string{second}})
		settled(t, js, cfg, 10*time.Second)
		if runs := r.calls.Load(); runs != 1 {
			t.Errorf("the job ran %d times, want 1 (its later deliveries are answered from the store)", runs)
		}
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 1 {
			t.Errorf("RESULTS holds %d messages, want 1", n)
		}
		got := map[string]int{}
		for {
			msg, err := replies.NextMsg(time.Second)
			if err != nil {
				break
			}
			got[msg.Subject]++
		}
		if got[first] != 1 || got[second] != 1 || len(got) != 2 {
			t.Errorf("replies by inbox %v: want one on each of %s and %s", got, first, second)
		}
	})
}

// TestJobThatMayActIsNotRunAgain: on one server (lookups on redeliveries
// only), a job that asks for host functions, or resumes a continuation,
// looks its result up on its first delivery too. Published again after
// the duplicate window (an engine retrying with the same id, as it
// should), it is answered from the store: its host calls never run twice.
// A plain job published again runs again, as the duplicate window says.
func TestJobThatMayActIsNotRunAgain(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		acts := cpfJob("acts-1")
		acts.TenantID, acts.Capabilities = "acme", []string{flowjob.CapabilityKV}
		plain := cpfJob("plain-1")
		for _, job := range []*flowjob.Job{acts, plain} {
			data, _ := json.Marshal(job)
			publishRaw(t, js, cfg, data, job.ID, nil)
			settled(t, js, cfg, 10*time.Second)
			publishRaw(t, js, cfg, data, job.ID+"-after-the-window", nil)
			settled(t, js, cfg, 10*time.Second)
		}
		if runs := r.calls.Load(); runs != 3 {
			t.Errorf("the jobs ran %d times, want 3: the one with capabilities once, the plain one twice", runs)
		}
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 2 {
			t.Errorf("RESULTS holds %d messages, want 2 (one per job)", n)
		}
	})
}

// TestDeletedConsumerIsCreatedAgain: a consumer deleted under a running
// replica (an operator's mistake, a broker's lost state) is created again
// and jobs flow, on nats-server 2.9 too, where pulls on it then wait
// without failing and only the health check finds it missing.
func TestDeletedConsumerIsCreatedAgain(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		publish(t, js, cfg, cpfJob("before-delete"))
		results(t, js, cfg, 1, 10*time.Second)
		if err := js.DeleteConsumer(testenv.Context(t, 10*time.Second), cfg.JobsStream, cfg.Consumer); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * cfg.HealthInterval)
		publish(t, js, cfg, cpfJob("after-delete"))
		if r := results(t, js, cfg, 2, 60*time.Second)["after-delete"]; r.Status != flowjob.StatusSucceeded {
			t.Errorf("the job after the consumer was deleted: %s %+v", r.Status, r.Error)
		}
	})
}

// TestDeletedOutcomeStreamsAreCreatedAgain: a results or dead-letter
// stream deleted under a running replica is created again by its health
// check (which fails meanwhile: TestHealthCheckNamesAMissingResultsStream);
// jobs published after it get their results. Without the check no job could
// finish (each was run and handed back) while /readyz said ready, until a
// restart.
func TestDeletedOutcomeStreamsAreCreatedAgain(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		e := startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		publish(t, js, cfg, cpfJob("before-delete"))
		results(t, js, cfg, 1, 10*time.Second)
		for _, stream := range []string{cfg.ResultsStream, cfg.DLQStream} {
			if err := js.DeleteStream(testenv.Context(t, 10*time.Second), stream); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 30*time.Second, "the "+stream+" stream created again", func() bool {
				_, err := js.Stream(testenv.Context(t, 5*time.Second), stream)
				return err == nil
			})
		}
		publish(t, js, cfg, cpfJob("after-delete"))
		if r := results(t, js, cfg, 1, 60*time.Second)["after-delete"]; r.Status != flowjob.StatusSucceeded {
			t.Errorf("the job after the streams were deleted: %s %+v", r.Status, r.Error)
		}
		waitFor(t, 30*time.Second, "the replica ready again", func() bool { ok, _ := e.Ready(); return ok })
	})
}

// TestHealthCheckNamesAMissingResultsStream: while the results stream is
// missing the health check fails, naming it.
func TestHealthCheckNamesAMissingResultsStream(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	cfg := testConfig(t, url)
	nc := connect(t, url)
	js := jetStream(t, nc)
	e := startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
	if err := e.askBroker(testenv.Context(t, 10*time.Second)); err != nil {
		t.Fatalf("with every stream: %v", err)
	}
	e.stop(t) // no health check recreates it meanwhile
	if err := js.DeleteStream(testenv.Context(t, 10*time.Second), cfg.ResultsStream); err != nil {
		t.Fatal(err)
	}
	err := e.askBroker(testenv.Context(t, 10*time.Second))
	if !errors.Is(err, jetstream.ErrStreamNotFound) || !strings.Contains(err.Error(), cfg.ResultsStream) {
		t.Errorf("without the results stream: %v, want stream not found naming %s", err, cfg.ResultsStream)
	}
}

// TestStoredAfterAllIsOwnResult: a store whose answer was lost (a leader
// change, a broker restart) but which stored the result after all finds
// that result when it retries: it is this delivery's own, so the delivery
// is no repeat and its Reply-To inbox is told (a repeat would skip the
// inbox the stored result names, and it would never be told).
func TestStoredAfterAllIsOwnResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		replies, root := replyInboxes(t, nc, cfg)
		inbox := root + ".own"
		r := newRunner(cfg.Parallel)
		e := startExecutor(t, nc, cfg, r)
		e.stop(t) // provisioned, not pulling: this test handles the delivery itself
		e.handler.writer = func() string { return "first-try" }

		job := cpfJob("own-1")
		data, _ := json.Marshal(job)
		publishRaw(t, js, cfg, data, job.ID, nats.Header{flowjob.HeaderReplyTo: []string{inbox}})
		msg, err := (*e.consumer.Load()).Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("pulling the job: %v", err)
		}
		// The first try was stored, its answer lost: the retry finds it.
		res := flowjob.Result{Version: flowjob.ContractVersion, JobID: job.ID, SessionID: job.SessionID,
			Status: flowjob.StatusSucceeded, Attempt: 1}
		enc := encode(t, res)
		enc.Writer = "first-try"
		if err := NewResultStore(js, cfg).Store(testenv.Context(t, 5*time.Second), enc, msg.Headers()); err != nil {
			t.Fatal(err)
		}
		out := e.handler.process(testenv.Context(t, 10*time.Second), newDelivery(msg, testLogger(t)))
		if out.kind != kindStored || out.repeat {
			t.Errorf("outcome %s (repeat %v), want this delivery's stored result", out.label(), out.repeat)
		}
		if _, err := replies.NextMsg(5 * time.Second); err != nil {
			t.Errorf("the Reply-To inbox was not told: %v", err)
		}

		// Another writer's result is a repeat, and the inbox it told is not
		// told again.
		publishRaw(t, js, cfg, data, job.ID+"-again", nats.Header{flowjob.HeaderReplyTo: []string{inbox}})
		e.handler.writer = func() string { return "second-try" }
		e.handler.cfg.ResultLookup = LookupRedeliveries // let it run and meet the stored result
		msg, err = (*e.consumer.Load()).Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("pulling the second message: %v", err)
		}
		out = e.handler.process(testenv.Context(t, 10*time.Second), newDelivery(msg, testLogger(t)))
		if out.kind != kindStored || !out.repeat {
			t.Errorf("outcome %s (repeat %v), want a repeat", out.label(), out.repeat)
		}
		if m, err := replies.NextMsg(time.Second); err == nil {
			t.Errorf("the inbox was told twice: %s", m.Data)
		}
	})
}
