package sysmonhold

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// Defaults of a Holder.
const (
	// slice is one raw sleep of the holding goroutine, and so how long
	// Wait may wait. The goroutine never yields: to the scheduler it is a
	// goroutine that computes, which the monitor preempts every 10–20 ms
	// (a signal ends the sleep), and that is when its processor's timers
	// and queued goroutines run, as behind any goroutine that computes. A
	// yield of its own after each slice (runtime.Gosched) moved it from
	// thread to thread, and the garbage collector, waiting to scan its
	// stack, then waited for whole slices (runtime.GC at worst 11–40 ms,
	// against 1–6 ms without a hold or without the yield).
	slice = 20 * time.Millisecond
	// checkEvery is how often the process's CPU time decides whether to
	// keep holding, and checkIdleEvery whether to start: a burst after an
	// idle spell is held within 50 ms.
	checkEvery     = 250 * time.Millisecond
	checkIdleEvery = 50 * time.Millisecond
	// holdShare and letGoShare are the shares of a core above which the
	// process holds a processor and below which it lets go. A calm monitor
	// saved 40–100 µs of the executor's CPU per job on such a guest and the
	// hold costs 10–20 ms a second, so it pays from about 200 jobs a
	// second, where an executor uses about a tenth of a core. The gap
	// between the two keeps a process near the line from changing
	// GOMAXPROCS (which stops the world) at every check, and letGoShare is
	// above the hold's own cost.
	holdShare  = 0.10
	letGoShare = 0.05
)

// A Holder holds a processor while its process is busy (see the package
// doc).
type Holder struct {
	base    int // GOMAXPROCS when not holding
	holding atomic.Bool
	done    chan struct{}

	slice, checkEvery, checkIdleEvery time.Duration
	holdShare, letGoShare             float64
}

// Hold starts a Holder for the process until ctx ends; Wait returns once it
// has let go. It starts holding, as a process starting up is busy, and
// lets go at its first check if the process is idle.
func Hold(ctx context.Context) *Holder {
	h := newHolder()
	if supported {
		h.set(true)
		go h.run(ctx)
	} else {
		close(h.done)
	}
	return h
}

func newHolder() *Holder {
	return &Holder{base: runtime.GOMAXPROCS(0), done: make(chan struct{}),
		slice: slice, checkEvery: checkEvery, checkIdleEvery: checkIdleEvery,
		holdShare: holdShare, letGoShare: letGoShare}
}

// Holding reports whether the Holder holds a processor now.
func (h *Holder) Holding() bool { return h.holding.Load() }

// Wait waits until the Holder has let go after its context ended, with
// GOMAXPROCS back as it found it.
func (h *Holder) Wait() { <-h.done }

func (h *Holder) run(ctx context.Context) {
	defer close(h.done)
	defer h.set(false)
	timer := time.NewTimer(h.checkIdleEvery)
	defer timer.Stop()
	lastCPU, lastAt := processCPU(), time.Now()
	for {
		if h.holding.Load() {
			rawSleep(h.slice) // the calls below are where a preemption stops it
			if ctx.Err() != nil {
				return
			}
		} else {
			timer.Reset(h.checkIdleEvery)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		now := time.Now()
		every := h.checkIdleEvery
		if h.holding.Load() {
			every = h.checkEvery
		}
		if elapsed := now.Sub(lastAt); elapsed >= every {
			cpu := processCPU()
			share := float64(cpu-lastCPU) / float64(elapsed)
			if share >= h.holdShare {
				h.set(true)
			} else if share < h.letGoShare {
				h.set(false)
			}
			lastCPU, lastAt = cpu, now
		}
	}
}

// set takes or lets go of the extra processor.
func (h *Holder) set(hold bool) {
	if h.holding.Load() == hold {
		return
	}
	if hold {
		runtime.GOMAXPROCS(h.base + 1)
	} else {
		runtime.GOMAXPROCS(h.base)
	}
	h.holding.Store(hold)
}
