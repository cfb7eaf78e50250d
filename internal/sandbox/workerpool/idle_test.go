package workerpool

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestIdleSetIsMostRecentFirst(t *testing.T) {
	s := newIdleSet(3)
	a, b, c, d := &process{pid: 1}, &process{pid: 2}, &process{pid: 3}, &process{pid: 4}
	var got []int
	take := func() {
		<-s.tokens
		got = append(got, s.pop().pid)
	}
	s.put(a)
	s.put(b)
	s.put(c)
	take()
	take()
	s.put(d)
	take()
	take()
	if want := []int{3, 2, 4, 1}; !slices.Equal(got, want) {
		t.Errorf("popped %v; want %v", got, want)
	}
	if n := s.len(); n != 0 {
		t.Errorf("%d left; want 0", n)
	}
}

// TestSequentialJobsReuseOneWorker: jobs that come one at a time all go
// to the worker that finished last; the others stay asleep.
func TestSequentialJobsReuseOneWorker(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 3, Timeout: 5 * time.Second}})
	sent := func() map[int]uint64 {
		p.mu.Lock()
		defer p.mu.Unlock()
		m := map[int]uint64{}
		for proc := range p.live {
			m[proc.pid] = proc.nextID
		}
		return m
	}
	before := sent()
	for range 6 {
		if res := p.Run(context.Background(), sandbox.Request{Source: "return 1"}); !res.OK() {
			t.Fatalf("run: %v", res.Err)
		}
	}
	var used []uint64
	for pid, n := range sent() {
		if d := n - before[pid]; d > 0 {
			used = append(used, d)
		}
	}
	if !slices.Equal(used, []uint64{6}) {
		t.Errorf("jobs per worker used: %v; want all 6 on one worker", used)
	}
}

func TestIdleSetPutUnderGoesLast(t *testing.T) {
	s := newIdleSet(3)
	a, b, c := &process{pid: 1}, &process{pid: 2}, &process{pid: 3}
	s.put(a)
	s.putUnder(b)
	s.put(c)
	var got []int
	for range 3 {
		<-s.tokens
		got = append(got, s.pop().pid)
	}
	if want := []int{3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("popped %v; want %v", got, want)
	}
}

// TestCollectingWorkerGetsTheNextJobLast: jobs that come one at a time stay
// on one worker until its baseline measure falls due (remeasureEvery
// jobs); it then answers that it is collecting, and the next jobs go to
// another worker while it runs that GC.
func TestCollectingWorkerGetsTheNextJobLast(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 2, Timeout: 5 * time.Second}})
	sent := func() []uint64 {
		p.mu.Lock()
		defer p.mu.Unlock()
		var n []uint64
		for proc := range p.live {
			n = append(n, proc.nextID)
		}
		slices.Sort(n)
		return n
	}
	if before := sent(); !slices.Equal(before, []uint64{0, 0}) {
		t.Fatalf("requests sent before the test: %v", before)
	}
	const extra = 5
	for range remeasureEvery + extra {
		if res := p.Run(context.Background(), sandbox.Request{Source: "return 1"}); !res.OK() {
			t.Fatalf("run: %v", res.Err)
		}
	}
	got := sent()
	if got[0] == 0 || got[0]+got[1] != remeasureEvery+extra {
		t.Errorf("jobs per worker: %v; want both workers used, the second once the first was due to measure", got)
	}
}
