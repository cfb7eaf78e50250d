package workerpool

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// The log region: memory a worker shares with its parent, where the worker
// copies a job's console lines as the log book keeps them (a
// sandbox.LogMirror). A worker that answers carries its lines in its
// result; the region is for the one that cannot: killed at the deadline by
// its parent, or dead of the memory a native built-in took. The parent
// reads the region after the worker is gone, so copying a line costs the
// worker a memory copy, not a system call.
//
// Layout (little-endian): the job id (8 bytes), the used length of the
// records (4), a truncated flag (1), padding to logHeader; then one record
// per line: level length (1), level, line (4), message length (4), message.
const (
	logHeader   = 16
	logRecordAt = 9 // a record's fixed part
)

// logRegionSize is the region's size for l's log caps.
func logRegionSize(l sandbox.Limits) int {
	return logHeader + l.MaxLogEntries*(logRecordAt+8) + l.MaxLogBytes
}

// logWriter is the worker's side: a sandbox.LogMirror over the region.
type logWriter struct {
	mem     []byte
	gen     int
	written int // entries copied
	used    int // bytes of records
}

// start makes the region the job id's, with no lines: the last job's
// lines are cut off before the id changes, so a worker killed in between
// leaves no line under another job's id.
func (w *logWriter) start(id uint64) {
	w.gen, w.written, w.used = 0, 0, 0
	w.mem[12] = 0
	w.publish()
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&w.mem[0])), id)
}

// Mirror copies the entries the region does not hold yet; a book that
// started over (another gen) is copied afresh.
func (w *logWriter) Mirror(gen int, entries []sandbox.LogEntry, truncated bool) {
	if gen != w.gen || len(entries) < w.written {
		w.gen, w.written, w.used = gen, 0, 0
		w.publish() // before the old records are written over
	}
	for _, e := range entries[w.written:] {
		rec := logRecordAt + len(e.Level) + len(e.Message)
		if len(e.Level) > 255 || logHeader+w.used+rec > len(w.mem) {
			truncated = true
			break
		}
		b := w.mem[logHeader+w.used:]
		b[0] = byte(len(e.Level))
		n := 1 + copy(b[1:], e.Level)
		binary.LittleEndian.PutUint32(b[n:], uint32(e.Line))
		binary.LittleEndian.PutUint32(b[n+4:], uint32(len(e.Message)))
		copy(b[n+8:], e.Message)
		w.used += rec
		w.written++
	}
	if truncated {
		w.mem[12] = 1
	} else {
		w.mem[12] = 0
	}
	w.publish()
}

// publish stores the used length after the records it covers, so that a
// worker killed mid-copy leaves a region whose length covers whole
// records only.
func (w *logWriter) publish() {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&w.mem[8])), uint32(w.used))
}

// readLogRegion reads the lines job id left in the region of a worker that
// is gone: none when the region holds another job's. The worker is not
// trusted to have written well: lengths are checked, the lines capped by
// l, and text made valid UTF-8.
func readLogRegion(mem []byte, id uint64, l sandbox.Limits) (logs []sandbox.LogEntry, truncated bool) {
	if len(mem) < logHeader || binary.LittleEndian.Uint64(mem) != id {
		return nil, false
	}
	used := uint64(binary.LittleEndian.Uint32(mem[8:]))
	truncated = mem[12] != 0
	if used > uint64(len(mem)-logHeader) {
		return nil, true
	}
	b := mem[logHeader : logHeader+used]
	total := 0
	for len(b) > 0 {
		n := int(b[0])
		if len(b) < logRecordAt+n {
			return logs, true
		}
		level := string(b[1 : 1+n])
		line := int(binary.LittleEndian.Uint32(b[1+n:]) & 0x7fffffff)
		size64 := uint64(binary.LittleEndian.Uint32(b[5+n:]))
		if size64 > uint64(len(b)-logRecordAt-n) || len(logs) == l.MaxLogEntries || total+int(size64) > l.MaxLogBytes {
			return logs, true
		}
		size := int(size64)
		msg := strings.ToValidUTF8(string(b[logRecordAt+n:logRecordAt+n+size]), "\uFFFD")
		logs = append(logs, sandbox.LogEntry{Level: level, Message: msg, Line: line})
		total += size
		b = b[logRecordAt+n+size:]
	}
	return logs, truncated
}
