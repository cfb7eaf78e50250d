package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/testenv"
)

// benchJSON runs bench with --json and decodes its summary line.
func benchJSON(t *testing.T, inv invocation) (int, benchSummary, string) {
	t.Helper()
	inv.args = append([]string{"bench", "--json", "--progress=false"}, inv.args...)
	code, stdout, stderr := inv.run(t)
	var s benchSummary
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line (exit %d): %q\nstderr: %s", code, stdout, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stdout is not the summary: %v: %q", err, stdout)
	}
	return code, s, stderr
}

// checkFigures checks a run where every job got a result.
func checkFigures(t *testing.T, s benchSummary, jobs int) {
	t.Helper()
	if s.Jobs != jobs || s.Sent != jobs || s.Results != jobs || s.Succeeded != jobs || s.Failed != 0 || s.NoResult != 0 {
		t.Errorf("counts = %+v, want %d results, all succeeded", s, jobs)
	}
	l := s.LatencyMs
	if !(0 < l.P50 && l.P50 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.Max) || l.Mean <= 0 {
		t.Errorf("latencies = %+v, want 0 < p50 <= p95 <= p99 <= max", l)
	}
	if s.ElapsedSeconds <= 0 || s.JobsPerSecond <= 0 {
		t.Errorf("elapsed %vs, %v jobs/s: want positive figures", s.ElapsedSeconds, s.JobsPerSecond)
	}
}

// TestBenchEmbedded runs the embedded broker and executor, with the
// sandbox worker pool (this test binary re-executed as workers).
func TestBenchEmbedded(t *testing.T) {
	env := map[string]string{"SANDBOX_MAX_PARALLEL": "2"}
	t.Run("as fast as possible", func(t *testing.T) {
		code, s, stderr := benchJSON(t, invocation{args: []string{"--embedded", "--jobs", "60", "--concurrency", "8"}, env: env})
		if code != ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		checkFigures(t, s, 60)
		if s.Broker != "embedded" || s.Workers != 2 || s.Script != "example cpf" || s.Concurrency != 8 {
			t.Errorf("setup = %+v", s)
		}
		for _, want := range []string{"results      60 (60 succeeded, 0 failed)", "throughput", "latency p50", "latency p95", "latency p99",
			"embedded (executor in process, 2 sandbox workers)"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("the table (on stderr with --json) lacks %q:\n%s", want, stderr)
			}
		}
	})
	t.Run("at a rate", func(t *testing.T) {
		start := time.Now()
		code, s, stderr := benchJSON(t, invocation{args: []string{"--embedded", "--jobs", "20", "--rate", "50/s", "--example", "nome",
			"--input", "nome=ana maria"}, env: env})
		if code != ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		checkFigures(t, s, 20)
		// 20 jobs at 50/s: the last is published 380ms after the first.
		if s.ElapsedSeconds < 0.38 || time.Since(start) < 380*time.Millisecond {
			t.Errorf("elapsed %vs: faster than the target rate allows", s.ElapsedSeconds)
		}
		if s.TargetRate != 50 || s.Script != "example nome" {
			t.Errorf("setup = %+v", s)
		}
	})
	t.Run("table without --json", func(t *testing.T) {
		code, stdout, stderr := invocation{args: []string{"bench", "--embedded", "--jobs", "5", "--progress=false",
			"--script", writeScript(t, "function execute(a, b) { return a + b }"), "--input", "a=1", "--input", "b=2"}, env: env}.run(t)
		if code != ExitOK || stderr != "" {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		if !strings.HasPrefix(stdout, "flowscript bench\n") || !strings.Contains(stdout, "results      5 (5 succeeded, 0 failed)") ||
			!strings.Contains(stdout, "latency p99") {
			t.Errorf("stdout:\n%s", stdout)
		}
	})
	t.Run("progress line", func(t *testing.T) {
		// 8 jobs at 16/s last about 440ms: the bar is drawn at least once.
		code, _, stderr := invocation{args: []string{"bench", "--embedded", "--jobs", "8", "--rate", "16", "--progress"}, env: env}.run(t)
		if code != ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		if !strings.Contains(stderr, "\r[") || !strings.Contains(stderr, "/8 ") || strings.Contains(stderr, "\n") {
			t.Errorf("stderr = %q, want \\r-drawn progress lines and no newline", stderr)
		}
	})
}

// TestBenchAgainstABroker publishes to an executor running elsewhere.
func TestBenchAgainstABroker(t *testing.T) {
	eachBroker(t, func(t *testing.T, b broker) {
		startExecutor(t, b)
		code, s, stderr := benchJSON(t, invocation{args: append(b.flags(), "--jobs", "40", "--concurrency", "4")})
		if code != ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		checkFigures(t, s, 40)
		if s.Workers != 0 || s.Broker != b.url {
			t.Errorf("setup = %+v", s)
		}
	})
}

func TestBenchWithoutExecutor(t *testing.T) {
	t.Run("no streams", func(t *testing.T) {
		b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
		code, stdout, stderr := invocation{args: append([]string{"bench"}, b.flags()...)}.run(t)
		if code != ExitFailed || stdout != "" || !strings.Contains(stderr, "no stream stores jobs") || !strings.Contains(stderr, "--embedded") {
			t.Errorf("exit %d, stdout %q; stderr: %s", code, stdout, stderr)
		}
	})
	t.Run("stops after --max-errors", func(t *testing.T) {
		b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
		provision(t, b)
		code, s, stderr := benchJSON(t, invocation{args: append(b.flags(),
			"--jobs", "100", "--concurrency", "2", "--timeout", "300ms", "--max-errors", "2")})
		if code != ExitFailed {
			t.Fatalf("exit %d, want 1; stderr: %s", code, stderr)
		}
		if s.NoResult < 2 || s.Results != 0 || s.Sent >= 100 {
			t.Errorf("summary = %+v, want >= 2 without result and an early stop", s)
		}
		if !strings.Contains(stderr, "jobs got no result") || !strings.Contains(stderr, "deadline exceeded") {
			t.Errorf("stderr: %s", stderr)
		}
	})
}

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"embedded and nats", []string{"--embedded", "--nats", "nats://x:4222"}, "--embedded runs its own broker"},
		{"no jobs", []string{"--jobs", "0"}, "--jobs must be at least 1"},
		{"no concurrency", []string{"--concurrency", "0"}, "--concurrency must be at least 1"},
		{"bad rate", []string{"--rate", "fast"}, `want jobs per second such as 200 or 200/s`},
		{"negative rate", []string{"--rate", "-1"}, `want jobs per second`},
		{"unknown example", []string{"--example", "rg"}, `--example must be cpf or nome, got "rg"`},
		{"script and example", []string{"--script", "x.js", "--example", "cpf"}, "--script and --example both name the script"},
		{"input the example lacks", []string{"--embedded", "--input", "rg=1"}, "--input rg: the cpf example takes cpf"},
		{"missing script", []string{"--embedded", "--script", "/nonexistent/x.js"}, "opening the script"},
		{"stray argument", []string{"5000"}, `unexpected argument "5000"`},
		{"bad max errors", []string{"--max-errors", "0"}, "--max-errors must be at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invocation{args: append([]string{"bench"}, tc.args...)}.run(t)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "flowscript help bench") {
				t.Errorf("exit %d, stdout %q; stderr: %s", code, stdout, stderr)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{ms(7), 50, 7 * time.Millisecond},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2), 50, 1 * time.Millisecond},
		{ms(1, 2), 51, 2 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 95, 95 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("p%v of %d values = %s, want %s", tc.p, len(tc.sorted), got, tc.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 100, 0, "[..............................] 0/100   0%  0 jobs/s  eta ?"},
		{50, 100, time.Second, "[###############...............] 50/100  50%  50 jobs/s  eta 1s"},
		{100, 100, 4 * time.Second, "[##############################] 100/100 100%  25 jobs/s  eta 0s"},
	} {
		if got := progressLine(tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("progressLine(%d, %d, %s)\n got %q\nwant %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}
