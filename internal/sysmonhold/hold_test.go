//go:build linux

package sysmonhold

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// testHolder is a Holder that checks every 50 ms (20 ms when idle),
// started as hold says; change, when set, changes it before it starts.
func testHolder(t *testing.T, hold bool, change func(*Holder)) *Holder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := newHolder()
	h.checkEvery, h.checkIdleEvery = 50*time.Millisecond, 20*time.Millisecond
	if change != nil {
		change(h)
	}
	h.set(hold)
	go h.run(ctx)
	t.Cleanup(func() {
		cancel()
		h.Wait()
		if h.Holding() || runtime.GOMAXPROCS(0) != h.base {
			t.Errorf("after the context ended: holding %v, GOMAXPROCS %d; want false, %d", h.Holding(), runtime.GOMAXPROCS(0), h.base)
		}
	})
	return h
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, still not %s (GOMAXPROCS %d)", what, runtime.GOMAXPROCS(0))
		}
	}
}

// spin keeps a core busy until the returned stop is called.
func spin() (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				for i := range 10_000 {
					_ = strconv.Itoa(i)
				}
			}
		}
	}()
	return func() { close(done) }
}

func TestHoldsWhileBusyAndLetsGoWhenIdle(t *testing.T) {
	h := testHolder(t, false, nil)
	holding := func(want bool) func() bool {
		return func() bool {
			procs := h.base
			if want {
				procs++
			}
			return h.Holding() == want && runtime.GOMAXPROCS(0) == procs
		}
	}
	for round := range 2 {
		stop := spin()
		eventually(t, "holding while busy, round "+strconv.Itoa(round), holding(true))
		stop()
		eventually(t, "let go once idle, round "+strconv.Itoa(round), holding(false))
	}
}

// TestHoldAloneLetsGo: the hold's own wake-ups cost less than letGoShare,
// so a process that holds and has nothing else to do lets go.
func TestHoldAloneLetsGo(t *testing.T) {
	h := testHolder(t, true, nil)
	eventually(t, "let go", func() bool { return !h.Holding() })
}

// TestHoldingLetsTheRuntimeWork: while a processor is held, timers fire and
// the garbage collector runs as they would without the hold. The slices
// are long, so that waiting for one to end would show.
func TestHoldingLetsTheRuntimeWork(t *testing.T) {
	h := testHolder(t, true, func(h *Holder) {
		h.slice = time.Second
		h.letGoShare = 0 // hold for the whole test
	})
	var gcWorst time.Duration
	for range 10 {
		start := time.Now()
		runtime.GC()
		gcWorst = max(gcWorst, time.Since(start))
	}

	// Every processor but the held one is kept busy, so a timer left on
	// the held one waits for the monitor to preempt the holding goroutine.
	stops := make([]func(), h.base)
	for i := range stops {
		stops[i] = spin()
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	var timerWorst time.Duration
	for range 50 {
		start := time.Now()
		fired := make(chan time.Duration, 1)
		time.AfterFunc(time.Millisecond, func() { fired <- time.Since(start) })
		timerWorst = max(timerWorst, <-fired-time.Millisecond)
	}
	if !h.Holding() {
		t.Fatal("the hold let go while the process was busy")
	}
	t.Logf("runtime.GC took %v at worst; timers fired %v late at worst", gcWorst, timerWorst)
	// Bounds far below the slice, with slack for a loaded machine: without
	// a hold, runtime.GC takes 1–6 ms here at worst, and with every
	// processor busy timers fire up to 20–30 ms late.
	if gcWorst > 300*time.Millisecond {
		t.Errorf("runtime.GC took %v: the collector waited for the holding goroutine", gcWorst)
	}
	if timerWorst > 300*time.Millisecond {
		t.Errorf("a timer fired %v late: it waited for the holding goroutine", timerWorst)
	}
}
