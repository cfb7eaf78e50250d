package workerpool

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestRunSeedScripts(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 2}})
	for _, o := range ordinaries {
		res := p.Run(context.Background(), o.req)
		if !res.OK() || res.Output != o.want {
			t.Errorf("%.40q: got output %q, error %v; want %q", o.req.Source, res.Output, res.Err, o.want)
		}
	}
	// Errors keep the author's line and column through the pipe.
	res := p.Run(context.Background(), sandbox.Request{Source: "const a = 1\nnull.x"})
	if res.Err == nil || res.Err.Code != sandbox.CodeScriptError || res.Err.Line != 2 {
		t.Errorf("got %v; want SCRIPT_ERROR on line 2", res.Err)
	}
	if p.Restarts() != 0 {
		t.Errorf("ordinary scripts restarted %d workers", p.Restarts())
	}
}

// TestNoStateSurvivesAJob: one worker runs both jobs; what the first
// changes is gone in the second (a fresh runtime per job).
func TestNoStateSurvivesAJob(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1}})
	pid := onlyPID(t, p)
	pollute := `
const tries = [
  () => { Object.prototype.x = 'polluted' },
  () => { Object.defineProperty(Object.prototype, 'y', {value: 'polluted'}) },
  () => { Array.prototype.push = function () { return 'polluted' } },
  () => { JSON.stringify = () => 'polluted' },
  () => { globalThis.leak = 'polluted' },
  () => { Math.random = () => 4 },
  () => { String.prototype.trim = () => 'polluted' },
]
for (const f of tries) { try { f() } catch (e) {} }
var declared = 'polluted'
return 'done'`
	if res := p.Run(context.Background(), sandbox.Request{Source: pollute}); !res.OK() {
		t.Fatalf("polluting job: %v", res.Err)
	}
	check := `return JSON.stringify([({}).x, ({}).y, [].push(1), JSON.stringify({a: 1}),
  typeof leak, typeof declared, Math.random() < 1, ' a '.trim()])`
	res := p.Run(context.Background(), sandbox.Request{Source: check})
	want := `[null,null,1,"{\"a\":1}","undefined","undefined",true,"a"]`
	if !res.OK() || res.Output != want {
		t.Errorf("the next job saw %q (error %v); want %q", res.Output, res.Err, want)
	}
	if got := onlyPID(t, p); got != pid || p.Restarts() != 0 {
		t.Fatalf("the jobs ran on workers %d and %d (%d restarts); the test needs one worker", pid, got, p.Restarts())
	}
}

// TestWorkerHasNoEnvironment plants secrets in the parent's environment and
// checks the workers got none of it: neither in what the kernel holds for
// them (/proc/<pid>/environ, read by the parent and by the worker itself)
// nor in os.Environ.
func TestWorkerHasNoEnvironment(t *testing.T) {
	t.Setenv("FLOWSCRIPT_PLANTED_SECRET", "s3cr3t-planted")
	t.Setenv("DATABASE_URL", "postgres://user:s3cr3t-planted@db/flows")
	t.Setenv("NATS_CREDS", "s3cr3t-planted")
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 2}})
	procs := liveProcs(p)
	if len(procs) != 2 {
		t.Fatalf("%d live workers; want 2", len(procs))
	}
	for _, proc := range procs {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", proc.pid))
		if err != nil {
			t.Fatalf("reading the worker's environment: %v", err)
		}
		if len(environ) != 0 || proc.info.EnvVars != 0 || proc.info.EnvironBytes != 0 {
			t.Errorf("worker %d has an environment: /proc/pid/environ %q; it saw %d variables and %d bytes of /proc/self/environ",
				proc.pid, environ, proc.info.EnvVars, proc.info.EnvironBytes)
		}
	}
	res := p.Run(context.Background(), sandbox.Request{Source: `return [typeof process, typeof require, typeof DATABASE_URL,
  typeof globalThis.FLOWSCRIPT_PLANTED_SECRET].join()`})
	if !res.OK() || strings.Contains(res.Output, "s3cr3t") || res.Output != "undefined,undefined,undefined,undefined" {
		t.Errorf("a script saw %q (error %v)", res.Output, res.Err)
	}
}

func TestMalformedWorkerReplies(t *testing.T) {
	for _, tc := range []struct {
		source string
		reason string
	}{
		{"garbage", "protocol"},
		{"exit", "crash"},
		{"wrong-id", "protocol"},
		{"huge-frame", "protocol"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			var reasons []string
			var mu sync.Mutex
			p := newTestPool(t, Config{
				Limits:          sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second},
				workerArgs:      []string{fakeWorkerArg, "normal"},
				OnWorkerRestart: func(r string) { mu.Lock(); reasons = append(reasons, r); mu.Unlock() },
			})
			start := time.Now()
			res := p.Run(context.Background(), sandbox.Request{Source: tc.source})
			if res.Err == nil || res.Err.Code != sandbox.CodeCrash || !res.Err.Retryable() {
				t.Fatalf("got %q, %v; want a retryable SANDBOX_CRASH", res.Output, res.Err)
			}
			if time.Since(start) > time.Second {
				t.Errorf("the job took %v to fail; a broken worker must not hold it to its deadline", time.Since(start))
			}
			// The replacement serves the next job.
			res = p.Run(context.Background(), sandbox.Request{Source: "hello"})
			if res.Output != "ok:hello" {
				t.Fatalf("after the crash: got %q, %v; want ok:hello from a new worker", res.Output, res.Err)
			}
			mu.Lock()
			defer mu.Unlock()
			if p.Restarts() != 1 || len(reasons) != 1 || reasons[0] != tc.reason {
				t.Errorf("restarts %d, reasons %v; want 1 restart for %q", p.Restarts(), reasons, tc.reason)
			}
		})
	}
}

func TestNewFailsWhenWorkersCannotStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"missing executable", Config{Executable: "/nonexistent/flowscript"}, "/nonexistent/flowscript"},
		{"never ready", Config{workerArgs: []string{fakeWorkerArg, "never-ready"}, StartTimeout: 300 * time.Millisecond},
			"not ready within 300ms"},
		{"setup error", Config{workerArgs: []string{fakeWorkerArg, "setup-error"}}, "Mars/Olympus"},
		{"binary without MaybeRunWorker", Config{workerArgs: []string{"-test.run=^$"}, StartTimeout: 2 * time.Second},
			"sandbox worker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Limits.MaxParallel = 2
			p, err := New(context.Background(), tc.cfg)
			if err == nil {
				_ = p.Close()
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestCrashLoopBacksOff: workers that die as soon as they are ready are
// restarted with a growing delay, not in a tight loop, and a caller still
// gets its answer when its context ends.
func TestCrashLoopBacksOff(t *testing.T) {
	p := newTestPool(t, Config{
		Limits:            sandbox.Limits{MaxParallel: 1},
		workerArgs:        []string{fakeWorkerArg, "die-when-idle"},
		RestartBackoffMin: 20 * time.Millisecond,
		RestartBackoffMax: 200 * time.Millisecond,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for ctx.Err() == nil {
		// A job handed to a worker that is dying is a retryable crash; one
		// that waits for a worker while the context ends is a timeout.
		res := p.Run(ctx, sandbox.Request{Source: "hello"})
		if res.Err == nil || (res.Err.Code != sandbox.CodeTimeout && res.Err.Code != sandbox.CodeCrash) {
			t.Fatalf("got %q, %v; want SCRIPT_TIMEOUT or SANDBOX_CRASH", res.Output, res.Err)
		}
	}
	// Delays 20, 40, 80, 160, 200, 200… ms: about 8 restarts fit in a
	// second; a tight loop would make hundreds.
	if n := p.Restarts(); n < 2 || n > 12 {
		t.Errorf("%d restarts in a second; want a handful", n)
	}
}

func TestTryRunBusy(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan sandbox.Result)
	go func() { done <- p.Run(ctx, sandbox.Request{Source: "for (;;) {}"}) }()
	waitFor(t, 5*time.Second, "the worker to be busy", func() bool { return p.idle.len() == 0 && busyCount(p) == 1 })

	res := p.TryRun(context.Background(), sandbox.Request{Source: "return 1"})
	if res.Err == nil || res.Err.Code != sandbox.CodeBusy || res.Err.Message != sandbox.BusyMessage(1) {
		t.Errorf("TryRun while busy: got %v; want SANDBOX_BUSY with %q", res.Err, sandbox.BusyMessage(1))
	}
	cancel()
	if res := <-done; res.Err == nil || res.Err.Code != sandbox.CodeTimeout {
		t.Errorf("cancelled run: got %v; want SCRIPT_TIMEOUT", res.Err)
	}
	res = p.TryRun(context.Background(), sandbox.Request{Source: "return 1"})
	for res.Err != nil && res.Err.Code == sandbox.CodeBusy {
		time.Sleep(5 * time.Millisecond) // the cancelled job's worker is being replaced
		res = p.TryRun(context.Background(), sandbox.Request{Source: "return 1"})
	}
	if res.Output != "1" {
		t.Errorf("TryRun when free: got %q, %v", res.Output, res.Err)
	}
}

// TestContextDeadlineShortensTheTimeout: a caller's deadline below the
// pool's timeout ends the script at the deadline, through the worker's own
// interrupt (no kill) for an ordinary loop.
func TestContextDeadlineShortensTheTimeout(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 10 * time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := p.Run(ctx, sandbox.Request{Source: "for (;;) {}"})
	if res.Err == nil || res.Err.Code != sandbox.CodeTimeout {
		t.Fatalf("got %v; want SCRIPT_TIMEOUT", res.Err)
	}
	if d := time.Since(start); d > 200*time.Millisecond+p.cfg.KillMargin {
		t.Errorf("ended after %v", d)
	}
	if p.Restarts() != 0 {
		t.Errorf("the worker was killed (%d restarts); its own interrupt should have ended the loop", p.Restarts())
	}
	// Request.Timeout shortens it too.
	res = p.Run(context.Background(), sandbox.Request{Source: "for (;;) {}", Timeout: 50 * time.Millisecond})
	if res.Err == nil || res.Err.Code != sandbox.CodeTimeout || res.Duration > time.Second {
		t.Errorf("Request.Timeout 50ms: got %v after %v", res.Err, res.Duration)
	}
}

func TestOversizedRequests(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, MaxSourceBytes: 1000}})
	for _, tc := range []struct {
		name, source, want string
	}{
		{"just over the cap, reported by the worker", "return 1;" + strings.Repeat(" ", 1000), "SANDBOX_MAX_SOURCE_BYTES"},
		{"far over the cap, refused before sending", strings.Repeat("\x01", 10<<20), "SANDBOX_MAX_SOURCE_BYTES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Run(context.Background(), sandbox.Request{Source: tc.source})
			if res.Err == nil || res.Err.Code != sandbox.CodeInvalidInput || !strings.Contains(res.Err.Message, tc.want) {
				t.Errorf("got %v; want INVALID_SCRIPT_INPUT naming %s", res.Err, tc.want)
			}
		})
	}
	if p.Restarts() != 0 {
		t.Errorf("%d restarts; an oversized request must not cost a worker", p.Restarts())
	}
}

// TestRequestsAtTheCapsFit: a request within every cap reaches the worker
// and runs, however its bytes are spread: a source at its cap, and the
// input budget spent on many tiny inputs (the frame's worst case: a length
// prefix per string) or on one value of multi-byte characters.
func TestRequestsAtTheCapsFit(t *testing.T) {
	limits := sandbox.Limits{MaxParallel: 1, MaxSourceBytes: 2000, MaxInputBytes: 1000}
	p := newTestPool(t, Config{Limits: limits})
	var many []sandbox.Input
	used := 0
	for i := 0; used+len(fmt.Sprintf("a%d", i)) <= limits.MaxInputBytes; i++ {
		name := fmt.Sprintf("a%d", i)
		many = append(many, sandbox.Input{Name: name})
		used += len(name)
	}
	body := "return arguments.length"
	for _, tc := range []struct {
		name   string
		source string
		inputs []sandbox.Input
		want   string
	}{
		{"source at its cap", body + ";" + strings.Repeat(" ", limits.MaxSourceBytes-len(body)-1), nil, "0"},
		{fmt.Sprintf("%d tiny inputs", len(many)), body, many, fmt.Sprint(len(many))},
		{"one value of multi-byte characters", "return s.length", []sandbox.Input{{Name: "s", Value: strings.Repeat("é", (limits.MaxInputBytes-1)/2)}}, "499"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Run(context.Background(), sandbox.Request{Source: tc.source, Inputs: tc.inputs})
			if res.Err != nil || res.Output != tc.want {
				t.Errorf("got %q, %v; want %q", res.Output, res.Err, tc.want)
			}
		})
	}
	if p.Restarts() != 0 {
		t.Errorf("%d restarts; requests within the caps must not cost a worker", p.Restarts())
	}
}

func TestClose(t *testing.T) {
	p, err := New(context.Background(), Config{Limits: sandbox.Limits{MaxParallel: 2, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	running := make(chan sandbox.Result)
	go func() { running <- p.Run(context.Background(), sandbox.Request{Source: "for (;;) {}"}) }()
	waitFor(t, 5*time.Second, "a job to start", func() bool { return busyCount(p) == 1 })
	pids := []int{}
	for _, proc := range liveProcs(p) {
		pids = append(pids, proc.pid)
	}

	start := time.Now()
	_ = p.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	if res := <-running; res.Err == nil || res.Err.Code != sandbox.CodeCrash || !res.Err.Retryable() {
		t.Errorf("the job running at Close: got %v; want a retryable SANDBOX_CRASH", res.Err)
	}
	if res := p.Run(context.Background(), sandbox.Request{Source: "return 1"}); res.Err == nil || res.Err.Code != sandbox.CodeCrash {
		t.Errorf("Run after Close: got %v; want SANDBOX_CRASH", res.Err)
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("worker %d still exists after Close", pid)
		}
	}
	_ = p.Close() // idempotent
}

// TestParentMemoryStaysFlat runs 1,000 hostile jobs (most of them kill or
// fail their worker) and checks that the parent's resident memory does not
// grow with them.
func TestParentMemoryStaysFlat(t *testing.T) {
	p := newTestPool(t, Config{
		Limits:     sandbox.Limits{MaxParallel: 8, Timeout: 2 * time.Second},
		KillMargin: 50 * time.Millisecond,
	})
	// Most fail cleanly inside their worker; one in ten kills it (a regex
	// past the deadline).
	jobs := []sandbox.Request{
		{Source: "for (;;) {}", Timeout: 20 * time.Millisecond},
		{Source: "return new ArrayBuffer(6e7).byteLength"},
		{Source: "function f() { return f() } return f()"},
		{Source: "const a = {}; a.a = a; return a"},
		{Source: "throw 'x'.repeat(1e6)"},
		{Source: "return /(a+)+\\1c/.test('a'.repeat(34))", Timeout: 20 * time.Millisecond},
		{Source: "return 'x'.repeat(2e6)"},
		{Source: "return ("},
		{Source: "return new Uint8Array(1e8).length"},
		{Source: "const a = []; for (;;) a.push(new ArrayBuffer(1e6))"},
	}
	run := func(n int) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range n {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if res := p.Run(context.Background(), jobs[i%len(jobs)]); res.OK() {
					t.Errorf("hostile job %d succeeded", i%len(jobs))
				}
			})
		}
		wg.Wait()
	}
	run(100) // warm up: buffers, goroutine stacks, the first restarts
	before := parentRSS(t)
	run(1000)
	after := parentRSS(t)
	t.Logf("parent RSS %d MB before, %d MB after 1,000 hostile jobs; %d worker restarts",
		before>>20, after>>20, p.Restarts())
	if after > before+32<<20 {
		t.Errorf("parent RSS grew from %d MB to %d MB", before>>20, after>>20)
	}
}

func parentRSS(t *testing.T) uint64 {
	t.Helper()
	debug.FreeOSMemory()
	rss, err := residentBytes()
	if err != nil {
		t.Fatal(err)
	}
	return rss
}

// TestIdleWorkersMemory: an idle pool of 8 workers stays within 120 MB of
// resident memory in total (the target). Race builds carry the
// race runtime in every worker and get a larger bound.
func TestIdleWorkersMemory(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 8}})
	total := idleRSS(t, p)
	limit := uint64(120 << 20)
	if raceEnabled {
		limit = 8 * 80 << 20
	}
	t.Logf("8 idle workers: %.1f MB resident in total", float64(total)/(1<<20))
	if total > limit {
		t.Errorf("8 idle workers use %d MB; want at most %d MB", total>>20, limit>>20)
	}
}

// idleRSS sums the resident memory of the pool's workers.
func idleRSS(t testing.TB, p *Pool) uint64 {
	t.Helper()
	var total uint64
	for _, proc := range liveProcs(p) {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", proc.pid))
		if err != nil {
			t.Fatal(err)
		}
		var kb uint64
		for line := range strings.Lines(string(status)) {
			if strings.HasPrefix(line, "VmRSS:") {
				_, _ = fmt.Sscanf(line, "VmRSS: %d kB", &kb)
			}
		}
		if kb == 0 {
			t.Fatalf("no VmRSS for worker %d", proc.pid)
		}
		total += kb << 10
	}
	return total
}

func liveProcs(p *Pool) []*process {
	p.mu.Lock()
	defer p.mu.Unlock()
	var procs []*process
	for proc := range p.live {
		procs = append(procs, proc)
	}
	return procs
}

func busyCount(p *Pool) int {
	n := 0
	for _, proc := range liveProcs(p) {
		if proc.busy.Load() {
			n++
		}
	}
	return n
}

func onlyPID(t *testing.T, p *Pool) int {
	t.Helper()
	procs := liveProcs(p)
	if len(procs) != 1 {
		t.Fatalf("%d live workers; want 1", len(procs))
	}
	return procs[0].pid
}
