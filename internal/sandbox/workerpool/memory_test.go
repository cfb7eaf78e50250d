package workerpool

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestMeasureLeavesTheNextJobUncollected: once a job's garbage has made the
// baseline due and the worker measured it (a full GC after the answer),
// the next job starts without collecting again. A second collection on
// an empty heap set the Go runtime's record of the heap in use near zero,
// so its scavenger returned the whole garbage room to the OS after every
// measure, and the next jobs faulted it back in page by page: a fifth of
// a pool's throughput on small scripts (bench/peer).
func TestMeasureLeavesTheNextJobUncollected(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // jobBudget sets the GC's limit
	w := &worker{script: 32 << 20}
	w.measure()
	w.heapAfterLastJob = w.measured + w.script // what a job that churned its share leaves
	if _, due := w.baseline(); !due {
		t.Fatal("a job that left half the script's share of garbage did not make the baseline due")
	}
	w.measure()
	if _, due := w.baseline(); due {
		t.Fatalf("the baseline is due again right after a measure (measured %d bytes, heap after the last job %d)",
			w.measured, w.heapAfterLastJob)
	}
	before := forcedGCs()
	w.jobBudget()
	if n := forcedGCs() - before; n != 0 {
		t.Fatalf("the job after a measure ran %d forced collections, want none", n)
	}
}

func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
