package executorapp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// Drills of the delivery budget and of readiness, with real executor
// processes and real brokers (DESIGN.md §5: nothing unacked is lost).

// TestInterruptedOnEveryDeliveryEnds: a job whose every delivery is cut
// short — its replica stopped with SIGTERM past the grace, or killed with
// SIGKILL — still ends, with exactly one (failed) result and a dead letter,
// and nothing stays in JOBS. Interruptions at shutdown do not count as
// attempts (up to MAX_DELIVER of them); kills do.
func TestInterruptedOnEveryDeliveryEnds(t *testing.T) {
	const maxDeliver = 2
	for _, how := range []struct {
		name string
		sig  syscall.Signal
		env  map[string]string
		// stops is how many deliveries are cut short before one ends the
		// job without running it.
		stops int
	}{
		{"sigterm", syscall.SIGTERM, map[string]string{"SHUTDOWN_GRACE": "300ms", "SANDBOX_TIMEOUT_MS": "20000"}, 2 * maxDeliver},
		{"sigkill", syscall.SIGKILL, map[string]string{"SANDBOX_TIMEOUT_MS": "5000", "ACK_WAIT": "6s"}, maxDeliver},
	} {
		t.Run(how.name, func(t *testing.T) {
			eachBroker(t, func(t *testing.T, url string) {
				env, cfg := names(t, url)
				env["MAX_DELIVER"] = fmt.Sprint(maxDeliver)
				env["SANDBOX_MAX_PARALLEL"] = "1"
				for k, v := range how.env {
					env[k] = v
				}
				nc, err := nats.Connect(url)
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				js, _ := jetstream.New(nc)
				provision(t, js, cfg, 20*time.Second)
				if _, err := newClient(t, nc, cfg).Publish(context.Background(), slowJob("cut-short", 60_000), ""); err != nil {
					t.Fatal(err)
				}
				cons, err := js.Consumer(context.Background(), cfg.JobsStream, cfg.Consumer)
				if err != nil {
					t.Fatal(err)
				}
				delivered := uint64(0)
				stops := 0
				for streamState(t, js, cfg.ResultsStream).Msgs == 0 {
					if stops > how.stops {
						t.Fatalf("%d deliveries cut short and still no result", stops)
					}
					p := startBinary(t, env)
					waitFor(t, 60*time.Second, "a new delivery or the result", func() bool {
						info, err := cons.Info(context.Background())
						if err == nil && info.Delivered.Consumer > delivered && info.NumAckPending == 1 {
							delivered = info.Delivered.Consumer
							return true
						}
						return streamState(t, js, cfg.ResultsStream).Msgs > 0
					})
					if streamState(t, js, cfg.ResultsStream).Msgs > 0 {
						break
					}
					time.Sleep(200 * time.Millisecond) // the script is running
					if err := p.cmd.Process.Signal(how.sig); err != nil {
						t.Fatal(err)
					}
					p.wait(t, 30*time.Second)
					if streamState(t, js, cfg.ResultsStream).Msgs > 0 {
						break // this delivery ended the job before the signal
					}
					stops++
					t.Logf("delivery %d cut short by %s; settled as: %s", delivered, how.name, settledLine(p.stderr.String()))
				}
				waitFor(t, 20*time.Second, "JOBS to empty", func() bool { return streamState(t, js, cfg.JobsStream).Msgs == 0 })
				if stops != how.stops {
					t.Errorf("%d deliveries were cut short before the job ended, want %d", stops, how.stops)
				}
				counts := resultCounts(t, js, cfg)
				if counts["cut-short"] != 1 || len(counts) != 1 {
					t.Fatalf("results %v, want exactly one for cut-short", counts)
				}
				res, err := newClient(t, nc, cfg).Result(context.Background(), "cut-short")
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != flowjob.StatusFailed || res.Error == nil || res.Error.Code != flowjob.CodeDeliveryExhausted {
					t.Errorf("result %+v, want failed DELIVERY_EXHAUSTED", res)
				}
				if n := streamState(t, js, cfg.DLQStream).Msgs; n != 1 {
					t.Errorf("%d dead letters, want 1", n)
				}
			})
		})
	}
}

// TestStartsWithoutABroker: an executor started while its broker is down
// waits for it (a rollout during a broker restart must not crash-loop),
// says 503 on /readyz meanwhile, and becomes ready by itself.
func TestStartsWithoutABroker(t *testing.T) {
	for _, kind := range testenv.NATSKinds {
		t.Run(string(kind), func(t *testing.T) {
			port := testenv.FreePort(t)
			url := fmt.Sprintf("nats://127.0.0.1:%d", port)
			env, _ := names(t, url)
			admin := testenv.FreeAddr(t)
			env["ADMIN_ADDR"] = admin
			p := startBinary(t, env)
			waitFor(t, 30*time.Second, "the admin port", func() bool { return readyz(admin) > 0 })
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
				if code := readyz(admin); code != http.StatusServiceUnavailable {
					t.Fatalf("/readyz answered %d with no broker, want 503", code)
				}
				select {
				case <-p.done:
					t.Fatalf("the executor exited without a broker: %v\n%s", p.err, p.stderr.String())
				default:
				}
			}
			testenv.StartNATSProcess(t, kind, testenv.NATSProcessOptions{Port: port})
			waitFor(t, 60*time.Second, "/readyz to answer 200 once the broker is up", func() bool {
				return readyz(admin) == http.StatusOK
			})
		})
	}
}

// TestSIGTERMWhileWaitingForTheBroker: a replica stopped while it still
// waits for its broker (a pod terminated during an outage) exits 0, starts
// nothing more and panics on nothing.
func TestSIGTERMWhileWaitingForTheBroker(t *testing.T) {
	url := fmt.Sprintf("nats://127.0.0.1:%d", testenv.FreePort(t))
	env, _ := names(t, url)
	admin := testenv.FreeAddr(t)
	env["ADMIN_ADDR"] = admin
	p := startBinary(t, env)
	waitFor(t, 30*time.Second, "the admin port", func() bool { return readyz(admin) > 0 })
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 30*time.Second); code != 0 || strings.Contains(p.stderr.String(), "panic") {
		t.Errorf("exit code %d after SIGTERM while waiting for the broker, want 0 and no panic:\n%s", code, p.stderr.String())
	}
}

// TestConflictingStreamIsNamedByReadyz: a JOBS stream that exists with
// settings no replica may change (limits retention, not work-queue) keeps
// the executor waiting for the operator, and /readyz says why.
func TestConflictingStreamIsNamedByReadyz(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		env, cfg := names(t, url)
		admin := testenv.FreeAddr(t)
		env["ADMIN_ADDR"] = admin
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx := testenv.Context(t, 10*time.Second)
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: cfg.JobsStream, Subjects: []string{cfg.Subjects().JobsFilter()},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Duplicates: time.Minute}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = js.DeleteStream(context.Background(), cfg.JobsStream) })
		startBinary(t, env)
		var reason string
		waitFor(t, 30*time.Second, "/readyz to name the stream's conflict", func() bool {
			code, r := readyzReason(admin)
			reason = r
			return code == http.StatusServiceUnavailable && strings.Contains(r, "provisioning stream "+cfg.JobsStream) && strings.Contains(r, "retention")
		})
		t.Logf("/readyz: %s", reason)
	})
}

// TestHalfOpenBrokerIsNotReady: a broker that stops answering (SIGSTOP:
// its connections stay open) turns /readyz to 503 within the documented
// 10 s, where an idle queue would keep it 200; the executor is ready again
// once the broker answers.
func TestHalfOpenBrokerIsNotReady(t *testing.T) {
	for _, kind := range testenv.NATSKinds {
		t.Run(string(kind), func(t *testing.T) {
			broker := testenv.StartNATSProcess(t, kind, testenv.NATSProcessOptions{})
			env, _ := names(t, broker.URL())
			admin := testenv.FreeAddr(t)
			env["ADMIN_ADDR"] = admin
			startBinary(t, env)
			waitFor(t, 60*time.Second, "/readyz to answer 200", func() bool { return readyz(admin) == http.StatusOK })
			time.Sleep(3 * time.Second) // idle: pulls time out, and it stays ready
			if code := readyz(admin); code != http.StatusOK {
				t.Fatalf("/readyz answered %d on an idle queue, want 200", code)
			}
			broker.Pause()
			start := time.Now()
			waitFor(t, 20*time.Second, "/readyz to answer 503", func() bool { return readyz(admin) == http.StatusServiceUnavailable })
			took := time.Since(start)
			t.Logf("/readyz turned 503 %s after the broker stopped answering", took.Round(100*time.Millisecond))
			if took > 12*time.Second { // documented 10 s, with slack for a busy machine
				t.Errorf("/readyz took %s to turn 503, documented: within 10 s", took)
			}
			broker.Resume()
			waitFor(t, 60*time.Second, "/readyz to answer 200 again", func() bool { return readyz(admin) == http.StatusOK })
		})
	}
}

// readyz is the status of GET /readyz on addr, 0 when nothing answers.
func readyz(addr string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// settledLine is what a replica's log says about the job it settled.
func settledLine(logs string) string {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"job settled"`) || strings.Contains(line, "settling a job message failed") {
			return line
		}
	}
	return "(nothing settled)"
}
