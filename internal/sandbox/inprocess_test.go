package sandbox

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestInProcessLimitsParallelism(t *testing.T) {
	p := NewInProcess(Limits{MaxParallel: 2, Timeout: 2 * time.Second})
	block := Request{Source: "const end = Date.now() + 200; while (Date.now() < end) {} return 'done'"}

	var wg sync.WaitGroup
	var busy atomic.Int32
	started := make(chan struct{}, 2)
	for range 2 {
		wg.Go(func() {
			started <- struct{}{}
			if res := p.Run(context.Background(), block); res.Err != nil {
				t.Errorf("blocking script: %v", res.Err)
			}
		})
	}
	<-started
	<-started
	// Both slots are taken (or about to be): TryRun must refuse at once
	// with the seed's message while they run.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		res := p.TryRun(context.Background(), Request{Source: "return 1"})
		if res.Err != nil && res.Err.Code == CodeBusy {
			busy.Add(1)
			if res.Err.Message != BusyMessage(2) {
				t.Errorf("busy message = %q", res.Err.Message)
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	if busy.Load() == 0 {
		t.Fatal("TryRun never reported SANDBOX_BUSY while every slot was taken")
	}
	// Run waits for a slot instead of refusing; a ctx that ends first stops the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if res := p.Run(ctx, Request{Source: "return 1"}); res.Err == nil || res.Err.Code != CodeTimeout {
		t.Errorf("Run with a short ctx while full: want SCRIPT_TIMEOUT, got %+v", res)
	}
	wg.Wait()
	wantOutput(t, p.TryRun(context.Background(), Request{Source: "return 'free'"}), "free")
}

func TestProgramsRunConcurrently(t *testing.T) {
	p := NewInProcess(Limits{MaxParallel: 8})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			res := p.Run(context.Background(), Request{Source: seedNome, Inputs: []Input{in("nome", "ana maria")}})
			if res.Err != nil || res.Output != "Ana Maria" {
				t.Errorf("run %d: %q %v", i, res.Output, res.Err)
			}
		})
	}
	wg.Wait()
}
