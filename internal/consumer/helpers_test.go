package consumer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/testenv"
)

func TestMain(m *testing.M) {
	// The benchmarks run scripts in worker processes: this test binary,
	// re-executed in worker mode.
	workerpool.MaybeRunWorker()
	goleak.VerifyTestMain(m)
}

// broker is one real NATS server the tests run against.
type broker struct {
	name string
	url  func(t testing.TB) string
}

var brokers = []broker{
	{"embedded", func(t testing.TB) string { return testenv.EmbeddedNATS(t).ClientURL() }},
	{"machine", testenv.MachineNATSURL},
}

// eachBroker runs f against an embedded nats-server and the machine's NATS.
func eachBroker(t *testing.T, f func(t *testing.T, url string)) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) { f(t, b.url(t)) })
	}
}

// testConfig is a config with names no other test uses (the machine's
// broker is shared), short timings, and cleanup that deletes its streams.
func testConfig(t testing.TB, url string) Config {
	t.Helper()
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	id := strings.ToUpper(hex.EncodeToString(b[:]))
	cfg := Config{
		JobsStream:           "T_JOBS_" + id,
		ResultsStream:        "T_RESULTS_" + id,
		DLQStream:            "T_DLQ_" + id,
		Consumer:             "T_EXEC_" + id,
		SubjectPrefix:        "fstest." + id,
		Parallel:             4,
		ScriptTimeout:        2 * time.Second,
		AckWait:              5 * time.Second,
		MaxDeliver:           4,
		PullWait:             200 * time.Millisecond,
		ShutdownGrace:        5 * time.Second,
		StoreRetryMaxElapsed: 2 * time.Second,
		RedeliveryDelay:      50 * time.Millisecond,
		MaxRedeliveryDelay:   200 * time.Millisecond,
		ResultsMaxAge:        time.Hour,
		DLQMaxAge:            time.Hour,
	}.WithDefaults()
	testenv.DeleteStreamsAtCleanup(t, url, cfg.Streams()...)
	return cfg
}

// provision creates cfg's streams, buckets and consumer the way a replica
// does at start (ProvisionWithRetry): a shared broker can answer a create
// with a passing server-side failure (nats-server reports its store's
// errors to the client only as "error creating store for stream"), and a
// test of something else must not fail on it. The tests of Provision's own
// answers (store_test.go) call it directly.
// withoutHealthCheck keeps the replica's health check from running: a test
// that deletes the results stream to stand for a broker in trouble needs
// it to stay gone, where the health check would create it again.
func withoutHealthCheck(cfg *Config) {
	cfg.HealthInterval, cfg.LeftoverSweepInterval = time.Hour, time.Hour
}

func provision(ctx context.Context, t testing.TB, js jetstream.JetStream, cfg Config) *Streams {
	t.Helper()
	s, err := ProvisionWithRetry(ctx, js, cfg, ApplyConfig, testLogger(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func connect(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.Name("consumer-test"))
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func jetStream(t testing.TB, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// testLogger writes to the test's output, shown when the test fails (or
// with -v).
func testLogger(t testing.TB) *slog.Logger {
	if _, bench := t.(*testing.B); bench {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// runner wraps the in-process sandbox and measures what the executor asks
// of it. before, when set, runs first and may replace the run.
type runner struct {
	inner   sandbox.Runner
	calls   atomic.Int64
	running atomic.Int64
	maxSeen atomic.Int64
	before  func(ctx context.Context, req sandbox.Request, call int64) (sandbox.Result, bool)
}

func newRunner(parallel int) *runner {
	l := sandbox.Limits{MaxParallel: parallel, Timeout: 2 * time.Second}.WithDefaults()
	return &runner{inner: sandbox.NewInProcess(l)}
}

func (r *runner) Run(ctx context.Context, req sandbox.Request) sandbox.Result {
	n := r.running.Add(1)
	defer r.running.Add(-1)
	for m := r.maxSeen.Load(); n > m && !r.maxSeen.CompareAndSwap(m, n); m = r.maxSeen.Load() {
	}
	call := r.calls.Add(1)
	if r.before != nil {
		if res, done := r.before(ctx, req, call); done {
			return res
		}
	}
	return r.inner.Run(ctx, req)
}

// started is an executor running in the background.
type started struct {
	*Executor
	cancel context.CancelFunc
	done   chan error
}

func startExecutor(t testing.TB, nc *nats.Conn, cfg Config, r sandbox.Runner) *started {
	t.Helper()
	return startExecutorWith(t, nc, cfg, Options{Runner: r})
}

// startExecutorWith starts an executor with opts, filling the policy and
// the test logger when unset.
func startExecutorWith(t testing.TB, nc *nats.Conn, cfg Config, opts Options) *started {
	t.Helper()
	if opts.Policy.DefaultErrorMessage == "" && opts.Policy.Now == nil {
		opts.Policy = actions.Policy{DefaultErrorMessage: "Algo deu errado."}
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	e, err := New(testenv.Context(t, 30*time.Second), nc, cfg, opts)
	if err != nil {
		t.Fatalf("creating executor: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{Executor: e, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- e.Run(ctx) }()
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop ends Run and waits for it.
func (s *started) stop(t testing.TB) {
	t.Helper()
	s.cancel()
	select {
	case err, ok := <-s.done:
		if ok && err != nil {
			t.Errorf("Run: %v", err)
		}
		if ok {
			close(s.done)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the executor did not stop within 30s")
	}
}

// Job builders. Every job is valid unless a test breaks it on purpose.

// cpfSource is the seed's cpf script.
var cpfSource = examples.CPF

func newJob(id, source string) *flowjob.Job {
	return &flowjob.Job{
		ID:        id,
		SessionID: "session-" + id,
		FlowID:    "flow-1",
		BlockID:   "block-1",
		Context:   flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         source,
			InputVariables: []flowjob.InputVariable{{Name: "cpf", Value: "{{cpf}}"}},
			OutputVariable: "out",
			ErrorVariable:  "err",
			OnError:        flowjob.OnErrorContinue,
		},
		Variables: map[string]string{"cpf": "123.456.789-09"},
	}
}

func cpfJob(id string) *flowjob.Job { return newJob(id, cpfSource) }

// sleepJob busy-waits ms milliseconds inside the sandbox.
func sleepJob(id string, ms int) *flowjob.Job {
	return newJob(id, fmt.Sprintf("const end = Date.now() + %d; while (Date.now() < end) {} return 'slept'", ms))
}

func publish(t testing.TB, js jetstream.JetStream, cfg Config, job *flowjob.Job) {
	t.Helper()
	data, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, cfg, data, job.ID, nil)
}

func publishRaw(t testing.TB, js jetstream.JetStream, cfg Config, data []byte, msgID string, hdr nats.Header) {
	t.Helper()
	msg := nats.NewMsg(cfg.Subjects().Jobs())
	msg.Data = data
	for k, v := range hdr {
		msg.Header[k] = v
	}
	if msgID != "" {
		msg.Header.Set(flowjob.HeaderMsgID, msgID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatalf("publishing job %s: %v", msgID, err)
	}
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func streamMsgs(t testing.TB, js jetstream.JetStream, name string) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatalf("opening stream %s: %v", name, err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatalf("stream %s info: %v", name, err)
	}
	return info.State.Msgs
}

func consumerInfo(t testing.TB, js jetstream.JetStream, cfg Config) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := js.Consumer(context.Background(), cfg.JobsStream, cfg.Consumer)
	if err != nil {
		t.Fatalf("opening consumer: %v", err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatalf("consumer info: %v", err)
	}
	return info
}

// storedMsg is one message read back from a stream.
type storedMsg struct {
	subject string
	header  nats.Header
	data    []byte
}

// readAll reads every message of stream, waiting until it holds want.
func readAll(t testing.TB, js jetstream.JetStream, stream string, want int, d time.Duration) []storedMsg {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("%d messages in stream %s", want, stream), func() bool {
		return streamMsgs(t, js, stream) >= uint64(want)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatalf("ordered consumer on %s: %v", stream, err)
	}
	total := int(streamMsgs(t, js, stream))
	var out []storedMsg
	for len(out) < total {
		batch, err := c.Fetch(min(total-len(out), 500), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatalf("reading stream %s: %v", stream, err)
		}
		n := 0
		for m := range batch.Messages() {
			out = append(out, storedMsg{subject: m.Subject(), header: m.Headers(), data: m.Data()})
			n++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			t.Fatalf("reading stream %s: %v", stream, err)
		}
		if n == 0 {
			t.Fatalf("reading stream %s: got %d of %d messages", stream, len(out), total)
		}
	}
	return out
}

// results reads want results and indexes them by job id, failing on a
// second result for any id.
func results(t testing.TB, js jetstream.JetStream, cfg Config, want int, d time.Duration) map[string]flowjob.Result {
	t.Helper()
	msgs := readAll(t, js, cfg.ResultsStream, want, d)
	byID := make(map[string]flowjob.Result, len(msgs))
	for _, m := range msgs {
		var r flowjob.Result
		if err := json.Unmarshal(m.data, &r); err != nil {
			t.Fatalf("decoding result on %s: %v", m.subject, err)
		}
		if m.subject != cfg.Subjects().Result(r.JobID) {
			t.Errorf("result of job %s stored on %s", r.JobID, m.subject)
		}
		if _, dup := byID[r.JobID]; dup {
			t.Errorf("job %s has more than one result", r.JobID)
		}
		byID[r.JobID] = r
	}
	if len(msgs) != want {
		t.Errorf("got %d results, want %d", len(msgs), want)
	}
	return byID
}

// settled waits until the JOBS stream is empty and nothing is pending on the
// consumer: every job was acked or terminated.
func settled(t testing.TB, js jetstream.JetStream, cfg Config, d time.Duration) {
	t.Helper()
	waitFor(t, d, "every job to be acked", func() bool {
		info := consumerInfo(t, js, cfg)
		return streamMsgs(t, js, cfg.JobsStream) == 0 && info.NumAckPending == 0
	})
}

// replyInboxes subscribes to the Reply-To inboxes of cfg's test,
// root.<name> with root "replies.<consumer>".
func replyInboxes(t testing.TB, nc *nats.Conn, cfg Config) (sub *nats.Subscription, root string) {
	t.Helper()
	root = "replies." + cfg.Consumer
	sub, err := nc.SubscribeSync(root + ".>")
	if err != nil {
		t.Fatal(err)
	}
	return sub, root
}
