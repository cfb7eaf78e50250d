package workerpool

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// TestWorkerHeapPreparedForHugePages checks prepareHeap in a real worker:
// without the race detector it maps the heap its garbage will reach
// (gcHeapMinimum, less the start-up heap), advises it for huge pages and
// leaves it untouched; once jobs have filled it with garbage, the kernel
// has backed it with huge pages, or tried to (a fallback is counted when
// no 2 MB page was free), unless transparent huge pages are off. Under the
// race detector nothing is prepared.
func TestWorkerHeapPreparedForHugePages(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1}})
	proc := liveProcs(p)[0]
	prepared := proc.info.PreparedHeapBytes
	if raceEnabled {
		if prepared != 0 {
			t.Fatalf("a race build prepared %d bytes of heap; want none", prepared)
		}
		return
	}
	if prepared < 4<<20 || prepared > gcHeapMinimum {
		t.Fatalf("the worker prepared %d bytes of heap; want between 4 MB and %d", prepared, gcHeapMinimum)
	}
	advised := func() []smapsEntry {
		var hg []smapsEntry
		for _, e := range readSmaps(t, proc.pid) {
			if e.flags["hg"] {
				hg = append(hg, e)
			}
		}
		return hg
	}
	var size, rss uint64
	for _, e := range advised() {
		size, rss = size+e.kb["Size"]<<10, rss+e.kb["Rss"]<<10
	}
	if size < prepared {
		t.Fatalf("%d bytes of the worker's memory are advised for huge pages; want at least the %d prepared", size, prepared)
	}
	if rss > prepared/4 {
		t.Errorf("%d bytes of the prepared heap are resident before any job; want it untouched", rss)
	}

	attempts := thpFaults(t)
	// About 40 MB of garbage in 100 KB strings: past the first collection.
	for i := range 400 {
		res := p.Run(context.Background(), sandbox.Request{Source: `return "x".repeat(100000).length`})
		if res.Output != "100000" {
			t.Fatalf("job %d: %q, %v", i, res.Output, res.Err)
		}
	}
	var huge uint64
	for _, e := range advised() {
		huge += e.kb["AnonHugePages"] << 10
	}
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	t.Logf("prepared %d bytes; advised %d, resident %d before the jobs; %d in huge pages after them", prepared, size, rss, huge)
	switch {
	case err == nil && bytes.Contains(thp, []byte("[never]")):
		if huge != 0 {
			t.Errorf("transparent huge pages are off, yet %d bytes of the heap are in huge pages", huge)
		}
	case huge == 0 && thpFaults(t) == attempts:
		t.Errorf("after 40 MB of garbage, no huge page backs the prepared heap and the kernel tried none (transparent_hugepage/enabled: %q)", thp)
	}
}

// TestPreparedHeapIsNotWritten checks that preparing the heap writes none
// of it: a worker that is ready has taken fewer page faults than half the
// prepared heap's 4 KB pages. The Go runtime clears an allocation that
// overlaps a page it used and freed before; prepareHeap returns the free
// pages first so that its allocation never is. Without that, about one
// worker in five wrote the whole prepared heap at start-up (6,000–7,000
// faults against about 800), so 16 workers nearly always show it.
func TestPreparedHeapIsNotWritten(t *testing.T) {
	if raceEnabled {
		t.Log("a race build prepares no heap (TestWorkerHeapPreparedForHugePages checks it)")
		return
	}
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 16}})
	for _, proc := range liveProcs(p) {
		prepared := proc.info.PreparedHeapBytes
		faults := minorFaults(t, proc.pid)
		t.Logf("worker %d: %d bytes prepared, %d page faults at start-up", proc.pid, prepared, faults)
		if prepared == 0 {
			t.Errorf("worker %d prepared no heap", proc.pid)
		}
		if limit := prepared / 4096 / 2; faults > limit {
			t.Errorf("worker %d took %d page faults before its first job; want under %d, half the %d bytes it prepared in 4 KB pages: the prepared heap was written", proc.pid, faults, limit, prepared)
		}
	}
}

// BenchmarkPoolStart starts a pool of 8 workers and closes it. It reports
// the time to a ready pool, and per worker the CPU time and the page faults
// taken until it was ready (a worker whose prepared heap was written took
// about 6,000 more faults and 100 ms more CPU than the others).
//
//	go test -run '^$' -bench PoolStart -benchtime 20x ./internal/sandbox/workerpool/
func BenchmarkPoolStart(b *testing.B) {
	const workers = 8
	var faults, cpu uint64
	for b.Loop() {
		p, err := New(context.Background(), Config{Limits: sandbox.Limits{MaxParallel: workers}})
		if err != nil {
			b.Fatalf("starting the pool: %v", err)
		}
		b.StopTimer()
		for _, proc := range liveProcs(p) {
			faults += minorFaults(b, proc.pid)
			cpu += cpuTicks(b, proc.pid)
		}
		_ = p.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(faults)/float64(b.N*workers), "faults/worker")
	b.ReportMetric(float64(cpu)*10/float64(b.N*workers), "cpu-ms/worker")
}

// cpuTicks is the user and system CPU time pid has used, in clock ticks
// (10 ms).
func cpuTicks(t testing.TB, pid int) uint64 {
	f := procStatFields(t, pid)
	var n uint64
	for _, i := range []int{11, 12} { // fields 14 and 15, utime and stime
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			t.Fatalf("reading the worker's CPU time: %v", err)
		}
		n += v
	}
	return n
}

// minorFaults is the minor page faults pid has taken so far.
func minorFaults(t testing.TB, pid int) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(procStatFields(t, pid)[7], 10, 64) // field 10, minflt
	if err != nil {
		t.Fatalf("reading the worker's minor faults: %v", err)
	}
	return n
}

// procStatFields is the fields of /proc/<pid>/stat after the command name:
// f[0] is field 3, the state.
func procStatFields(t testing.TB, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("reading the worker's stat: %v", err)
	}
	// The command name (field 2) may hold spaces: fields count from its ")".
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("the worker's stat has %d fields after its name", len(f))
	}
	return f
}

// TestSmallMemoryLimitPreparesWithinIt runs a pool whose scripts may use
// 1 MB: what a worker prepares stays within its GC memory limit, and its
// jobs run (the heap's address space is part of a job's memory check).
func TestSmallMemoryLimitPreparesWithinIt(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, MemoryMB: 1}})
	proc := liveProcs(p)[0]
	if limit := proc.info.BaseHeapBytes + 1<<20 + 1<<18; proc.info.PreparedHeapBytes > limit {
		t.Errorf("the worker prepared %d bytes of heap; its GC memory limit is %d", proc.info.PreparedHeapBytes, limit)
	}
	for i := range 200 {
		res := p.Run(context.Background(), sandbox.Request{Source: `return "x".repeat(10000).length`})
		if res.Output != "10000" {
			t.Fatalf("job %d: %q, %v", i, res.Output, res.Err)
		}
	}
}

// smapsEntry is one mapping of /proc/<pid>/smaps: its kB fields and the
// two-letter flags of VmFlags.
type smapsEntry struct {
	kb    map[string]uint64
	flags map[string]bool
}

func readSmaps(t *testing.T, pid int) []smapsEntry {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatalf("reading the worker's mappings: %v", err)
	}
	var entries []smapsEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		switch {
		case !ok || strings.Contains(key, " "): // a mapping's header line
			entries = append(entries, smapsEntry{kb: map[string]uint64{}, flags: map[string]bool{}})
		case len(entries) == 0:
		case key == "VmFlags":
			for _, f := range strings.Fields(value) {
				entries[len(entries)-1].flags[f] = true
			}
		default:
			if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64); err == nil {
				entries[len(entries)-1].kb[key] = n
			}
		}
	}
	return entries
}

// thpFaults is how many page faults the kernel has tried to serve with a
// huge page since boot, served or fallen back.
func thpFaults(t *testing.T) uint64 {
	t.Helper()
	data, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		t.Fatalf("reading /proc/vmstat: %v", err)
	}
	var n uint64
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name == "thp_fault_alloc" || name == "thp_fault_fallback" {
			v, _ := strconv.ParseUint(value, 10, 64)
			n += v
		}
	}
	return n
}
