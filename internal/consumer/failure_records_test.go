package consumer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestScriptFailuresAreRecorded: a job whose script fails gets its result
// (with the source's SHA-256 and the template it names) and a failure
// record in the failures stream, with the variables the action reads and
// nothing else; a success, bad input and a passed deadline get none.
func TestScriptFailuresAreRecorded(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))

		thrown := newJob("fail-throw", "function execute(cpf) {\n  const d = cpf.replace(/\\D/g, '')\n  return d.nope.length\n}")
		thrown.TemplateID, thrown.TemplateVersion = "tpl-cpf", 1
		thrown.Variables["secret.session.note"] = "not read by the action"
		slow := newJob("fail-timeout", "while (true) {}")
		slow.TimeoutMs = 200
		syntax := newJob("fail-syntax", "return (1 +")
		past := newJob("past-deadline", "throw new Error('never runs')")
		deadline := time.Now().Add(-time.Minute)
		past.Deadline = &deadline
		bad := newJob("bad-version", "throw new Error('never runs')")
		bad.TemplateVersion = 2 // without templateId: bad input
		for _, j := range []*flowjob.Job{thrown, slow, syntax, past, bad, cpfJob("ok-1")} {
			publish(t, js, cfg, j)
		}
		got := results(t, js, cfg, 6, 30*time.Second)
		r := got["fail-throw"]
		if r.Error == nil || r.Error.Code != flowjob.CodeScriptError || r.Error.Line != 3 {
			t.Fatalf("fail-throw: result %+v, want SCRIPT_ERROR at line 3", r)
		}
		if r.SourceSHA256 != flowjob.SourceSHA256(thrown.Action.Source) || r.TemplateID != "tpl-cpf" || r.TemplateVersion != 1 {
			t.Errorf("fail-throw: result provenance %q %q v%d", r.SourceSHA256, r.TemplateID, r.TemplateVersion)
		}

		waitFor(t, 10*time.Second, "3 failure records", func() bool { return streamMsgs(t, js, cfg.FailuresStream()) >= 3 })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, id := range []string{"fail-throw", "fail-timeout", "fail-syntax"} {
			rec, err := failrecord.Load(ctx, js, cfg.FailuresStream(), cfg.Subjects(), id)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if want := *got[id].Error; rec.Error != want {
				t.Errorf("%s: recorded error %+v, the result's %+v", id, rec.Error, want)
			}
			if rec.SourceSHA256 != got[id].SourceSHA256 || rec.Job.ID != id || rec.Attempt != 1 {
				t.Errorf("%s: record %+v", id, rec)
			}
		}
		rec, _ := failrecord.Load(ctx, js, cfg.FailuresStream(), cfg.Subjects(), "fail-throw")
		if rec.Job.TemplateID != "tpl-cpf" || rec.Job.TemplateVersion != 1 {
			t.Errorf("the record of a job pinned to v1 says %q v%d", rec.Job.TemplateID, rec.Job.TemplateVersion)
		}
		if names := slices.Sorted(maps.Keys(rec.Job.Variables)); !slices.Equal(names, []string{"cpf"}) || !slices.Contains(rec.Omitted, "variables") {
			t.Errorf("recorded variables %v (omitted %v), want only cpf, the one the action reads", names, rec.Omitted)
		}
		if rec.TimeoutMs != cfg.ScriptTimeout.Milliseconds() {
			t.Errorf("recorded time limit %d ms, want %d", rec.TimeoutMs, cfg.ScriptTimeout.Milliseconds())
		}
		if slowRec, _ := failrecord.Load(ctx, js, cfg.FailuresStream(), cfg.Subjects(), "fail-timeout"); slowRec.TimeoutMs != 200 {
			t.Errorf("the timed-out job's recorded limit is %d ms, want its own 200", slowRec.TimeoutMs)
		}
		for _, id := range []string{"ok-1", "past-deadline", "bad-version"} {
			if _, err := failrecord.Load(ctx, js, cfg.FailuresStream(), cfg.Subjects(), id); err == nil {
				t.Errorf("%s: has a failure record; only script failures get one", id)
			}
		}
	})
}

// TestFailureRecordsOff: with NoFailureRecords (FAILURE_RECORDS=off) a
// failed script still gets its result, and no record is kept: no failures
// stream is created, and one that exists receives nothing.
func TestFailureRecordsOff(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		for _, existing := range []bool{false, true} {
			cfg := testConfig(t, url)
			cfg.NoFailureRecords = true
			nc := connect(t, url)
			js := jetStream(t, nc)
			ctx := testenv.Context(t, 30*time.Second)
			if existing {
				if _, err := js.CreateStream(ctx, FailuresStreamConfig(cfg)); err != nil {
					t.Fatal(err)
				}
			}
			e := startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
			publish(t, js, cfg, newJob("off-throw", "throw new Error('kept nowhere')"))
			publish(t, js, cfg, newJob("off-syntax", "return (1 +"))
			got := results(t, js, cfg, 2, 20*time.Second)
			if r := got["off-throw"]; r.Error == nil || r.Error.Code != flowjob.CodeScriptError {
				t.Fatalf("existing stream %v: off-throw: %+v, want SCRIPT_ERROR", existing, r)
			}
			settled(t, js, cfg, 10*time.Second)
			e.stop(t) // a record would have been published before its job settled
			_, err := js.Stream(ctx, cfg.FailuresStream())
			switch {
			case !existing && !errors.Is(err, jetstream.ErrStreamNotFound):
				t.Errorf("looking the failures stream up gave %v, want ErrStreamNotFound: with the records off it must not be created", err)
			case existing && err != nil:
				t.Errorf("the existing failures stream: %v", err)
			case existing && streamMsgs(t, js, cfg.FailuresStream()) != 0:
				t.Errorf("the existing failures stream holds %d records; with the records off it must get none", streamMsgs(t, js, cfg.FailuresStream()))
			}
		}
	})
}

// TestFailureStreamStaysInBounds: a flood of failing jobs against a small
// failures stream: every job gets its result, the stream never holds more
// than its bounds, and the newest records are kept.
func TestFailureStreamStaysInBounds(t *testing.T) {
	const jobs = 2000
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.FailuresMaxMsgs = 100
		cfg.FailuresMaxBytes = 32 << 10 // binds before max msgs: about 40 records
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		for i := range jobs {
			publish(t, js, cfg, newJob(fmt.Sprintf("flood-%d", i), fmt.Sprintf("throw new Error('failure %d')", i)))
		}
		got := results(t, js, cfg, jobs, 120*time.Second)
		for id, r := range got {
			if r.Error == nil || r.Error.Code != flowjob.CodeScriptError {
				t.Fatalf("%s: %+v, want SCRIPT_ERROR", id, r)
			}
		}
		settled(t, js, cfg, 30*time.Second)
		s, err := js.Stream(context.Background(), cfg.FailuresStream())
		if err != nil {
			t.Fatal(err)
		}
		// The records are published after the results: wait for the last
		// ones to land, then check the bounds.
		var published uint64
		waitFor(t, 20*time.Second, "the last failure records", func() bool {
			si, err := s.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			published = si.State.LastSeq
			return si.State.LastSeq >= jobs*9/10
		})
		si, err := s.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if si.State.Msgs > uint64(cfg.FailuresMaxMsgs) || si.State.Bytes > uint64(cfg.FailuresMaxBytes) {
			t.Errorf("the failures stream holds %d records, %d bytes: over its bounds of %d and %d",
				si.State.Msgs, si.State.Bytes, cfg.FailuresMaxMsgs, cfg.FailuresMaxBytes)
		}
		if si.State.Msgs == 0 {
			t.Error("the failures stream kept no record at all")
		}
		t.Logf("%d records published, %d kept (%d bytes)", published, si.State.Msgs, si.State.Bytes)
	})
}
