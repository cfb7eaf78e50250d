package executorapp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestMainServesEnginesOnTheEmbeddedBroker runs Main in this process with
// the embedded broker listening: an engine connects over TCP and gets its
// result, /readyz says ready, and cancelling Main's context shuts it down
// with exit code 0.
func TestMainServesEnginesOnTheEmbeddedBroker(t *testing.T) {
	port := testenv.FreePort(t)
	env := map[string]string{
		"EXECUTOR_DATA_DIR":    t.TempDir(),
		"EMBEDDED_NATS_ADDR":   "127.0.0.1:" + strconv.Itoa(port),
		"ADMIN_ADDR":           "127.0.0.1:0",
		"SANDBOX_MAX_PARALLEL": "2",
	}
	admin := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- Main(ctx, Deps{
			Args: []string{"-demo=off"}, Getenv: envOf(env), Stdout: io.Discard, Stderr: t.Output(),
			OnAdmin: func(addr string) { admin <- addr },
		})
	}()
	var addr string
	select {
	case addr = <-admin:
	case code := <-exit:
		t.Fatalf("Main exited with %d before serving", code)
	case <-time.After(30 * time.Second):
		t.Fatal("the admin server did not start within 30s")
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	waitFor(t, 10*time.Second, "/readyz to answer 200", func() bool {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode == http.StatusOK
	})

	nc, err := nats.Connect("nats://127.0.0.1:" + strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := flowclient.NewClient(nc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(testenv.Context(t, 20*time.Second), slowJob("main-engine-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != flowjob.StatusSucceeded || res.Variables["out"] != "done" {
		t.Errorf("result = %+v", res)
	}
	nc.Close()

	cancel()
	select {
	case code := <-exit:
		if code != ExitOK {
			t.Errorf("exit code %d, want 0", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Main did not return within 30s of its context ending")
	}
}

// A bad variable stops the start with exit 2, naming it: one of the
// executor's own, or an OTEL_* one telemetry refuses (as templates-api
// does), not exit 1 as a failure.
func TestMainRefusesABadConfiguration(t *testing.T) {
	for name, value := range map[string]string{"MAX_DELIVER": "lots", "OTEL_TRACES_SAMPLER": "sometimes"} {
		var stderr testenv.SyncBuffer
		code := Main(context.Background(), Deps{
			Getenv: envOf(map[string]string{name: value}), Stdout: io.Discard, Stderr: &stderr,
		})
		if code != ExitUsage {
			t.Errorf("%s=%s: exit code %d, want %d", name, value, code, ExitUsage)
		}
		if got := stderr.String(); !containsAll(got, "invalid configuration", name) {
			t.Errorf("%s=%s: stderr = %q", name, value, got)
		}
	}
}

// -version prints the build's version and starts nothing.
func TestMainPrintsItsVersion(t *testing.T) {
	var stdout testenv.SyncBuffer
	code := Main(context.Background(), Deps{Args: []string{"-version"}, Getenv: envOf(nil), Stdout: &stdout, Stderr: io.Discard})
	if code != ExitOK || !strings.HasPrefix(stdout.String(), "executor ") || strings.TrimSpace(stdout.String()) == "executor" {
		t.Errorf("-version: exit %d, %q; want exit 0 and \"executor <version>\"", code, stdout.String())
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// recordedHold is a Deps.HoldProcessor that records how it was used.
type recordedHold struct {
	started, waited int
	ctx             context.Context
}

func (h *recordedHold) hold(ctx context.Context) interface{ Wait() } {
	h.started++
	h.ctx = ctx
	return h
}

func (h *recordedHold) Wait() { h.waited++ }

// TestMainHoldsAProcessorUnlessTurnedOff: Main starts the hold when
// EXECUTOR_HOLD_PROCESSOR is on (the default), ends its context and waits
// for it before returning, and leaves it alone when the variable is off.
func TestMainHoldsAProcessorUnlessTurnedOff(t *testing.T) {
	for _, setting := range []string{"", "on", "off"} {
		t.Run("EXECUTOR_HOLD_PROCESSOR="+setting, func(t *testing.T) {
			env := map[string]string{
				"EXECUTOR_DATA_DIR": t.TempDir(), "ADMIN_ADDR": "127.0.0.1:0", "SANDBOX_MAX_PARALLEL": "2",
				"LOG_LEVEL": "warn", "EXECUTOR_HOLD_PROCESSOR": setting,
			}
			var h recordedHold
			code := Main(context.Background(), Deps{
				Args: []string{"-demo-only"}, Getenv: envOf(env), Stdout: io.Discard, Stderr: t.Output(),
				HoldProcessor: h.hold,
			})
			if code != ExitOK {
				t.Fatalf("exit code %d, want 0", code)
			}
			want := 1
			if setting == "off" {
				want = 0
			}
			if h.started != want || h.waited != want {
				t.Fatalf("hold started %d and waited for %d times, want %d", h.started, h.waited, want)
			}
			if want == 1 && h.ctx.Err() == nil {
				t.Error("the hold's context had not ended when Main returned")
			}
		})
	}
}

// The embedded broker's folder serves one executor, and an address it
// cannot listen on is named at once (the server logs nothing and would
// only time out).
func TestEmbeddedBrokerRefusesASharedFolderOrABusyAddress(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cfg, err := ConfigFromEnv(envOf(map[string]string{"EXECUTOR_DATA_DIR": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	srv, unlock, err := startEmbedded(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := startEmbedded(cfg, log); err == nil || !strings.Contains(err.Error(), "is in use by another executor") {
		t.Errorf("a second server on the folder: %v, want it refused", err)
	}
	srv.Shutdown()
	srv.WaitForShutdown()
	unlock()
	srv, unlock, err = startEmbedded(cfg, log)
	if err != nil {
		t.Fatalf("the folder once released: %v", err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown(); unlock() }()

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	other := cfg
	other.DataDir, other.EmbeddedNATSAddr = t.TempDir(), busy.Addr().String()
	start := time.Now()
	if _, _, err := startEmbedded(other, log); err == nil || !strings.Contains(err.Error(), "cannot listen on EMBEDDED_NATS_ADDR") || time.Since(start) > 10*time.Second {
		t.Errorf("a busy address: %v after %s, want it named at once", err, time.Since(start))
	}
}

func TestMainHelpAndArguments(t *testing.T) {
	var out testenv.SyncBuffer
	var helpErr testenv.SyncBuffer
	if code := Main(context.Background(), Deps{Args: []string{"-h"}, Getenv: envOf(nil), Stdout: &out, Stderr: &helpErr}); code != ExitOK ||
		!containsAll(out.String(), "Usage: executor", "SANDBOX_TIMEOUT_MS", "MAX_ACK_PENDING", "-demo-only") || helpErr.String() != "" {
		t.Errorf("-h: exit %d, stdout %q, stderr %q (the help goes to standard output)", code, out.String(), helpErr.String())
	}
	var errOut testenv.SyncBuffer
	if code := Main(context.Background(), Deps{Args: []string{"extra"}, Getenv: envOf(nil), Stdout: io.Discard, Stderr: &errOut}); code != ExitUsage ||
		!strings.Contains(errOut.String(), `unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d, %q", code, errOut.String())
	}
	var flagOut, flagErr testenv.SyncBuffer
	if code := Main(context.Background(), Deps{Args: []string{"-demoo"}, Getenv: envOf(nil), Stdout: &flagOut, Stderr: &flagErr}); code != ExitUsage ||
		!containsAll(flagErr.String(), "flag provided but not defined: -demoo", "Usage: executor") || flagOut.String() != "" {
		t.Errorf("an unknown flag: exit %d, stdout %q, stderr %q", code, flagOut.String(), flagErr.String())
	}
}

// The warning that NATS is not reachable yet names the last attempt's
// error: nats.go's LastError stays nil while it retries a broker that
// refuses connections, and the warning said "last_error": "<nil>" (a probe).
func TestUnreachableNATSWarningSaysWhy(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + probe.Addr().String()
	_ = probe.Close()
	var out testenv.SyncBuffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	nc, lastDial, err := connect(Config{NATSURL: url}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	if err := awaitConnection(ctx, nc, lastDial, log); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("awaitConnection: %v, want the context's end", err)
	}
	if text := out.String(); !strings.Contains(text, "NATS is not reachable yet") || !strings.Contains(text, `"last_error":"dial tcp `+probe.Addr().String()) {
		t.Errorf("the warning does not name the last attempt's error:\n%s", text)
	}
}
