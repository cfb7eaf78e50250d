package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/pause"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// kind is one class of job of the mixed load, with what its result must be.
type kind struct {
	name      string
	make      func(id string) *flowjob.Job
	status    flowjob.Status
	directive flowjob.DirectiveType
	code      string // "" on success
	output    string // checked on success
}

func boolPtr(b bool) *bool { return &b }

var kinds = []kind{
	{"cpf valid", cpfJob, flowjob.StatusSucceeded, flowjob.DirectiveContinue, "", "valido"},
	{"cpf invalid", func(id string) *flowjob.Job {
		j := cpfJob(id)
		j.Variables["cpf"] = "123"
		return j
	}, flowjob.StatusSucceeded, flowjob.DirectiveContinue, "", "invalido"},
	{"throw continue", func(id string) *flowjob.Job {
		return newJob(id, "throw new Error('boom')")
	}, flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeScriptError, ""},
	{"throw handoff", func(id string) *flowjob.Job {
		j := newJob(id, "throw new Error('boom')")
		j.Action.OnError = flowjob.OnErrorBlocking
		j.Action.ErrorMessage = "Vamos te passar para um atendente."
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveFreezeHandoff, flowjob.CodeScriptError, ""},
	{"throw redirect", func(id string) *flowjob.Job {
		j := newJob(id, "throw new Error('boom')")
		j.Action.OnError = flowjob.OnErrorBlocking
		j.Action.ErrorHandoff = boolPtr(false)
		j.DefaultExceptionBlockID = "exception-block"
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveRedirect, flowjob.CodeScriptError, ""},
	{"tool throw", func(id string) *flowjob.Job {
		j := newJob(id, "throw new Error('boom')")
		j.Context = flowjob.ContextTool
		j.Action.OnError = flowjob.OnErrorBlocking
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveThrow, flowjob.CodeScriptError, ""},
	{"syntax error", func(id string) *flowjob.Job {
		return newJob(id, "return (")
	}, flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeSyntaxError, ""},
	{"timeout", func(id string) *flowjob.Job {
		j := newJob(id, "while (true) {}")
		j.TimeoutMs = 20
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeTimeout, ""},
	{"deadline passed", func(id string) *flowjob.Job {
		j := cpfJob(id)
		past := time.Now().Add(-time.Minute)
		j.Deadline = &past
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeDeadlineExceeded, ""},
	{"deadline while running", func(id string) *flowjob.Job {
		// The script would run past the deadline (the runner's limit is
		// longer): the deadline ends it, and says so.
		j := newJob(id, "while (true) {}")
		soon := time.Now().Add(50 * time.Millisecond)
		j.Deadline = &soon
		return j
	}, flowjob.StatusFailed, flowjob.DirectiveContinue, flowjob.CodeDeadlineExceeded, ""},
}

func checkResult(t *testing.T, k kind, r flowjob.Result) {
	t.Helper()
	code := ""
	if r.Error != nil {
		code = r.Error.Code
	}
	if r.Status != k.status || r.Directive.Type != k.directive || code != k.code {
		t.Errorf("%s job %s: status %s, directive %s, code %q; want %s, %s, %q",
			k.name, r.JobID, r.Status, r.Directive.Type, code, k.status, k.directive, k.code)
	}
	if k.status == flowjob.StatusSucceeded && r.Variables["out"] != k.output {
		t.Errorf("%s job %s: out = %q, want %q", k.name, r.JobID, r.Variables["out"], k.output)
	}
	if r.SessionID != "session-"+r.JobID || r.Attempt < 1 {
		t.Errorf("%s job %s: session %q attempt %d", k.name, r.JobID, r.SessionID, r.Attempt)
	}
}

// TestMixedLoadGivesOneResultPerJob is the end-to-end acceptance: 1,000 jobs
// of every outcome give exactly 1,000 results, one per job id, each with
// the policy's directive, and leave nothing unacked.
func TestMixedLoadGivesOneResultPerJob(t *testing.T) {
	const n = 1000
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)

		kindOf := map[string]kind{}
		for i := range n {
			k := kinds[i%len(kinds)]
			id := fmt.Sprintf("mixed-%04d", i)
			kindOf[id] = k
			publish(t, js, cfg, k.make(id))
		}
		got := results(t, js, cfg, n, 90*time.Second)
		for id, k := range kindOf {
			res, ok := got[id]
			if !ok {
				t.Errorf("job %s (%s) has no result", id, k.name)
				continue
			}
			checkResult(t, k, res)
		}
		settled(t, js, cfg, 10*time.Second)
		if m := r.maxSeen.Load(); m > int64(cfg.Parallel) {
			t.Errorf("the runner saw %d jobs at once, over Parallel=%d", m, cfg.Parallel)
		}
	})
}

// TestReplicasShareWorkWithinTheirLimit: each replica runs at most Parallel
// jobs at once, and a replica started after the jobs were published still
// gets a share (the first one does not hoard them).
func TestReplicasShareWorkWithinTheirLimit(t *testing.T) {
	const n = 120
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.Parallel = 3
		js := jetStream(t, connect(t, url))
		provision(testenv.Context(t, 20*time.Second), t, js, cfg)
		for i := range n {
			publish(t, js, cfg, sleepJob(fmt.Sprintf("share-%03d", i), 25))
		}
		a, b := newRunner(8), newRunner(8) // the runners allow more than Parallel: the executor must hold back
		startExecutor(t, connect(t, url), cfg, a)
		waitFor(t, 10*time.Second, "replica A to start", func() bool { return a.calls.Load() > 0 })
		startExecutor(t, connect(t, url), cfg, b)
		results(t, js, cfg, n, 60*time.Second)
		settled(t, js, cfg, 10*time.Second)
		for name, r := range map[string]*runner{"A": a, "B": b} {
			if m := r.maxSeen.Load(); m > int64(cfg.Parallel) {
				t.Errorf("replica %s ran %d jobs at once, over Parallel=%d", name, m, cfg.Parallel)
			}
		}
		if max(a.maxSeen.Load(), b.maxSeen.Load()) != int64(cfg.Parallel) {
			t.Errorf("no replica ever ran %d jobs at once (A %d, B %d): the limit was not exercised",
				cfg.Parallel, a.maxSeen.Load(), b.maxSeen.Load())
		}
		if got := b.calls.Load(); got < n/5 {
			t.Errorf("replica B, started late, ran %d of %d jobs: A hoarded them", got, n)
		}
		if got := a.calls.Load() + b.calls.Load(); got != n {
			t.Errorf("the replicas ran %d jobs, want %d", got, n)
		}
	})
}

// TestDuplicatesGiveOneResult: the same job published twice (within the
// duplicate window, and again with another message id as a publish after
// the window would be) gives one result.
func TestDuplicatesGiveOneResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		provision(testenv.Context(t, 20*time.Second), t, js, cfg)
		job := cpfJob("dup-1")
		data, _ := json.Marshal(job)
		publishRaw(t, js, cfg, data, job.ID, nil)
		publishRaw(t, js, cfg, data, job.ID, nil) // deduplicated by the stream
		if got := streamMsgs(t, js, cfg.JobsStream); got != 1 {
			t.Errorf("JOBS holds %d messages after a duplicate publish, want 1", got)
		}
		publishRaw(t, js, cfg, data, job.ID+"-after-window", nil) // a second message for the same job
		startExecutor(t, nc, cfg, r)
		got := results(t, js, cfg, 1, 20*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if _, ok := got["dup-1"]; !ok {
			t.Fatal("no result for dup-1")
		}
		if runs := r.calls.Load(); runs != 2 {
			t.Errorf("the job ran %d times, want 2 (both messages handled)", runs)
		}
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 1 {
			t.Errorf("RESULTS holds %d messages, want 1", n)
		}
	})
}

// TestLostAckGivesOneResult: a delivery whose result was stored but whose
// ack never reached the broker is redelivered; the redelivery finds the
// stored result and acks without running the job again.
func TestLostAckGivesOneResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.AckWait = 3 * time.Second
		cfg.ProgressInterval = -1
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		e := startExecutor(t, nc, cfg, r)
		e.stop(t) // provisioned, not pulling: this test pulls the first delivery itself

		job := cpfJob("lost-ack")
		publish(t, js, cfg, job)
		cons := *e.consumer.Load()
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("pulling the job: %v", err)
		}
		out := e.handler.process(testenv.Context(t, 10*time.Second), newDelivery(msg, testLogger(t)))
		if out.kind != kindStored || out.repeat {
			t.Fatalf("first delivery: outcome %s, want a stored result", out.label())
		}
		// The ack is "lost": never sent. A new replica gets the redelivery.
		startExecutor(t, connect(t, url), cfg, r)
		settled(t, js, cfg, 15*time.Second)
		res := results(t, js, cfg, 1, 5*time.Second)["lost-ack"]
		if res.Attempt != 1 {
			t.Errorf("stored result is from attempt %d, want the first", res.Attempt)
		}
		if runs := r.calls.Load(); runs != 1 {
			t.Errorf("the job ran %d times, want 1 (the redelivery is answered from the store)", runs)
		}
	})
}

// TestStalledRunRunsTwiceWithOneResult: a run that outlives AckWait (no
// progress acks) is redelivered and runs again while the first still runs;
// both finish, one result is stored, nothing stays pending.
func TestStalledRunRunsTwiceWithOneResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.ScriptTimeout = 500 * time.Millisecond
		cfg.AckWait = time.Second
		cfg.ProgressInterval = -1
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		r.before = func(ctx context.Context, req sandbox.Request, call int64) (sandbox.Result, bool) {
			if call == 1 {
				pause.For(ctx, 2500*time.Millisecond) // stall past AckWait, once
			}
			return sandbox.Result{}, false
		}
		startExecutor(t, nc, cfg, r)
		publish(t, js, cfg, cpfJob("stall-1"))
		waitFor(t, 15*time.Second, "both runs", func() bool { return r.calls.Load() >= 2 })
		res := results(t, js, cfg, 1, 10*time.Second)["stall-1"]
		settled(t, js, cfg, 10*time.Second)
		if res.Attempt != 2 {
			t.Errorf("stored result is from attempt %d, want 2 (the redelivery finished first)", res.Attempt)
		}
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 1 {
			t.Errorf("RESULTS holds %d messages, want 1", n)
		}
	})
}

// TestProgressAcksKeepALongJob: a job that runs longer than AckWait is not
// redelivered while it sends progress acks.
func TestProgressAcksKeepALongJob(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.ScriptTimeout = 500 * time.Millisecond
		cfg.AckWait = 2 * time.Second // progress every 250ms leaves a wide margin on a loaded machine
		cfg.ProgressInterval = 250 * time.Millisecond
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		r.before = func(ctx context.Context, req sandbox.Request, call int64) (sandbox.Result, bool) {
			pause.For(ctx, 4500*time.Millisecond) // over 2 × AckWait, as long as retries of a flaky store
			return sandbox.Result{}, false
		}
		startExecutor(t, nc, cfg, r)
		publish(t, js, cfg, cpfJob("long-1"))
		results(t, js, cfg, 1, 15*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if runs := r.calls.Load(); runs != 1 {
			t.Errorf("the job ran %d times, want 1: progress acks did not hold it", runs)
		}
		if info := consumerInfo(t, js, cfg); info.NumRedelivered != 0 {
			t.Errorf("%d redeliveries, want 0", info.NumRedelivered)
		}
	})
}

// TestShutdownFinishesInFlightJobs: stopping with jobs in flight lets them
// finish, stores their results and acks them; nothing is redelivered.
func TestShutdownFinishesInFlightJobs(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		provision(testenv.Context(t, 20*time.Second), t, js, cfg)
		for i := range cfg.Parallel { // waiting before the executor starts: every slot gets one
			publish(t, js, cfg, sleepJob(fmt.Sprintf("inflight-%d", i), 1000))
		}
		e := startExecutor(t, nc, cfg, r)
		waitFor(t, 20*time.Second, "every job delivered and unacked", func() bool {
			return consumerInfo(t, js, cfg).NumAckPending == cfg.Parallel
		})
		e.stop(t)
		if n := streamMsgs(t, js, cfg.ResultsStream); n != uint64(cfg.Parallel) {
			t.Errorf("%d results stored by the time Run returned, want %d", n, cfg.Parallel)
		}
		settled(t, js, cfg, 5*time.Second)
		if info := consumerInfo(t, js, cfg); info.NumRedelivered != 0 {
			t.Errorf("%d redeliveries, want 0", info.NumRedelivered)
		}
		if runs := r.calls.Load(); runs != int64(cfg.Parallel) {
			t.Errorf("%d runs, want %d", runs, cfg.Parallel)
		}
	})
}

// TestShutdownGraceHandsBackUnfinishedJobs: a job still running when the
// grace period ends is interrupted and handed back, not failed: no result
// is stored for it, and the next replica runs it.
func TestShutdownGraceHandsBackUnfinishedJobs(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.ShutdownGrace = 100 * time.Millisecond
		nc := connect(t, url)
		js := jetStream(t, nc)
		slow := newRunner(cfg.Parallel)
		e := startExecutor(t, nc, cfg, slow)
		publish(t, js, cfg, sleepJob("cut-short", 1500))
		waitFor(t, 10*time.Second, "the job to start", func() bool { return e.InFlight() == 1 })
		e.stop(t)
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 0 {
			t.Fatalf("an interrupted job stored %d results, want 0", n)
		}
		if n := streamMsgs(t, js, cfg.DLQStream); n != 0 {
			t.Fatalf("an interrupted job was dead-lettered")
		}
		next := newRunner(cfg.Parallel)
		startExecutor(t, connect(t, url), cfg, next)
		res := results(t, js, cfg, 1, 20*time.Second)["cut-short"]
		settled(t, js, cfg, 10*time.Second)
		if res.Status != flowjob.StatusSucceeded || slow.calls.Load() != 1 || next.calls.Load() != 1 {
			t.Errorf("result: status %s after %d + %d runs, want succeeded, run once by each replica",
				res.Status, slow.calls.Load(), next.calls.Load())
		}
	})
}

// TestBrokerRestartMidLoad: the broker restarts on the same store while
// jobs are in flight; the executor reconnects by itself and no job is lost.
// (Only the embedded broker can be restarted by a test.)
func TestBrokerRestartMidLoad(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	srv := testenv.StartNATS(t, dir, -1)
	port := srv.Addr().(*net.TCPAddr).Port
	url := srv.ClientURL()
	cfg := testConfig(t, url)
	cfg.AckWait = 3 * time.Second // jobs sent to pull requests lost in the restart come back soon
	nc := connect(t, url)
	js := jetStream(t, nc)
	r := newRunner(cfg.Parallel)
	e := startExecutor(t, nc, cfg, r)
	for i := range n {
		publish(t, js, cfg, sleepJob(fmt.Sprintf("restart-%03d", i), 20))
	}
	waitFor(t, 20*time.Second, "the first results", func() bool { return streamMsgs(t, js, cfg.ResultsStream) >= 40 })
	srv.Shutdown()
	srv.WaitForShutdown()
	waitFor(t, 5*time.Second, "the executor to notice", func() bool { ok, _ := e.Ready(); return !ok })
	testenv.StartNATS(t, dir, port)
	got := results(t, js, cfg, n, 60*time.Second)
	settled(t, js, cfg, 15*time.Second)
	for i := range n {
		if _, ok := got[fmt.Sprintf("restart-%03d", i)]; !ok {
			t.Errorf("job restart-%03d was lost", i)
		}
	}
	waitFor(t, 15*time.Second, "the executor to be ready again", func() bool { ok, _ := e.Ready(); return ok })
}

// TestDeadlineEndsARunningScript: a job's deadline closer than the time
// limit ends its script at the deadline, as JOB_DEADLINE_EXCEEDED; the
// script ran on to its own limit and its late success was published.
func TestDeadlineEndsARunningScript(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.ScriptTimeout, cfg.AckWait = 10*time.Second, 20*time.Second
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		j := newJob("deadline-running", "console.log('started'); while (true) {}")
		soon := time.Now().Add(time.Second)
		j.Deadline = &soon
		publish(t, js, cfg, j)
		r := results(t, js, cfg, 1, 30*time.Second)["deadline-running"]
		if r.Error == nil || r.Error.Code != flowjob.CodeDeadlineExceeded || !strings.Contains(r.Error.Message, "passed while its script ran") {
			t.Fatalf("result %+v, want %s while the script ran", r.Error, flowjob.CodeDeadlineExceeded)
		}
		if r.DurationMs <= 0 || r.DurationMs > 5000 {
			t.Errorf("the script ran %d ms: want it ended at the deadline, about a second in", r.DurationMs)
		}
		if len(r.Logs) != 1 || r.Logs[0].Message != "started" {
			t.Errorf("logs %+v, want the script's line kept", r.Logs)
		}
		if r.Directive.Type != flowjob.DirectiveContinue {
			t.Errorf("directive %s, want the action's policy (continue)", r.Directive.Type)
		}
	})
}
