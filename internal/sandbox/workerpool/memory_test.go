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

// TestJobIsNotFailedForSpaceAnotherLeft: a job's address-space line is at
// least the space the heap spanned when the last job ended plus the job's
// own share (1.5 S and the stack limit). An earlier job can leave the
// heap's free space near the worker's line and in pieces, and a job within
// its limits that makes one large array grows the heap by it. Before, the
// line was the worker's alone: `new Array(1440000).fill(0).length` (under
// the 32 MB share) after a Map bomb on the same worker failed with
// SCRIPT_MEMORY_LIMIT in 4 runs of 36.
func TestJobIsNotFailedForSpaceAnotherLeft(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // jobBudget sets the GC's limit
	const mb = 1 << 20
	w := &worker{script: 32 * mb, maxStack: 4 * mb}
	w.measure()
	own := w.script + w.script/2 + w.maxStack
	line := w.start.heapSpace + w.measured + own // the worker's line: it started with no heap
	w.spaceAfterLastJob = line - w.script/4 + mb // what a bomb left: just short of retiring
	lim := w.jobBudget()
	if lim.space < w.spaceAfterLastJob+own {
		t.Fatalf("a job after one that left %d MB of heap address space is failed past %d MB, want at least %d MB (that and its own share)",
			w.spaceAfterLastJob/mb, lim.space/mb, (w.spaceAfterLastJob+own)/mb)
	}
	if lim.spaceLine != line {
		t.Errorf("the worker retires near %d MB, want its own line %d MB", lim.spaceLine/mb, line/mb)
	}
}
