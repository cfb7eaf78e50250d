package workerpool

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// TestRetirementLeavesTheNextJobItsShare: a worker stays after a job only
// when the heap's address space is at least S/4 below the line a job is
// failed at, so the next job fails for its own growth and never for what an
// earlier one left. Before, a memory bomb tripped on its live heap could
// leave the address space 10 KB short of the line, its worker stayed, and
// the next ordinary job (400 µs, 400 KB of heap) grew it by a page and got
// SCRIPT_MEMORY_LIMIT: 1 job in 4,000 beside two callers running bombs.
func TestRetirementLeavesTheNextJobItsShare(t *testing.T) {
	const mb = 1 << 20
	w := &worker{script: 32 * mb}
	lim := budget{space: 60 * mb, spaceLine: 60 * mb}
	for _, c := range []struct {
		name     string
		space    uint64
		panicked bool
		retire   bool
		want     retireReason
	}{
		{"far below the line", 30 * mb, false, false, retireNone},
		{"as an ordinary heavy job leaves it", 44 * mb, false, false, retireNone},
		{"just outside the margin", 52 * mb, false, false, retireNone},
		{"inside the margin", 52*mb + 1, false, false, retireSpent},
		{"10 KB short of the line", 60*mb - 10<<10, false, false, retireSpent},
		{"past the line", 64 * mb, false, false, retireSpent},
		{"a grown baseline", 30 * mb, false, true, retireBaseline},
		{"a panic first", 64 * mb, true, true, retirePanic},
	} {
		lim.retire = c.retire
		if got := w.retirement(memory{heapSpace: c.space}, lim, c.panicked); got != c.want {
			t.Errorf("%s (%d MB of %d): retirement %v; want %v", c.name, c.space/mb, lim.spaceLine/mb, got, c.want)
		}
	}
}

// TestMemoryBombsLeaveTheirNeighboursAlone: two callers run scripts that
// grow past the memory limit, each in its own way, while two others run an
// ordinary script every 2 ms on the same pool, so that workers a bomb left
// behind are idle and take ordinary jobs. Every ordinary run succeeds: a
// bomb is failed alone, and the worker it leaves behind (or its
// replacement) runs the next job clean. Without the margin of
// TestRetirementLeavesTheNextJobItsShare, 1 to 3 ordinary jobs failed per
// run.
func TestMemoryBombsLeaveTheirNeighboursAlone(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{Timeout: testTimeout, MaxParallel: 8}})
	bombs := []string{
		"const a = []; for (;;) a.push(new ArrayBuffer(1e6))",
		"const a = []; for (let i = 0; ; i++) a.push({i, s: 'item ' + i})",
		"let b = new Uint8Array(8e7); b = null; return 1",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			for j := 0; ctx.Err() == nil; j++ {
				// The first caller runs the first bomb only: tripped on its
				// live heap, it is the one that left a worker crowded.
				bomb := bombs[i*j%len(bombs)]
				if res := p.Run(ctx, sandbox.Request{Source: bomb}); res.OK() {
					t.Errorf("a bomb succeeded: %q", bomb)
				}
			}
		})
	}
	var mu sync.Mutex
	ran := 0
	for range 2 {
		wg.Go(func() {
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for ctx.Err() == nil {
				<-tick.C
				res := p.Run(context.Background(), seedJobs[0].req)
				if res.Output != seedJobs[0].want {
					t.Errorf("an ordinary job beside the bombs: %q, %v", res.Output, res.Err)
				}
				mu.Lock()
				ran++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ran == 0 {
		t.Fatal("no ordinary job ran")
	}
	t.Logf("%d ordinary jobs beside the bombs", ran)
}

// TestOversizedValuesKeepTheirWorker: a string or buffer over the script's
// whole memory share, its size known before it is made, fails its job with
// SCRIPT_MEMORY_LIMIT at its line, and its worker stays: nothing was
// allocated, so no page is faulted in and no replacement started (goja
// patch 93). Before, the OS limit ended the worker of each, and on this
// machine a bomb and its replacement cost some 35 ms of CPU, which ordinary
// jobs beside two callers of 'x'.repeat(4e8) paid for: p99 60 ms, not 1.
func TestOversizedValuesKeepTheirWorker(t *testing.T) {
	var restarts atomic.Int64
	p := newTestPool(t, Config{
		Limits:          sandbox.Limits{Timeout: testTimeout, MaxParallel: 1},
		OnWorkerRestart: func(string) { restarts.Add(1) },
	})
	for _, c := range []struct {
		script string
		line   int
	}{
		{"return 'x'.repeat(4e8).length", 1},
		{"const s = 'ab'.repeat(1e7);\nreturn (s + s).length", 2},
		{"return 'x'.padEnd(1e8).length", 1},
		{"const a = 1;\n\nreturn new Uint8Array(1e8).length", 3},
		{"try { return new Float64Array(1e7).length } catch (e) { return 'caught' }", 1},
	} {
		res := p.Run(context.Background(), sandbox.Request{Source: c.script})
		if res.Err == nil || res.Err.Code != sandbox.CodeMemoryLimit || res.Err.Line != c.line || !strings.Contains(res.Err.Message, "32 MB") {
			t.Errorf("%q: %q, %+v; want SCRIPT_MEMORY_LIMIT naming 32 MB at line %d", c.script, res.Output, res.Err, c.line)
		}
	}
	if res := p.Run(context.Background(), seedJobs[0].req); res.Output != seedJobs[0].want {
		t.Errorf("an ordinary job after them: %q, %v", res.Output, res.Err)
	}
	if n := restarts.Load(); n != 0 {
		t.Errorf("%d workers replaced; want 0", n)
	}
}
