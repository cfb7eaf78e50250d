package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestBadInputsAreDeadLettered: each kind of bad input is dead-lettered
// with its reason, the original payload and headers, answered with a
// failed result when it names its ids, never run, and the consumer keeps
// going.
func TestBadInputsAreDeadLettered(t *testing.T) {
	wrongTypes := `{"id":"bad-types","sessionId":"s-1","flowId":"f","blockId":"b","context":"flow",
		"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":7,"onError":"continue"},
		"variables":{"n":3}}`
	unknownAction := `{"id":"bad-action","sessionId":"s-2","flowId":"f","blockId":"b","context":"flow",
		"action":{"type":"sendEmail","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"}}`
	missingIDs := `{"flowId":"f","blockId":"b","context":"flow",
		"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"}}`
	truncated := func(Config) []byte {
		data, _ := json.Marshal(cpfJob("bad-cut"))
		return data[:len(data)/2]
	}
	// Every bad job names an id in its body or in its Nats-Msg-Id header
	// ("bad-<i>"): each is answered under it, so no engine waits out its
	// own timeout.
	tests := []struct {
		name      string
		payload   func(cfg Config) []byte
		jobID     string
		reasonHas string
	}{
		{"not JSON", func(Config) []byte { return []byte("this is not json {") }, "bad-0", "not valid JSON"},
		{"wrong types", func(Config) []byte { return []byte(wrongTypes) }, "bad-types", "outputVariable"},
		{"unknown action", func(Config) []byte { return []byte(unknownAction) }, "bad-action", "action.type"},
		{"missing ids", func(Config) []byte { return []byte(missingIDs) }, "bad-3", "id"},
		{"oversized", func(cfg Config) []byte {
			j := cpfJob("bad-huge")
			j.Variables["blob"] = strings.Repeat("x", cfg.MaxJobBytes)
			data, _ := json.Marshal(j)
			return data
		}, "bad-huge", "MAX_JOB_BYTES"},
		{"truncated", truncated, "bad-cut", "not valid JSON"},
	}
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.MaxJobBytes = 16 << 10
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		for i, tt := range tests {
			publishRaw(t, js, cfg, tt.payload(cfg), fmt.Sprintf("bad-%d", i), nats.Header{"X-Engine": []string{tt.name}})
		}
		publish(t, js, cfg, cpfJob("good-after-bad"))

		dead := readAll(t, js, cfg.DLQStream, len(tests), 20*time.Second)
		if len(dead) != len(tests) {
			t.Fatalf("%d dead letters, want %d", len(dead), len(tests))
		}
		byEngine := map[string]storedMsg{}
		for _, m := range dead {
			var orig map[string][]string
			if err := json.Unmarshal([]byte(m.header.Get(HeaderDLQHeaders)), &orig); err != nil {
				t.Fatalf("dead letter headers %q: %v", m.header.Get(HeaderDLQHeaders), err)
			}
			byEngine[orig["X-Engine"][0]] = m
		}
		for _, tt := range tests {
			m, ok := byEngine[tt.name]
			if !ok {
				t.Errorf("%s: no dead letter", tt.name)
				continue
			}
			if got := m.header.Get(HeaderDLQCode); got != flowjob.CodeInvalidJob {
				t.Errorf("%s: code %q, want INVALID_JOB", tt.name, got)
			}
			if reason := m.header.Get(HeaderDLQReason); !strings.Contains(reason, tt.reasonHas) {
				t.Errorf("%s: reason %q does not mention %q", tt.name, reason, tt.reasonHas)
			}
			if got := m.header.Get(HeaderDLQDeliveries); got != "1" {
				t.Errorf("%s: deliveries %q, want 1", tt.name, got)
			}
			if want := string(tt.payload(cfg)); string(m.data) != want {
				t.Errorf("%s: the dead letter does not carry the original payload", tt.name)
			}
			if want := cfg.Subjects().DeadLetter(tt.jobID); m.subject != want {
				t.Errorf("%s: dead letter on %s, want %s", tt.name, m.subject, want)
			}
		}
		got := results(t, js, cfg, len(tests)+1, 20*time.Second) // every bad job + the good one
		for _, tt := range tests {
			r, ok := got[tt.jobID]
			if !ok {
				t.Errorf("%s: no result under %s", tt.name, tt.jobID)
				continue
			}
			if r.Status != flowjob.StatusFailed || r.Error == nil || r.Error.Code != flowjob.CodeInvalidJob {
				t.Errorf("%s: result %+v, want failed INVALID_JOB", tt.name, r)
			}
			if m := byEngine[tt.name]; m.header.Get(HeaderDLQJobID) != tt.jobID {
				t.Errorf("%s: dead letter names job %q, want %q", tt.name, m.header.Get(HeaderDLQJobID), tt.jobID)
			}
		}
		// An oversized job is still read for its error policy: a continue
		// job continues, with its variables written.
		if r := got["bad-huge"]; r.Directive.Type != flowjob.DirectiveContinue || r.Variables["err"] == "" {
			t.Errorf("oversized continue job: directive %q, variables %v; want continue with err set", r.Directive.Type, r.Variables)
		}
		if r := got["bad-cut"]; r.SessionID != "session-bad-cut" {
			t.Errorf("truncated job: session id %q, want the one before the cut", r.SessionID)
		}
		if r := got["good-after-bad"]; r.Status != flowjob.StatusSucceeded {
			t.Errorf("the good job after the bad ones: %+v", r)
		}
		settled(t, js, cfg, 10*time.Second)
		if runs := r.calls.Load(); runs != 1 {
			t.Errorf("%d scripts ran, want 1 (bad jobs never run)", runs)
		}
	})
}

// TestSandboxCrashIsRetried: a crashed worker is the platform's: the job
// runs again at once and its result is the rerun's.
func TestSandboxCrashIsRetried(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		r.before = func(ctx context.Context, req sandbox.Request, call int64) (sandbox.Result, bool) {
			if call == 1 {
				return sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeCrash, Message: "worker exited"}}, true
			}
			return sandbox.Result{}, false
		}
		startExecutor(t, nc, cfg, r)
		publish(t, js, cfg, cpfJob("crash-1"))
		res := results(t, js, cfg, 1, 20*time.Second)["crash-1"]
		settled(t, js, cfg, 10*time.Second)
		if res.Status != flowjob.StatusSucceeded || r.calls.Load() != 2 || res.Attempt != 1 {
			t.Errorf("result: status %s, attempt %d after %d runs, want succeeded on attempt 1 after 2 runs",
				res.Status, res.Attempt, r.calls.Load())
		}
		if n := streamMsgs(t, js, cfg.DLQStream); n != 0 {
			t.Errorf("%d dead letters, want 0", n)
		}
	})
}

// TestJobThatKeepsCrashingIsFailed: a job that crashes its worker every
// time it runs is poison: failed with SANDBOX_CRASH and dead-lettered on
// its first delivery, not rerun until its attempts run out.
func TestJobThatKeepsCrashingIsFailed(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		r.before = func(context.Context, sandbox.Request, int64) (sandbox.Result, bool) {
			return sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeCrash, Message: "the sandbox worker exited unexpectedly (signal: killed) and was replaced: retry the script"}}, true
		}
		startExecutor(t, nc, cfg, r)
		publish(t, js, cfg, cpfJob("poison"))
		res := results(t, js, cfg, 1, 20*time.Second)["poison"]
		dead := readAll(t, js, cfg.DLQStream, 1, 10*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if res.Status != flowjob.StatusFailed || res.Error == nil || res.Error.Code != flowjob.CodeSandboxCrash || res.Attempt != 1 {
			t.Errorf("result = %+v, want failed SANDBOX_CRASH on attempt 1", res)
		}
		if res.Error != nil && (strings.Contains(res.Error.Message, "retry the script") || !strings.Contains(res.Error.Message, "it is not run again")) {
			t.Errorf("message %q: the job is not retried, and its result says so", res.Error.Message)
		}
		if want := int64(1 + cfg.CrashRetries); r.calls.Load() != want {
			t.Errorf("the job ran %d times, want %d", r.calls.Load(), want)
		}
		if got := dead[0].header.Get(HeaderDLQCode); got != flowjob.CodeSandboxCrash {
			t.Errorf("dead letter code %q, want SANDBOX_CRASH", got)
		}
	})
}

// TestExhaustedDeliveriesEndInAResultAndADeadLetter: a job that keeps
// failing for a transient reason (here: the handler panics) gets, on its
// last delivery, a failed DELIVERY_EXHAUSTED result with the policy's
// directive and a dead letter.
func TestExhaustedDeliveriesEndInAResultAndADeadLetter(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.MaxDeliver = 2
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		r.before = func(context.Context, sandbox.Request, int64) (sandbox.Result, bool) {
			panic("a bug on the job path")
		}
		startExecutor(t, nc, cfg, r)
		job := cpfJob("doomed")
		job.Action.OnError = flowjob.OnErrorBlocking
		publish(t, js, cfg, job)
		res := results(t, js, cfg, 1, 20*time.Second)["doomed"]
		dead := readAll(t, js, cfg.DLQStream, 1, 10*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if res.Status != flowjob.StatusFailed || res.Error == nil || res.Error.Code != flowjob.CodeDeliveryExhausted ||
			res.Directive.Type != flowjob.DirectiveFreezeHandoff || res.Attempt != 2 {
			t.Errorf("result = %+v, want failed DELIVERY_EXHAUSTED, freeze_handoff, attempt 2", res)
		}
		if got := dead[0].header.Get(HeaderDLQCode); got != flowjob.CodeDeliveryExhausted {
			t.Errorf("dead letter code %q", got)
		}
		if got := dead[0].header.Get(HeaderDLQDeliveries); got != strconv.Itoa(cfg.MaxDeliver) {
			t.Errorf("dead letter deliveries %q, want %d", got, cfg.MaxDeliver)
		}
		if !strings.Contains(dead[0].header.Get(HeaderDLQReason), "panic") {
			t.Errorf("dead letter reason %q does not say it panicked", dead[0].header.Get(HeaderDLQReason))
		}
	})
}

// TestUnavailableStoreIsRetried: while the RESULTS stream is gone the job
// is handed back (never acked without its result); once the stream is back
// the result is stored.
func TestUnavailableStoreIsRetried(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		cfg.StoreRetryMaxElapsed = 300 * time.Millisecond
		cfg.MaxDeliver = 20
		withoutHealthCheck(&cfg) // RESULTS stays deleted until the test creates it
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		ctx := testenv.Context(t, 30*time.Second)
		if err := js.DeleteStream(ctx, cfg.ResultsStream); err != nil {
			t.Fatal(err)
		}
		publish(t, js, cfg, cpfJob("store-down"))
		waitFor(t, 10*time.Second, "a second delivery", func() bool { return consumerInfo(t, js, cfg).NumRedelivered >= 1 })
		if n := streamMsgs(t, js, cfg.JobsStream); n != 1 {
			t.Fatalf("the job left JOBS (%d messages) without a stored result", n)
		}
		if _, err := js.CreateOrUpdateStream(ctx, ResultsStreamConfig(cfg)); err != nil {
			t.Fatal(err)
		}
		res := results(t, js, cfg, 1, 20*time.Second)["store-down"]
		settled(t, js, cfg, 10*time.Second)
		// Not res.Attempt: NATS 2.9 can under-count a Nak'd redelivery
		// (its didNotDeliver path); the runs are what the test counts.
		if res.Status != flowjob.StatusSucceeded || r.calls.Load() < 2 {
			t.Errorf("result: status %s after %d runs, want succeeded after a retry", res.Status, r.calls.Load())
		}
		if n := streamMsgs(t, js, cfg.DLQStream); n != 0 {
			t.Errorf("%d dead letters, want 0", n)
		}
	})
}

// TestReplyToGetsTheStoredResult: the Reply-To inbox receives the result
// after it is stored; a rerun of a finished job sends the first result,
// not its own, to a new inbox, and never tells the same inbox twice.
func TestReplyToGetsTheStoredResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		replies, root := replyInboxes(t, nc, cfg)
		first, second, lower := root+".first", root+".second", root+".lower"
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		data, _ := json.Marshal(cpfJob("reply-1"))
		publishRaw(t, js, cfg, data, "reply-1", nats.Header{flowjob.HeaderReplyTo: []string{first}})
		results(t, js, cfg, 1, 10*time.Second)
		publishRaw(t, js, cfg, data, "reply-1-same-inbox", nats.Header{flowjob.HeaderReplyTo: []string{first}})
		publishRaw(t, js, cfg, data, "reply-1-new-inbox", nats.Header{flowjob.HeaderReplyTo: []string{second}})
		// The header's name in another case (HTTP's habit) is still read.
		lowerData, _ := json.Marshal(cpfJob("reply-lower"))
		publishRaw(t, js, cfg, lowerData, "reply-lower", nats.Header{"reply-to": []string{lower}})
		settled(t, js, cfg, 10*time.Second)
		stored := results(t, js, cfg, 2, 5*time.Second)["reply-1"]
		got := map[string]int{}
		for {
			msg, err := replies.NextMsg(time.Second)
			if err != nil {
				break
			}
			var r flowjob.Result
			err = json.Unmarshal(msg.Data, &r)
			if msg.Subject == lower && err == nil && r.JobID == "reply-lower" {
				got[msg.Subject]++
				continue
			}
			if err != nil || r.JobID != "reply-1" || r.Attempt != stored.Attempt {
				t.Fatalf("Reply-To got %q (%v), want the stored result", msg.Data, err)
			}
			got[msg.Subject]++
		}
		if got[first] != 1 || got[second] != 1 || got[lower] != 1 || len(got) != 3 {
			t.Errorf("replies by inbox %v: want one on each of %s, %s and %s", got, first, second, lower)
		}
	})
}

// TestUnusableIDIsToldOnItsInbox: a job whose id cannot name a result
// subject ('.', a space, over 128 bytes) has no stored result, but its
// Reply-To inbox gets the INVALID_JOB result (jobId "") naming the id, so
// the engine does not wait out its own timeout. It is dead-lettered as
// before, and RESULTS stays empty.
func TestUnusableIDIsToldOnItsInbox(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		replies, root := replyInboxes(t, nc, cfg)
		inbox := root + ".bad-id"
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		job := cpfJob("x")
		job.ID = "session.42 step"
		data, _ := json.Marshal(job)
		publishRaw(t, js, cfg, data, "", nats.Header{flowjob.HeaderReplyTo: []string{inbox}})
		msg, err := replies.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("no answer on the inbox of a job with an unusable id: %v", err)
		}
		var r flowjob.Result
		if err := json.Unmarshal(msg.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.JobID != "" || r.Status != flowjob.StatusFailed || r.Error == nil || r.Error.Code != flowjob.CodeInvalidJob ||
			!strings.HasPrefix(r.Error.Message, "invalid job: id: ") || r.SessionID != job.SessionID {
			t.Errorf("inbox got %s, want the INVALID_JOB result naming the id, jobId \"\"", msg.Data)
		}
		readAll(t, js, cfg.DLQStream, 1, 10*time.Second)
		settled(t, js, cfg, 10*time.Second)
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 0 {
			t.Errorf("RESULTS holds %d messages, want none", n)
		}
	})
}

// TestReplyToCannotWriteResults: a Reply-To naming a result subject is
// ignored, so it cannot plant a result past the first-writer check.
func TestReplyToCannotWriteResults(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		data, _ := json.Marshal(cpfJob("sneaky"))
		publishRaw(t, js, cfg, data, "sneaky", nats.Header{flowjob.HeaderReplyTo: []string{cfg.Subjects().Result("victim")}})
		results(t, js, cfg, 1, 10*time.Second)
		settled(t, js, cfg, 5*time.Second)
		if n := streamMsgs(t, js, cfg.ResultsStream); n != 1 {
			t.Errorf("RESULTS holds %d messages, want only the job's own result", n)
		}
	})
}

// TestDeadlinePassedIsNotRun: a job past its deadline fails without
// running.
func TestDeadlinePassedIsNotRun(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		job := cpfJob("late")
		past := time.Now().Add(-time.Second)
		job.Deadline = &past
		publish(t, js, cfg, job)
		res := results(t, js, cfg, 1, 10*time.Second)["late"]
		if res.Error == nil || res.Error.Code != flowjob.CodeDeadlineExceeded {
			t.Errorf("result = %+v, want JOB_DEADLINE_EXCEEDED", res)
		}
		if n := r.calls.Load(); n != 0 {
			t.Errorf("the late job ran %d times", n)
		}
	})
}

// TestResultTooLargeForTheBrokerFails: a result under the output cap whose
// JSON escaping takes it past the broker's max_payload (each control
// character is \u00XX) is the script's OUTPUT_TOO_LARGE on its first run,
// not a store that fails on every delivery until the job runs out of them.
// A result of the same length that needs no escaping is stored, markup
// included (< > & are not escaped).
func TestResultTooLargeForTheBrokerFails(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		r := newRunner(cfg.Parallel)
		startExecutor(t, nc, cfg, r)
		publish(t, js, cfg, newJob("escaped-1", `return "\x01\x02".repeat(100000)`))
		publish(t, js, cfg, newJob("plain-1", `return "<&".repeat(100000)`))
		// 960,000 bytes escaped: under max_payload alone, over it with 96,000
		// bytes of escaped console lines, which the message then names.
		publish(t, js, cfg, newJob("logged-1", `for (let i = 0; i < 100; i++) console.log("\x01".repeat(160)); return "\x01".repeat(160000)`))
		got := results(t, js, cfg, 3, 20*time.Second)
		settled(t, js, cfg, 10*time.Second)
		escaped, plain := got["escaped-1"], got["plain-1"]
		if escaped.Status != flowjob.StatusFailed || escaped.Error == nil || escaped.Error.Code != flowjob.CodeOutputTooLarge ||
			escaped.Attempt != 1 || !strings.Contains(escaped.Error.Message, "max_payload") {
			t.Errorf("escaped result: status %s, attempt %d, error %+v; want failed on attempt 1 with OUTPUT_TOO_LARGE naming max_payload",
				escaped.Status, escaped.Attempt, escaped.Error)
		}
		if plain.Status != flowjob.StatusSucceeded || len(plain.Variables[newJob("x", "").Action.OutputVariable]) != 200000 {
			t.Errorf("plain result: status %s, error %+v; want succeeded with its 200,000 characters", plain.Status, plain.Error)
		}
		if logged := got["logged-1"]; logged.Error == nil || logged.Error.Code != flowjob.CodeOutputTooLarge ||
			!strings.Contains(logged.Error.Message, "or log less (its 100 console lines hold 16000 bytes") {
			t.Errorf("result pushed over by its logs: status %s, error %+v; want OUTPUT_TOO_LARGE naming the console lines", logged.Status, logged.Error)
		}
		if n := r.calls.Load(); n != 3 {
			t.Errorf("%d runs, want 3: the too-large results must not be run again", n)
		}
	})
}

// A body that repeats "id" with one value is still answered under it, with
// or without a Nats-Msg-Id; one that names two ids (and no Nats-Msg-Id) is
// answered to no one (which the engine waits on cannot be known) and is dead-lettered.
func TestRepeatedIDWithOneValueIsAnswered(t *testing.T) {
	body := func(id1, id2 string) []byte {
		return []byte(`{"id":"` + id1 + `","id":"` + id2 + `","sessionId":"s","flowId":"f","blockId":"b","context":"flow",` +
			`"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"}}`)
	}
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		publishRaw(t, js, cfg, body("dup-two", "dup-two-x"), "", nil)
		publishRaw(t, js, cfg, body("dup-same", "dup-same"), "", nil)
		publishRaw(t, js, cfg, body("dup-hdr", "dup-hdr"), "m-dup-hdr", nil) // the body's id, not the message id
		got := results(t, js, cfg, 2, 20*time.Second)
		if r, ok := got["dup-hdr"]; !ok || r.Error == nil || r.Error.Code != flowjob.CodeInvalidJob {
			t.Errorf("results %v: want dup-hdr failed INVALID_JOB under the id its body repeats, not its Nats-Msg-Id", got)
		}
		r, ok := got["dup-same"]
		if !ok || r.Status != flowjob.StatusFailed || r.Error == nil || r.Error.Code != flowjob.CodeInvalidJob {
			t.Fatalf("results %v: want dup-same failed INVALID_JOB", got)
		}
		if !strings.Contains(r.Error.Message, "id: duplicate field") {
			t.Errorf("message %q, want it to name the repeated id", r.Error.Message)
		}
		if dead := readAll(t, js, cfg.DLQStream, 3, 20*time.Second); len(dead) != 3 {
			t.Errorf("%d dead letters, want 3", len(dead))
		}
		if _, ok := results(t, js, cfg, 2, time.Second)["dup-two"]; ok {
			t.Errorf("a body naming two ids was answered under the first")
		}
	})
}

func TestSoleID(t *testing.T) {
	for body, want := range map[string]string{
		`{"id":"a","x":{"id":"b"},"id":"a"}`: "a",
		`{"id":"a","id":"b"}`:                "",
		`{"id":"a"`:                          "",
		`{"id":7}`:                           "",
		`["id","a"]`:                         "",
		`{"x":1}`:                            "",
	} {
		if got := soleID([]byte(body)); got != want {
			t.Errorf("soleID(%s) = %q, want %q", body, got, want)
		}
	}
}

// TestJobsWithHugeHeadersEndInAResultAndADeadLetter: a job may carry
// headers up to JetStream's 64 KiB, and what the executor copies of them
// must still fit its own messages. A bad job with a 33 KB traceparent (or
// hundreds of headers) was never dead-lettered: the dead letter copied
// every header as JSON, and the trace context again, past 64 KiB, the
// broker refused it on every attempt, and the job came back for ever. A
// good job with a 65 KB Reply-To could not store its result for the same
// reason.
func TestJobsWithHugeHeadersEndInAResultAndADeadLetter(t *testing.T) {
	// '<' is 6 bytes as JSON (\u003c): the copy alone passes 64 KiB.
	hugeTrace := nats.Header{"traceparent": []string{strings.Repeat("0", 33000)}, "tracestate": []string{strings.Repeat("s", 2000)}, "X-Pad": []string{strings.Repeat("<", 11000)}, "X-Engine": []string{"trace"}}
	many := nats.Header{"X-Engine": []string{"many"}}
	for i := range 280 {
		many.Set(fmt.Sprintf("X-Many-%03d", i), strings.Repeat("m", 200))
	}
	good := cpfJob("huge-reply-to")
	eachBroker(t, func(t *testing.T, url string) {
		cfg := testConfig(t, url)
		nc := connect(t, url)
		js := jetStream(t, nc)
		startExecutor(t, nc, cfg, newRunner(cfg.Parallel))
		publishRaw(t, js, cfg, []byte("not json {"), "huge-trace", hugeTrace)
		publishRaw(t, js, cfg, []byte("not json {"), "huge-many", many)
		data, _ := json.Marshal(good)
		// Just under 64 KiB of headers on the job, just over on its result.
		publishRaw(t, js, cfg, data, good.ID, nats.Header{flowjob.HeaderReplyTo: []string{"inbox." + strings.Repeat("a", 65420)}})

		got := results(t, js, cfg, 3, 20*time.Second)
		if r := got["huge-reply-to"]; r.Status != flowjob.StatusSucceeded {
			t.Errorf("the job with a 65 KB Reply-To: %+v, want its result stored", r)
		}
		for _, id := range []string{"huge-trace", "huge-many"} {
			if r := got[id]; r.Error == nil || r.Error.Code != flowjob.CodeInvalidJob {
				t.Errorf("%s: result %+v, want INVALID_JOB", id, r)
			}
		}
		dead := readAll(t, js, cfg.DLQStream, 2, 20*time.Second)
		if len(dead) != 2 {
			t.Fatalf("%d dead letters, want 2", len(dead))
		}
		for _, m := range dead {
			var orig map[string][]string
			if err := json.Unmarshal([]byte(m.header.Get(HeaderDLQHeaders)), &orig); err != nil {
				t.Fatalf("dead letter headers %.200q: %v", m.header.Get(HeaderDLQHeaders), err)
			}
			if len(orig["X-Engine"]) != 1 || m.header.Get(HeaderDLQHeadersTruncated) != "true" || m.header.Get(HeaderDLQCode) != flowjob.CodeInvalidJob {
				t.Errorf("dead letter of %v: %d bytes of headers copied, truncated %q, code %q; want X-Engine kept, a cut copy, INVALID_JOB",
					orig["X-Engine"], len(m.header.Get(HeaderDLQHeaders)), m.header.Get(HeaderDLQHeadersTruncated), m.header.Get(HeaderDLQCode))
			}
			if tp, ts := m.header.Get("traceparent"), m.header.Get("tracestate"); len(tp) > maxTraceHeaderBytes || len(ts) > maxTraceHeaderBytes {
				t.Errorf("dead letter of %v: a %d-byte traceparent and a %d-byte tracestate copied as they came", orig["X-Engine"], len(tp), len(ts))
			}
			if string(m.data) != "not json {" {
				t.Errorf("dead letter body %q, want the job's", m.data)
			}
		}
		settled(t, js, cfg, 20*time.Second) // none handed back for another attempt
	})
}

// TestDeadLettersOfARecreatedJobsStream: a dead letter is deduplicated by
// the job it is for (its JOBS sequence and the time JOBS stored it), not by
// the sequence alone: a JOBS stream deleted and made again numbers its jobs
// from 1 again, and the DLQ dropped a new job's dead letter as a repeat of
// an old one's (a black-box probe). The same stored job dead-lettered twice
// (a retried publish, a redelivery) still leaves one.
func TestDeadLettersOfARecreatedJobsStream(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	cfg, nc, js := provisioned(t, url)
	d := NewDeadLetterer(js, cfg, nc.MaxPayload())
	ctx := testenv.Context(t, 20*time.Second)
	first := time.Now().Add(-time.Hour)
	for _, dl := range []DeadLetter{
		{Payload: []byte("old job"), StreamSeq: 1, Stored: first, Deliveries: 1, JobID: "old", Code: flowjob.CodeInvalidJob, Reason: "bad"},
		{Payload: []byte("old job"), StreamSeq: 1, Stored: first, Deliveries: 2, JobID: "old", Code: flowjob.CodeInvalidJob, Reason: "bad"},
		{Payload: []byte("new job, same sequence"), StreamSeq: 1, Stored: first.Add(time.Hour), Deliveries: 1, JobID: "new", Code: flowjob.CodeInvalidJob, Reason: "bad"},
	} {
		dl.Subject = cfg.Subjects().Jobs()
		if err := d.Publish(ctx, dl); err != nil {
			t.Fatal(err)
		}
	}
	dead := readAll(t, js, cfg.DLQStream, 2, 10*time.Second)
	if len(dead) != 2 || string(dead[0].data) != "old job" || string(dead[1].data) != "new job, same sequence" {
		var got []string
		for _, m := range dead {
			got = append(got, string(m.data))
		}
		t.Fatalf("dead letters %q, want the old job's once and the new job's", got)
	}
}
