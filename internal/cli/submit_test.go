package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// broker is a real NATS server with names no other test uses (the
// machine's broker is shared): the flags that reach it and the executor's
// configuration for it.
type broker struct {
	url   string
	names consumer.Config
}

// flags are the broker flags of submit and bench for b.
func (b broker) flags() []string {
	return []string{"--nats", b.url, "--subject-prefix", b.names.SubjectPrefix, "--results-stream", b.names.ResultsStream}
}

// eachBroker runs f against an embedded nats-server and the machine's NATS.
func eachBroker(t *testing.T, f func(t *testing.T, b broker)) {
	t.Run("embedded", func(t *testing.T) { f(t, newBroker(t, testenv.EmbeddedNATS(t).ClientURL())) })
	t.Run("machine", func(t *testing.T) { f(t, newBroker(t, testenv.MachineNATSURL(t))) })
}

// newBroker gives url unique stream names and subject prefix, and deletes
// the streams when the test ends.
func newBroker(t *testing.T, url string) broker {
	t.Helper()
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	id := strings.ToUpper(hex.EncodeToString(b[:]))
	names := consumer.Config{
		JobsStream:    "T_CLI_JOBS_" + id,
		ResultsStream: "T_CLI_RESULTS_" + id,
		DLQStream:     "T_CLI_DLQ_" + id,
		Consumer:      "T_CLI_EXEC_" + id,
		SubjectPrefix: "clitest." + id,
		Parallel:      4,
		ScriptTimeout: 2 * time.Second,
		PullWait:      200 * time.Millisecond,
		ShutdownGrace: 5 * time.Second,
		ResultsMaxAge: time.Hour,
		DLQMaxAge:     time.Hour,
	}.WithDefaults()
	testenv.DeleteStreamsAtCleanup(t, url, names.Streams()...)
	return broker{url: url, names: names}
}

// provision creates the executor's streams and consumer on b without
// running it: jobs are stored and never handled.
func provision(t *testing.T, b broker) {
	t.Helper()
	newExecutor(t, b)
}

// startExecutor runs an executor on b (in-process sandbox: the tests'
// scripts are trusted) until the test ends.
func startExecutor(t *testing.T, b broker) {
	t.Helper()
	startExecutorWith(t, b, consumer.Options{})
}

// startExecutorWith is startExecutor with opts (the runner and the policy
// are set here).
func startExecutorWith(t *testing.T, b broker, opts consumer.Options) {
	t.Helper()
	exec := newExecutorWith(t, b, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exec.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("executor: %v", err)
		}
	})
}

func newExecutor(t *testing.T, b broker) *consumer.Executor {
	t.Helper()
	return newExecutorWith(t, b, consumer.Options{})
}

func newExecutorWith(t *testing.T, b broker, opts consumer.Options) *consumer.Executor {
	t.Helper()
	nc, err := nats.Connect(b.url, nats.MaxReconnects(-1), nats.Name("cli-test-executor"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	limits := sandbox.Limits{MaxParallel: b.names.Parallel, Timeout: b.names.ScriptTimeout}.WithDefaults()
	opts.Runner, opts.Policy = sandbox.NewInProcess(limits), actions.Policy{}
	exec, err := consumer.New(testenv.Context(t, 30*time.Second), nc, b.names, opts)
	if err != nil {
		t.Fatal(err)
	}
	return exec
}

// examplePath is a sample job of the repository's examples folder.
func examplePath(name string) string { return filepath.Join("..", "..", "examples", name) }

// decodeResult decodes submit's one line of output.
func decodeResult(t *testing.T, stdout string) flowjob.Result {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	var res flowjob.Result
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout is not a result event: %v: %q", err, stdout)
	}
	return res
}

func TestSubmitPrintsTheResultEvent(t *testing.T) {
	eachBroker(t, func(t *testing.T, b broker) {
		startExecutor(t, b)
		failing := writeScript(t, "function execute(x) {\n  throw new Error('no ' + x)\n}\n")
		for _, tc := range []struct {
			name   string
			args   []string
			stdin  string
			code   int
			status flowjob.Status
			check  func(t *testing.T, r flowjob.Result)
		}{
			{"sample job file", []string{"--file", examplePath("01-success-cpf.json"), "--id", newJobID("t")}, "", ExitOK, flowjob.StatusSucceeded,
				func(t *testing.T, r flowjob.Result) {
					if r.Variables["resultado"] != "valido" || r.SessionID != "session-42" || r.BlockID != "block-success-cpf" {
						t.Errorf("result = %+v", r)
					}
				}},
			{"job flags replace the file's", []string{"--file", examplePath("02-success-nome.json"), "--id", newJobID("t"), "--session", "s-9", "--block", "b-9"},
				"", ExitOK, flowjob.StatusSucceeded,
				func(t *testing.T, r flowjob.Result) {
					if r.Variables["resultado"] != "Maria Da Silva" || r.SessionID != "s-9" || r.BlockID != "b-9" || r.FlowID != "flow-onboarding" {
						t.Errorf("result = %+v", r)
					}
				}},
			{"script with inputs", []string{"--source", writeScript(t, cpfScript), "--input", "cpf=123.456.789-09", "--output-var", "ok", "--flow", "f-1"},
				"", ExitOK, flowjob.StatusSucceeded,
				func(t *testing.T, r flowjob.Result) {
					if r.Variables["ok"] != "valido" || r.FlowID != "f-1" || r.Context != flowjob.ContextFlow || !strings.HasPrefix(r.JobID, "cli-") {
						t.Errorf("result = %+v", r)
					}
				}},
			{"input values reach the script unchanged", []string{"--source", "-", "--input", "a={{x}} & {{y}}"}, "return a", ExitOK, flowjob.StatusSucceeded,
				func(t *testing.T, r flowjob.Result) {
					if r.Variables["result"] != "{{x}} & {{y}}" {
						t.Errorf("result = %+v", r)
					}
				}},
			{"failing script, continue", []string{"--source", failing, "--input", "x=way", "--on-error", "continue", "--error-var", "err", "--context", "tool"},
				"", ExitFailed, flowjob.StatusFailed,
				func(t *testing.T, r flowjob.Result) {
					if r.Error == nil || r.Error.Code != flowjob.CodeScriptError || !strings.Contains(r.Variables["err"], "no way") ||
						r.Directive.Type != flowjob.DirectiveContinue || r.Context != flowjob.ContextTool {
						t.Errorf("result = %+v", r)
					}
				}},
			{"failing script, blocking", []string{"--source", failing, "--input", "x=way"}, "", ExitFailed, flowjob.StatusFailed,
				func(t *testing.T, r flowjob.Result) {
					if r.Directive.Type != flowjob.DirectiveFreezeHandoff {
						t.Errorf("result = %+v", r)
					}
				}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				args := append(append([]string{"submit", "--timeout", "20s"}, b.flags()...), tc.args...)
				code, stdout, stderr := invocation{args: args, stdin: tc.stdin}.run(t)
				if code != tc.code {
					t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
				}
				r := decodeResult(t, stdout)
				if r.Status != tc.status {
					t.Errorf("status %q, want %q", r.Status, tc.status)
				}
				tc.check(t, r)
			})
		}
	})
}

// TestSubmitSameIDGivesTheStoredResult: the job id is the job's identity.
func TestSubmitSameIDGivesTheStoredResult(t *testing.T) {
	b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
	startExecutor(t, b)
	id := newJobID("t")
	var first flowjob.Result
	for i := range 2 {
		code, stdout, stderr := invocation{args: append(append([]string{"submit"}, b.flags()...),
			"--file", examplePath("01-success-cpf.json"), "--id", id)}.run(t)
		if code != ExitOK {
			t.Fatalf("submit %d: exit %d; stderr: %s", i+1, code, stderr)
		}
		r := decodeResult(t, stdout)
		if i == 0 {
			first = r
		} else if !r.CompletedAt.Equal(first.CompletedAt) || r.Attempt != first.Attempt {
			t.Errorf("second submit of %s got a new result %+v, want the stored %+v", id, r, first)
		}
	}
}

func TestSubmitWithoutExecutor(t *testing.T) {
	t.Run("streams exist, nobody runs the job", func(t *testing.T) {
		eachBroker(t, func(t *testing.T, b broker) {
			provision(t, b)
			start := time.Now()
			code, stdout, stderr := invocation{args: append(append([]string{"submit", "--timeout", "1s"}, b.flags()...),
				"--source", writeScript(t, "return 1"), "--id", "lonely-1")}.run(t)
			if code != ExitFailed || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing", code, stdout)
			}
			for _, want := range []string{"no result for job lonely-1 within 1s", "is an executor running on", b.names.SubjectPrefix, b.names.Subjects().Result("lonely-1")} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q: %s", want, stderr)
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("submit took %s with --timeout 1s", d)
			}
		})
	})
	t.Run("the broker never acknowledges", func(t *testing.T) {
		eachBroker(t, func(t *testing.T, b broker) {
			// A stream that stores jobs and acknowledges none (NoAck), as a
			// broker whose answer is lost: the job may be queued.
			_, js := testenv.JetStream(t, b.url)
			if _, err := js.CreateStream(testenv.Context(t, 10*time.Second), jetstream.StreamConfig{Name: b.names.JobsStream,
				Subjects: []string{b.names.SubjectPrefix + ".jobs.>"}, NoAck: true, Storage: jetstream.MemoryStorage}); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := invocation{args: append(append([]string{"submit", "--timeout", "3s"}, b.flags()...),
				"--source", writeScript(t, "return 1"), "--id", "unacked-1")}.run(t)
			if code != ExitFailed || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing", code, stdout)
			}
			for _, want := range []string{"did not acknowledge job unacked-1 within 3s", "may or may not be queued", "again with --id unacked-1", "DUPLICATE_WINDOW"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q: %s", want, stderr)
				}
			}
		})
	})
	t.Run("a timeout before the job is sent", func(t *testing.T) {
		// 1 ms runs out while connecting, looking the stream up, publishing
		// or awaiting: what submit says of the job is what the broker holds.
		b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
		provision(t, b)
		said := map[bool]int{}
		for i := range 20 {
			id := fmt.Sprintf("early-%d", i)
			code, _, stderr := invocation{args: append(append([]string{"submit", "--timeout", "1ms"}, b.flags()...),
				"--source", writeScript(t, "return 1"), "--id", id)}.run(t)
			queued := strings.Contains(stderr, "it is still queued or still running")
			notQueued := strings.Contains(stderr, "job "+id+" was not queued within 1ms") || strings.Contains(stderr, "connecting to NATS") ||
				strings.Contains(stderr, "may or may not be queued")
			if code != ExitFailed || queued == notQueued {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			if _, err := jobsStreamMsg(t, b, id); (err == nil) != queued && !strings.Contains(stderr, "may or may not") {
				t.Errorf("submit said queued %v, the stream's lookup of %s: %v; stderr: %s", queued, id, err, stderr)
			}
			said[queued]++
		}
		t.Logf("queued %d times, not queued %d times", said[true], said[false])
	})
	t.Run("interrupted before the job is sent", func(t *testing.T) {
		b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
		provision(t, b)
		interrupted, cancel := context.WithCancel(context.Background())
		cancel()
		code, _, stderr := invocation{args: append(append([]string{"submit"}, b.flags()...), "--source", writeScript(t, "return 1"), "--id", "interrupted-1"),
			ctx: interrupted}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "interrupted before job interrupted-1 was queued: nothing was sent") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
		if _, err := jobsStreamMsg(t, b, "interrupted-1"); err == nil {
			t.Error("the job was queued")
		}
	})
	t.Run("no streams", func(t *testing.T) {
		b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
		code, _, stderr := invocation{args: append(append([]string{"submit"}, b.flags()...), "--source", writeScript(t, "return 1"))}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "no stream stores jobs published on "+b.names.Subjects().Jobs()) ||
			!strings.Contains(stderr, "start an executor") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
	t.Run("no NATS", func(t *testing.T) {
		code, _, stderr := invocation{args: []string{"submit", "--timeout", "2s", "--source", writeScript(t, "return 1")},
			env: map[string]string{"NATS_URL": "nats://user:secret@127.0.0.1:1"}}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "connecting to NATS at nats://user:xxxxx@127.0.0.1:1") ||
			strings.Contains(stderr, "secret") || !strings.Contains(stderr, "Set --nats or NATS_URL") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
}

// TestSubmitRefusesBadJobs: nothing is published (the broker does not
// exist), and each problem names its field.
func TestSubmitRefusesBadJobs(t *testing.T) {
	script := writeScript(t, "return 1")
	noID := filepath.Join(t.TempDir(), "noid.json")
	raw, err := os.ReadFile(examplePath("01-success-cpf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "id")
	delete(doc, "sessionId")
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(noID, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	latin1 := writeScript(t, "return 'a\xe7\xe3o'")
	big := writeScript(t, "return '"+strings.Repeat("x", flowjob.MaxSourceBytes)+"'")
	bigJob := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(bigJob, []byte(`{"id": "`+strings.Repeat("x", flowjob.MaxJobBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"script not UTF-8", []string{"--source", latin1}, ExitUsage, []string{"the script is not UTF-8 text (byte 0xE7 at offset 9): save it as UTF-8"}},
		{"script over the cap", []string{"--source", big}, ExitUsage, []string{fmt.Sprintf("the script is %d bytes, over the 262144-byte limit", flowjob.MaxSourceBytes+9)}},
		{"job file over the cap", []string{"--file", bigJob}, ExitUsage, []string{fmt.Sprintf("the job is %d bytes, over the 1048576-byte limit", flowjob.MaxJobBytes+10)}},
		{"contract broken in the file", []string{"--file", examplePath("10-invalid-onerror.json")}, ExitUsage,
			[]string{"nothing was published", `action.onError: must be "blocking" or "continue", got "sometimes"`}},
		{"every problem listed", []string{"--source", script, "--on-error", "never", "--context", "room", "--output-var", ""}, ExitUsage,
			[]string{"action.onError (--on-error):", "context (--context):", "action.outputVariable (--output-var): required"}},
		{"bad input name", []string{"--source", script, "--input", "1x=2"}, ExitUsage, []string{`invalid value "1x=2" for flag --input: "1x" must start with a letter`}},
		{"file without sessionId", []string{"--file", noID}, ExitUsage, []string{"sessionId: required"}},
		{"bad id flag", []string{"--source", script, "--id", "a b"}, ExitUsage, []string{"id (--id): must contain only"}},
		{"not JSON", []string{"--file", script}, ExitUsage, []string{"not valid JSON"}},
		{"no job", nil, ExitUsage, []string{"missing the job: give --file FILE"}},
		{"file and action flags", []string{"--file", noID, "--source", script, "--on-error", "continue"}, ExitUsage,
			[]string{"--file takes the action from the file: drop --source --on-error"}},
		{"input without =", []string{"--source", script, "--input", "x"}, ExitUsage, []string{`want name=value, got "x"`}},
		{"input given twice", []string{"--source", script, "--input", "x=1", "--input", "x=2"}, ExitUsage,
			[]string{`invalid value "x=2" for flag --input: "x" is already given by an earlier --input`}},
		{"missing file", []string{"--file", filepath.Join(t.TempDir(), "nope.json")}, ExitUsage, []string{"opening the job"}},
		{"bad timeout", []string{"--source", script, "--timeout", "0s"}, ExitUsage, []string{"--timeout must be positive"}},
		{"timeout without a unit", []string{"--source", script, "--timeout", "5"}, ExitUsage,
			[]string{`invalid value "5" for flag --timeout: write a duration with its unit, such as 30s or 2m`}},
		{"bad prefix", []string{"--source", script, "--subject-prefix", "a.*"}, ExitUsage, []string{"--subject-prefix must be"}},
		{"bad URL", []string{"--source", script, "--nats", "::"}, ExitUsage, []string{"--nats must be a URL"}},
		{"stray argument", []string{"--source", script, "job.json"}, ExitUsage, []string{`unexpected argument "job.json"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"submit", "--nats", "nats://127.0.0.1:1", "--timeout", "2s"}, tc.args...)
			code, stdout, stderr := invocation{args: args}.run(t)
			if code != tc.code || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want %d and nothing; stderr: %s", code, stdout, tc.code, stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if strings.Contains(stderr, "connecting to NATS") {
				t.Errorf("a bad job reached the broker:\n%s", stderr)
			}
		})
	}
}

// A job file that starts with a byte order mark (as some editors and
// Windows PowerShell save it) is read without it, from a file or from
// standard input: RFC 8259 lets a parser ignore it.
func TestSubmitFileWithAByteOrderMark(t *testing.T) {
	raw, err := os.ReadFile(examplePath("01-success-cpf.json"))
	if err != nil {
		t.Fatal(err)
	}
	withBOM := append([]byte("\uFEFF"), raw...)
	file := filepath.Join(t.TempDir(), "bom.json")
	if err := os.WriteFile(file, withBOM, 0o600); err != nil {
		t.Fatal(err)
	}
	b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
	startExecutor(t, b)
	for _, inv := range []invocation{
		{args: append(append([]string{"submit"}, b.flags()...), "--file", file, "--id", "bom-file")},
		{args: append(append([]string{"submit"}, b.flags()...), "--file", "-", "--id", "bom-stdin"), stdin: string(withBOM)},
	} {
		code, stdout, stderr := inv.run(t)
		if code != ExitOK {
			t.Fatalf("%v: exit %d; stderr: %s", inv.args, code, stderr)
		}
		if r := decodeResult(t, stdout); r.Variables["resultado"] != "valido" {
			t.Errorf("%v: result = %+v", inv.args, r)
		}
	}
}

// TestSubmitFileWithoutIDGetsOne: the id is the only field a file may
// leave out.
func TestSubmitFileWithoutIDGetsOne(t *testing.T) {
	raw, err := os.ReadFile(examplePath("01-success-cpf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "id")
	raw, _ = json.Marshal(doc)
	b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
	startExecutor(t, b)
	code, stdout, stderr := invocation{args: append(append([]string{"submit"}, b.flags()...), "--file", "-"), stdin: string(raw)}.run(t)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if r := decodeResult(t, stdout); !strings.HasPrefix(r.JobID, "cli-") || r.Variables["resultado"] != "valido" {
		t.Errorf("result = %+v", r)
	}
}

// jobsStreamMsg is the job stored in b's JOBS stream under id (its
// Nats-Msg-Id), or an error when there is none.
func jobsStreamMsg(t *testing.T, b broker, id string) (*jetstream.RawStreamMsg, error) {
	t.Helper()
	ctx := testenv.Context(t, 10*time.Second)
	_, js := testenv.JetStream(t, b.url)
	s, err := js.Stream(ctx, b.names.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); ; seq++ {
		msg, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, fmt.Errorf("no job %s in %s", id, b.names.JobsStream)
		}
		if err != nil {
			t.Fatal(err)
		}
		if msg.Header.Get(nats.MsgIdHdr) == id {
			return msg, nil
		}
	}
}
