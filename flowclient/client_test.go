package flowclient_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// env is a broker with the executor's streams under per-test names.
type env struct {
	nc  *nats.Conn
	cfg consumer.Config
}

func eachBroker(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("embedded", func(t *testing.T) { f(t, testenv.EmbeddedNATS(t).ClientURL()) })
	t.Run("machine", func(t *testing.T) { f(t, testenv.MachineNATSURL(t)) })
}

func newEnv(t *testing.T, url string, withExecutor bool) env {
	t.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	id := strings.ToUpper(hex.EncodeToString(b[:]))
	cfg := consumer.Config{
		JobsStream: "T_JOBS_" + id, ResultsStream: "T_RESULTS_" + id, DLQStream: "T_DLQ_" + id,
		Consumer: "T_EXEC_" + id, SubjectPrefix: "fstest." + id, Parallel: 2,
		PullWait: 100 * time.Millisecond, ScriptTimeout: time.Second, AckWait: 5 * time.Second,
	}.WithDefaults()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	testenv.DeleteStreamsAtCleanup(t, url, cfg.Streams()...)
	ctx := testenv.Context(t, 30*time.Second)
	// As a replica starts: a shared broker can answer a create with a passing
	// server-side failure ("error creating store for stream").
	if _, err := consumer.ProvisionWithRetry(ctx, js, cfg, consumer.ApplyConfig, slog.New(slog.NewTextHandler(t.Output(), nil)), nil); err != nil {
		t.Fatal(err)
	}
	if withExecutor {
		startExecutor(t, nc, cfg)
	}
	return env{nc: nc, cfg: cfg}
}

func startExecutor(t *testing.T, nc *nats.Conn, cfg consumer.Config) {
	t.Helper()
	startExecutorWith(t, nc, cfg, consumer.Options{})
}

func startExecutorWith(t *testing.T, nc *nats.Conn, cfg consumer.Config, opts consumer.Options) {
	t.Helper()
	opts.Runner = sandbox.NewInProcess(sandbox.Limits{MaxParallel: cfg.Parallel})
	exec, err := consumer.New(context.Background(), nc, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = exec.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

func (e env) client(t *testing.T, opts ...flowclient.ClientOption) *flowclient.Client {
	t.Helper()
	opts = append([]flowclient.ClientOption{
		flowclient.WithSubjectPrefix(e.cfg.SubjectPrefix),
		flowclient.WithResultsStream(e.cfg.ResultsStream),
		flowclient.WithResultPolling(50*time.Millisecond, 200*time.Millisecond),
	}, opts...)
	c, err := flowclient.NewClient(e.nc, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cpfJob(id, cpf string) *flowjob.Job {
	return &flowjob.Job{
		ID: id, SessionID: "session-1", FlowID: "flow-1", BlockID: "block-1", Context: flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type: flowjob.ActionTypeExecuteScript,
			Source: `function execute(cpf) {
  return String(cpf).replace(/\D/g, '').length === 11 ? 'valido' : 'invalido'
}`,
			InputVariables: []flowjob.InputVariable{{Name: "cpf", Value: "{{cpf}}"}},
			OutputVariable: "cpfStatus",
			OnError:        flowjob.OnErrorContinue,
		},
		Variables: map[string]string{"cpf": cpf},
	}
}

// TestClientRunSendsTheContractHeaders: Run publishes with the job id as
// Nats-Msg-Id, a Reply-To inbox, the contract version and the injected
// trace headers, and returns the result.
func TestClientRunSendsTheContractHeaders(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, true)
		seen, err := e.nc.SubscribeSync(e.cfg.Subjects().Jobs())
		if err != nil {
			t.Fatal(err)
		}
		const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		c := e.client(t, flowclient.WithHeaderInjector(func(_ context.Context, h nats.Header) {
			h.Set(flowjob.HeaderTraceParent, traceparent)
		}))
		res, err := c.Run(testenv.Context(t, 20*time.Second), cpfJob("client-run-1", "123.456.789-09"))
		if err != nil {
			t.Fatal(err)
		}
		if res.JobID != "client-run-1" || res.Status != flowjob.StatusSucceeded || res.Variables["cpfStatus"] != "valido" {
			t.Errorf("result = %+v", res)
		}
		msg, err := seen.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{
			flowjob.HeaderMsgID: "client-run-1", flowjob.HeaderVersion: "1", flowjob.HeaderTraceParent: traceparent,
		} {
			if got := msg.Header.Get(k); got != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
		if !strings.HasPrefix(msg.Header.Get(flowjob.HeaderReplyTo), "_INBOX.") {
			t.Errorf("Reply-To = %q, want an inbox", msg.Header.Get(flowjob.HeaderReplyTo))
		}
	})
}

// TestClientRunFallsBackToTheStream: when the job was already published
// (and ran) before, its Reply-To is never told; Run finds the stored result.
func TestClientRunFallsBackToTheStream(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, true)
		c := e.client(t)
		ctx := testenv.Context(t, 20*time.Second)
		job := cpfJob("client-fallback", "123")
		if _, err := c.Publish(ctx, job, ""); err != nil {
			t.Fatal(err)
		}
		first, err := c.Await(ctx, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.Run(ctx, job)
		if err != nil {
			t.Fatalf("Run of an already finished job: %v", err)
		}
		// Another session's job under the same id does not get that result.
		other := cpfJob("client-fallback", "123")
		other.SessionID = "session-2"
		if r, err := c.Run(ctx, other); !errors.Is(err, flowclient.ErrIDReused) || !strings.Contains(err.Error(), `session "session-1"`) {
			t.Errorf("Run of another job under a used id: %+v, %v; want ErrIDReused", r, err)
		}
		if again.Attempt != first.Attempt || !again.CompletedAt.Equal(first.CompletedAt) || again.Variables["cpfStatus"] != "invalido" {
			t.Errorf("Run returned %+v, want the stored result %+v", again, first)
		}
	})
}

// TestClientRunRefusesAnInvalidJobsResult: a bad job without a session id
// got an INVALID_JOB result with no session id, but with its flow and block;
// another job under the same id gets ErrIDReused, not that result (it got
// it, as only the session id was compared; a black-box probe).
func TestClientRunRefusesAnInvalidJobsResult(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, true)
		c := e.client(t)
		ctx := testenv.Context(t, 20*time.Second)
		bad := cpfJob("client-bad-first", "123")
		bad.SessionID = ""
		body, err := flowjob.Marshal(bad)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := jetstream.New(e.nc)
		if _, err := js.Publish(ctx, flowjob.Subjects{Prefix: e.cfg.SubjectPrefix}.Jobs(), body, jetstream.WithMsgID(bad.ID)); err != nil {
			t.Fatal(err)
		}
		stored, err := c.Await(ctx, bad.ID)
		if err != nil || stored.Error == nil || stored.Error.Code != flowjob.CodeInvalidJob || stored.SessionID != "" || stored.FlowID != "flow-1" {
			t.Fatalf("the bad job's result: %+v, %v; want INVALID_JOB without a session id, with its flow", stored, err)
		}
		other := cpfJob(bad.ID, "123")
		other.FlowID = "flow-2"
		if r, err := c.Run(ctx, other); !errors.Is(err, flowclient.ErrIDReused) {
			t.Errorf("Run of another job under the bad job's id: %+v, %v; want ErrIDReused", r, err)
		}
	})
}

// TestClientRunTakesAResultBeforeTheAcknowledgement: a relay takes the
// publish on another prefix, stores the job in the executor's JOBS stream
// and never answers; the result comes on the inbox and Run returns it at
// once (it waited for the acknowledgement until ctx ended, then failed).
func TestClientRunTakesAResultBeforeTheAcknowledgement(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, true)
		relayPrefix := "relay." + e.cfg.SubjectPrefix
		jobs := flowjob.Subjects{Prefix: e.cfg.SubjectPrefix}.Jobs()
		var relayed atomic.Int32
		sub, err := e.nc.Subscribe(flowjob.Subjects{Prefix: relayPrefix}.Jobs(), func(m *nats.Msg) {
			relayed.Add(1)
			out := nats.NewMsg(jobs)
			out.Header, out.Data = m.Header, m.Data
			_ = e.nc.PublishMsg(out)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sub.Unsubscribe() })
		c := e.client(t, flowclient.WithSubjectPrefix(relayPrefix), flowclient.WithResultPolling(time.Minute, time.Minute))
		start := time.Now()
		res, err := c.Run(testenv.Context(t, 30*time.Second), cpfJob("client-unacked", "123.456.789-09"))
		if err != nil {
			t.Fatalf("Run of a job whose acknowledgement never comes: %v; want its result", err)
		}
		if res.JobID != "client-unacked" || res.Status != flowjob.StatusSucceeded {
			t.Errorf("Run returned %+v, want the job's success", res)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("Run took %s: it waited for the acknowledgement", took)
		}
		if n := relayed.Load(); n != 1 {
			t.Errorf("the job was published %d times, want 1", n)
		}
	})
}

// TestClientRunWaitsForALateExecutor: Run keeps waiting until an executor
// starts and answers.
func TestClientRunWaitsForALateExecutor(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		c := e.client(t)
		got := make(chan error, 1)
		go func() {
			_, err := c.Run(testenv.Context(t, 20*time.Second), cpfJob("client-late", "123.456.789-09"))
			got <- err
		}()
		js, _ := jetstream.New(e.nc)
		deadline := time.Now().Add(10 * time.Second)
		for { // the job is published and Run waits before any executor exists
			s, err := js.Stream(context.Background(), e.cfg.JobsStream)
			if err == nil && s.CachedInfo().State.Msgs == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("Run did not publish the job within 10s")
			}
			time.Sleep(20 * time.Millisecond)
		}
		startExecutor(t, e.nc, e.cfg)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
}

// TestClientRefusesIDsNoJobHas: a wildcard or a blank is no job's id, so
// Result and Await refuse it at once instead of returning whichever result
// the pattern matches (another session's variables) or waiting forever.
func TestClientRefusesIDsNoJobHas(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, true)
		c := e.client(t)
		ctx := testenv.Context(t, 20*time.Second)
		if _, err := c.Run(ctx, cpfJob("client-someone-else", "123.456.789-09")); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"*", ">", "client-*", "", "a b", "a.b"} {
			if r, err := c.Result(ctx, id); !errors.Is(err, flowclient.ErrInvalidJobID) {
				t.Errorf("Result(%q) = %+v, %v; want ErrInvalidJobID", id, r, err)
			}
			short, cancel := context.WithTimeout(ctx, 5*time.Second)
			if r, err := c.Await(short, id); !errors.Is(err, flowclient.ErrInvalidJobID) {
				t.Errorf("Await(%q) = %+v, %v; want ErrInvalidJobID", id, r, err)
			}
			cancel()
		}
	})
}

func TestNewClientRefusesUnusableNames(t *testing.T) {
	nc, err := nats.Connect(testenv.EmbeddedNATS(t).ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, tc := range []struct {
		opt  flowclient.ClientOption
		want string
	}{
		{flowclient.WithSubjectPrefix("bad prefix.*"), `subject prefix must be dot-separated tokens without wildcards or spaces, as the executors' SUBJECT_PREFIX, got "bad prefix.*"`},
		{flowclient.WithSubjectPrefix("a..b"), "subject prefix"},
		{flowclient.WithResultsStream("bad.name"), `results stream name must be 1 to 64 letters, digits, '-' or '_', as the executors' RESULTS_STREAM, got "bad.name"`},
		{flowclient.WithResultsStream(""), "results stream name"},
	} {
		if _, err := flowclient.NewClient(nc, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewClient: %v, want an error with %q", err, tc.want)
		}
	}
}

func TestClientErrors(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		c := e.client(t)
		if _, err := c.Result(context.Background(), "never-published"); !errors.Is(err, flowclient.ErrNoResult) {
			t.Errorf("Result of an unknown job: %v, want ErrNoResult", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := c.Await(ctx, "never-published"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Await past its context: %v, want DeadlineExceeded", err)
		}
		// A connection closed for good: Await says so at its next lookup
		// instead of waiting out its context.
		nc2, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		closing, err := flowclient.NewClient(nc2, flowclient.WithSubjectPrefix(e.cfg.SubjectPrefix),
			flowclient.WithResultsStream(e.cfg.ResultsStream), flowclient.WithResultPolling(50*time.Millisecond, 200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		nc2.Close()
		started := time.Now()
		long, cancelLong := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancelLong()
		if _, err := closing.Await(long, "never-published"); !errors.Is(err, nats.ErrConnectionClosed) || !strings.Contains(err.Error(), "look its result up") {
			t.Errorf("Await on a closed connection: %v, want ErrConnectionClosed saying what to do", err)
		} else if waited := time.Since(started); waited > 10*time.Second {
			t.Errorf("Await on a closed connection waited %s", waited)
		}
		bad := cpfJob("client-bad", "1")
		bad.Action.OnError = "sometimes"
		if _, err := c.Publish(context.Background(), bad, ""); err == nil || !strings.Contains(err.Error(), "action.onError") {
			t.Errorf("publishing an invalid job: %v, want an error naming action.onError", err)
		}
		// Valid field by field, but over MaxJobBytes once encoded: each
		// control character is six bytes of JSON (\u0001). Markup is not
		// escaped: 300 KB of it is a 300 KB job, as from JSON.stringify.
		html := cpfJob("client-html", "1")
		html.Variables = map[string]string{"html": strings.Repeat("<b>&", 300_000/4)}
		if _, err := c.Publish(context.Background(), html, ""); err != nil {
			t.Errorf("publishing a job of 300 KB of markup: %v, want it published", err)
		}
		escaped := cpfJob("client-escaped", "1")
		escaped.Variables = map[string]string{"ctl": strings.Repeat("\x01", 200_000)}
		if err := escaped.Validate(); err != nil {
			t.Fatalf("the escaped job must pass Validate: %v", err)
		}
		var ve *flowjob.ValidationError
		if _, err := c.Publish(context.Background(), escaped, ""); !errors.As(err, &ve) || !strings.Contains(err.Error(), "-byte limit") {
			t.Errorf("publishing a job over MaxJobBytes once encoded: %v, want a ValidationError naming the limit", err)
		}
		if _, err := flowclient.NewClient(nil); err == nil {
			t.Error("NewClient(nil) succeeded")
		}
		nowhere := e.client(t, flowclient.WithSubjectPrefix("fstest.nostream"))
		if _, err := nowhere.Publish(context.Background(), cpfJob("client-nowhere", "1"), ""); !errors.Is(err, jetstream.ErrNoStreamResponse) ||
			!strings.Contains(err.Error(), "SUBJECT_PREFIX") {
			t.Errorf("publishing where no stream listens: %v, want ErrNoStreamResponse naming SUBJECT_PREFIX", err)
		}
		// A full JOBS stream (discard new) names the limit to look at.
		full := e.cfg.SubjectPrefix + "full"
		js, _ := jetstream.New(e.nc)
		name := e.cfg.JobsStream + "_FULL"
		if _, err := js.CreateStream(testenv.Context(t, 10*time.Second), jetstream.StreamConfig{Name: name, Subjects: []string{full + ".jobs.>"},
			MaxMsgs: 1, Discard: jetstream.DiscardNew, Storage: jetstream.MemoryStorage}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = js.DeleteStream(context.Background(), name) })
		tight := e.client(t, flowclient.WithSubjectPrefix(full))
		if _, err := tight.Publish(context.Background(), cpfJob("client-fills", "1"), ""); err != nil {
			t.Fatal(err)
		}
		if _, err := tight.Publish(context.Background(), cpfJob("client-overflows", "1"), ""); err == nil || !strings.Contains(err.Error(), "the JOBS stream is full (JOBS_MAX_MSGS or JOBS_MAX_BYTES") ||
			errors.Is(err, flowclient.ErrNotAcknowledged) {
			t.Errorf("publishing into a full stream: %v, want an error naming JOBS_MAX_MSGS, not ErrNotAcknowledged", err)
		}
	})
}

// TestClientPublishHookWrapsThePublish: the hook sees the job's subject and
// id before the publish, its headers go out with the job, the header
// injector runs after it with its context, and done gets the publish's
// error once the broker answered.
func TestClientPublishHookWrapsThePublish(t *testing.T) {
	type ctxKey struct{}
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		var calls []string
		var doneErrs []error
		hook := func(ctx context.Context, subject, jobID string, h nats.Header) (context.Context, func(error)) {
			calls = append(calls, "hook "+subject+" "+jobID)
			h.Set("X-Hook", "1")
			return context.WithValue(ctx, ctxKey{}, "hooked"), func(err error) {
				calls = append(calls, "done")
				doneErrs = append(doneErrs, err)
			}
		}
		inject := func(ctx context.Context, h nats.Header) {
			calls = append(calls, "inject "+fmt.Sprint(ctx.Value(ctxKey{})))
		}
		c := e.client(t, flowclient.WithPublishHook(hook), flowclient.WithHeaderInjector(inject))
		ctx := testenv.Context(t, 10*time.Second)
		pub, err := c.Publish(ctx, cpfJob("hooked-1", "123.456.789-09"), "")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"hook " + e.cfg.Subjects().Jobs() + " hooked-1", "inject hooked", "done"}
		if fmt.Sprint(calls) != fmt.Sprint(want) || doneErrs[0] != nil {
			t.Errorf("calls %q (done errors %v), want %q with a nil error", calls, doneErrs, want)
		}
		js, _ := jetstream.New(e.nc)
		s, err := js.Stream(ctx, e.cfg.JobsStream)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := s.GetMsg(ctx, pub.Sequence)
		if err != nil {
			t.Fatal(err)
		}
		if raw.Header.Get("X-Hook") != "1" || raw.Header.Get(flowjob.HeaderMsgID) != "hooked-1" {
			t.Errorf("stored headers %v, want the hook's X-Hook and the job id", raw.Header)
		}

		// A publish the broker refuses (no stream takes the subject).
		calls, doneErrs = nil, nil
		bad := e.client(t, flowclient.WithPublishHook(hook), flowclient.WithSubjectPrefix("fstest.nostream"))
		if _, err := bad.Publish(ctx, cpfJob("hooked-2", "123.456.789-09"), ""); err == nil {
			t.Fatal("publishing on a subject no stream takes succeeded")
		}
		if len(doneErrs) != 1 || doneErrs[0] == nil {
			t.Errorf("done got %v, want the publish error once", doneErrs)
		}
	})
}

// TestClientPublishSaysWhetherTheJobMayBeStored: a publish sent but not
// acknowledged is ErrNotAcknowledged (the job may be stored: publishing it
// again is the remedy); one never sent or refused by the broker is not.
func TestClientPublishSaysWhetherTheJobMayBeStored(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		// A subscriber that takes the job and never answers, where no
		// stream listens: the publish is sent and its acknowledgement never
		// comes, as when a stream's leader is lost while it stores.
		silent := e.cfg.SubjectPrefix + "silent"
		sub, err := e.nc.Subscribe(silent+".jobs.>", func(*nats.Msg) {})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sub.Unsubscribe() })
		if err := e.nc.Flush(); err != nil {
			t.Fatal(err)
		}
		c := e.client(t, flowclient.WithSubjectPrefix(silent))
		for _, run := range []bool{false, true} {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			if run {
				_, err = c.Run(ctx, cpfJob("client-unacked-run", "1"))
			} else {
				_, err = c.Publish(ctx, cpfJob("client-unacked", "1"), "")
			}
			cancel()
			if !errors.Is(err, flowclient.ErrNotAcknowledged) || !errors.Is(err, context.DeadlineExceeded) ||
				!strings.Contains(err.Error(), "publish it again with the same id") {
				t.Errorf("run %v: a publish never acknowledged: %v, want ErrNotAcknowledged and the deadline, saying to publish again", run, err)
			}
		}

		ended, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = e.client(t).Publish(ended, cpfJob("client-never-sent", "1"), "")
		if !errors.Is(err, context.Canceled) || errors.Is(err, flowclient.ErrNotAcknowledged) || !strings.Contains(err.Error(), "not sent") {
			t.Errorf("a publish past its context: %v, want Canceled, not sent, not ErrNotAcknowledged", err)
		}
		closed, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		onClosed, err := flowclient.NewClient(closed, flowclient.WithSubjectPrefix(e.cfg.SubjectPrefix))
		if err != nil {
			t.Fatal(err)
		}
		closed.Close()
		_, err = onClosed.Publish(testenv.Context(t, 10*time.Second), cpfJob("client-closed", "1"), "")
		if !errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, flowclient.ErrNotAcknowledged) || !strings.Contains(err.Error(), "not sent") {
			t.Errorf("a publish on a closed connection: %v, want ErrConnectionClosed, not sent, not ErrNotAcknowledged", err)
		}
		// No stream: the publish is sent again while none answers (a
		// leader being elected); a context that ends meanwhile still
		// says no stream took it.
		nowhere := e.client(t, flowclient.WithSubjectPrefix("fstest.nostream"))
		for _, wait := range []time.Duration{100 * time.Millisecond, 10 * time.Second} {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			_, err := nowhere.Publish(ctx, cpfJob("client-nowhere", "1"), "")
			cancel()
			if !errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, flowclient.ErrNotAcknowledged) {
				t.Errorf("publishing where no stream listens, within %s: %v, want ErrNoStreamResponse without ErrNotAcknowledged", wait, err)
			}
		}
		// A refusal the broker answered with: a stream whose messages may
		// be no larger than 100 bytes.
		small := e.cfg.SubjectPrefix + "small"
		js, _ := jetstream.New(e.nc)
		name := e.cfg.JobsStream + "_SMALL"
		if _, err := js.CreateStream(testenv.Context(t, 10*time.Second), jetstream.StreamConfig{Name: name, Subjects: []string{small + ".jobs.>"},
			MaxMsgSize: 100, Storage: jetstream.MemoryStorage}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = js.DeleteStream(context.Background(), name) })
		_, err = e.client(t, flowclient.WithSubjectPrefix(small)).Publish(testenv.Context(t, 10*time.Second), cpfJob("client-refused", "1"), "")
		var jsErr jetstream.JetStreamError
		if !errors.As(err, &jsErr) || errors.Is(err, flowclient.ErrNotAcknowledged) || !strings.Contains(err.Error(), "the broker refused it; nothing is stored") {
			t.Errorf("a publish the broker refused: %v, want its JetStream error, saying it was refused, not ErrNotAcknowledged", err)
		}
	})
}

// TestClientPublishNamesAJobOverMaxPayload: a job within flowjob's size cap
// whose headers take it over the broker's max_payload is refused with the
// sizes and the advice not to retry, not a bare client error.
func TestClientPublishNamesAJobOverMaxPayload(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		c := e.client(t)
		job := cpfJob("client-max-payload", "1")
		data, err := flowjob.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		job.Variables["pad"] = strings.Repeat("x", int(e.nc.MaxPayload())-len(data)-len(`,"pad":""`))
		if data, _ = flowjob.Marshal(job); int64(len(data)) != e.nc.MaxPayload() {
			t.Fatalf("the job is %d bytes, want max_payload %d", len(data), e.nc.MaxPayload())
		}
		_, err = c.Publish(testenv.Context(t, 10*time.Second), job, "")
		if !errors.Is(err, nats.ErrMaxPayload) || !strings.Contains(err.Error(), "publishing it again cannot succeed") {
			t.Errorf("Publish of a job at max_payload: %v, want ErrMaxPayload saying not to retry", err)
		}
	})
}
