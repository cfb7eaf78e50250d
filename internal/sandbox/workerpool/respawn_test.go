package workerpool

import (
	"context"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// TestStopRespawning: once the caller is shutting down, a worker that dies
// (here: killed because its job's caller gave up) is not replaced; a
// running job still gets its answer, and Close still stops the pool.
func TestStopRespawning(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 2, Timeout: 10 * time.Second}})
	p.StopRespawning()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res := p.Run(ctx, sandbox.Request{Source: "while (true) {}"})
	if res.Err == nil || res.Err.Code != sandbox.CodeTimeout {
		t.Fatalf("result %+v, want SCRIPT_TIMEOUT", res)
	}
	time.Sleep(200 * time.Millisecond) // a replacement, if any, would start now
	if n := p.Restarts(); n != 0 {
		t.Errorf("%d workers replaced after StopRespawning, want 0", n)
	}
	if n := len(liveProcs(p)); n != 1 {
		t.Errorf("%d live workers, want the 1 that did not die", n)
	}
	if res := p.Run(context.Background(), sandbox.Request{Source: "return 2"}); res.Err != nil || res.Output != "2" {
		t.Errorf("the remaining worker: %+v", res)
	}
}
