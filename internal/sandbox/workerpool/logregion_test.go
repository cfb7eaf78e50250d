package workerpool

import (
	"context"
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestLogRegionRoundTrip(t *testing.T) {
	l := sandbox.Limits{MaxLogEntries: 3, MaxLogBytes: 64}
	w := &logWriter{mem: make([]byte, logRegionSize(l))}
	a := sandbox.LogEntry{Level: "log", Message: "primeira linha ✓", Line: 1}
	b := sandbox.LogEntry{Level: "warn", Message: "second", Line: 7}
	c := sandbox.LogEntry{Level: "error", Message: "third", Line: 9}

	w.start(5)
	w.Mirror(0, []sandbox.LogEntry{a}, false)
	w.Mirror(0, []sandbox.LogEntry{a, b}, false)
	if got, tr := readLogRegion(w.mem, 5, l); !reflect.DeepEqual(got, []sandbox.LogEntry{a, b}) || tr {
		t.Errorf("read %+v (truncated %v)", got, tr)
	}
	if got, _ := readLogRegion(w.mem, 4, l); got != nil {
		t.Errorf("another job's region read as %+v", got)
	}
	// A book that starts over (a resumed run's live part) starts the
	// region over; the truncated flag follows the book.
	w.Mirror(1, []sandbox.LogEntry{c}, true)
	if got, tr := readLogRegion(w.mem, 5, l); !reflect.DeepEqual(got, []sandbox.LogEntry{c}) || !tr {
		t.Errorf("after a new book: %+v (truncated %v)", got, tr)
	}
	// The next job finds it empty.
	w.start(6)
	if got, tr := readLogRegion(w.mem, 6, l); len(got) != 0 || tr {
		t.Errorf("a new job's region: %+v (truncated %v)", got, tr)
	}
	// Lines the region cannot hold are left out, and said to be.
	small := &logWriter{mem: make([]byte, logHeader+logRecordAt+3+4)}
	small.start(1)
	small.Mirror(0, []sandbox.LogEntry{{Level: "log", Message: "abcd"}, {Level: "log", Message: "more"}}, false)
	if got, tr := readLogRegion(small.mem, 1, l); len(got) != 1 || !tr {
		t.Errorf("a full region: %+v (truncated %v)", got, tr)
	}
}

// The parent does not trust what a worker wrote: lengths past the region
// or past the caps end the read, and bad UTF-8 is replaced.
func TestLogRegionReadIsDefensive(t *testing.T) {
	l := sandbox.Limits{MaxLogEntries: 2, MaxLogBytes: 64}
	w := &logWriter{mem: make([]byte, logRegionSize(l))}
	w.start(1)
	w.Mirror(0, []sandbox.LogEntry{{Level: "log", Message: "ok"}, {Level: "log", Message: "bad \xff"}, {Level: "log", Message: "third"}}, false)
	got, tr := readLogRegion(w.mem, 1, l)
	if len(got) != 2 || got[1].Message != "bad \uFFFD" || !tr {
		t.Errorf("read %+v (truncated %v): want 2 lines (the cap), valid UTF-8", got, tr)
	}
	binary.LittleEndian.PutUint32(w.mem[8:], uint32(len(w.mem))) // used past the end
	if got, tr := readLogRegion(w.mem, 1, l); got != nil || !tr {
		t.Errorf("used past the end: %+v (truncated %v)", got, tr)
	}
	binary.LittleEndian.PutUint32(w.mem[8:], 5) // a record cut short
	if got, tr := readLogRegion(w.mem, 1, l); len(got) != 0 || !tr {
		t.Errorf("a record cut short: %+v (truncated %v)", got, tr)
	}
	if got, _ := readLogRegion(nil, 1, l); got != nil {
		t.Errorf("no region: %+v", got)
	}
}

// TestLogsOfAWorkerEndedFromOutside: a worker killed at the deadline (a
// native built-in that ignores the interrupt) or dead of the memory one
// took leaves its lines in its log region, and the result carries them.
func TestLogsOfAWorkerEndedFromOutside(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 300 * time.Millisecond}})
	for _, tc := range []struct {
		name, source string
		codes        []sandbox.Code
	}{
		{"killed at the deadline", "console.log('before', 1)\nconsole.warn('the regex')\nreturn /(a+)+\\1c/.test('a'.repeat(34))",
			[]sandbox.Code{sandbox.CodeTimeout}},
		{"out of memory in a built-in", "console.log('before', 1)\nconsole.warn('the split')\nreturn 'x'.repeat(3e7).split('').length",
			[]sandbox.Code{sandbox.CodeMemoryLimit, sandbox.CodeTimeout}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Run(context.Background(), sandbox.Request{Source: tc.source})
			if res.Err == nil || !slices.Contains(tc.codes, res.Err.Code) {
				t.Fatalf("%+v, want one of %v", res.Err, tc.codes)
			}
			if len(res.Logs) != 2 || res.Logs[0].Message != "before 1" || res.Logs[1].Level != "warn" || res.Logs[1].Line != 2 {
				t.Errorf("logs %+v, want the two lines written before", res.Logs)
			}
		})
	}
	// The next job on the new worker starts with no lines of the last.
	if res := p.Run(context.Background(), sandbox.Request{Source: "return 'clean'"}); res.Output != "clean" || len(res.Logs) != 0 {
		t.Errorf("the next job: %q %+v, logs %+v", res.Output, res.Err, res.Logs)
	}
}
