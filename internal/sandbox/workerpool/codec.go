package workerpool

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// The binary payloads of job and result frames. Integers are fixed 8-byte
// big-endian or unsigned varints; a string is its length as a uvarint
// followed by its bytes. A decoder refuses a length past the end of the
// body and bytes left over after the last field.
//
//	job:    id u64 · timeout-ns i64 · source str · count uvarint · (name str · value str)*
//	        · count uvarint · (capability str)* · journal str · resolution str
//	result: id u64 · flags byte · [reason byte]  when flags has replyRetiring
//	        · duration-ns i64 · output str
//	        · [code str · message str · line uvarint · column uvarint · reason str]  when flags has resultHasError
//	        · [count uvarint · (level str · message str · line uvarint)*]  when flags has resultHasLogs
//	        · [request str · journal str]  when flags has resultSuspended
//	host call:  id u64 · capability str · method str · args str
//	host reply: id u64 · flags byte · value str  (flags 0)
//	            | code str · name str · message str  (flags hostReplyError)
//	check:  id u64 · timeout-ns i64 · source str · count uvarint · (name str)*
//	report: id u64 · flags byte · [reason byte]  when flags has replyRetiring
//	        · duration-ns i64 · JSON of {report, error}
//
// A reply's flags may also carry replyCollecting (frame.Collecting).
const (
	replyRetiring       = 1 << 0
	replyCollecting     = 1 << 7
	resultHasError      = 1 << 1
	resultHasLogs       = 1 << 2
	resultLogsTruncated = 1 << 3
	resultSuspended     = 1 << 4
	hostReplyError      = 1 << 0
)

func appendJob(buf []byte, id uint64, req *sandbox.Request) []byte {
	buf = binary.BigEndian.AppendUint64(buf, id)
	buf = binary.BigEndian.AppendUint64(buf, uint64(req.Timeout))
	buf = appendString(buf, req.Source)
	buf = binary.AppendUvarint(buf, uint64(len(req.Inputs)))
	for _, in := range req.Inputs {
		buf = appendString(buf, in.Name)
		buf = appendString(buf, in.Value)
	}
	buf = binary.AppendUvarint(buf, uint64(len(req.Capabilities)))
	for _, c := range req.Capabilities {
		buf = appendString(buf, c)
	}
	buf = appendString(buf, string(req.Journal))
	return appendString(buf, string(req.Resolution))
}

func decodeJob(payload []byte, req *sandbox.Request) (id uint64, err error) {
	d := decoder{b: payload}
	id = d.uint64()
	req.Timeout = time.Duration(d.uint64())
	req.Source = d.string()
	// Each input takes at least two bytes (two empty strings), which bounds
	// the count a garbage frame can claim before anything is allocated.
	if n := d.uvarint(); n > 0 && d.err == nil {
		if n > uint64(len(d.b))/2 {
			return 0, fmt.Errorf("%d inputs announced in %d bytes", n, len(d.b))
		}
		req.Inputs = make([]sandbox.Input, n)
		for i := range req.Inputs {
			req.Inputs[i] = sandbox.Input{Name: d.string(), Value: d.string()}
		}
	}
	if n := d.uvarint(); n > 0 && d.err == nil {
		if n > uint64(len(d.b)) {
			return 0, fmt.Errorf("%d capabilities announced in %d bytes", n, len(d.b))
		}
		req.Capabilities = make([]string, n)
		for i := range req.Capabilities {
			req.Capabilities[i] = d.string()
		}
	}
	if j := d.string(); j != "" {
		req.Journal = []byte(j)
	}
	if r := d.string(); r != "" {
		req.Resolution = []byte(r)
	}
	return id, d.end("job")
}

func appendResult(buf []byte, f *frame) []byte {
	res := f.Result
	var flags byte
	if res.Err != nil {
		flags |= resultHasError
	}
	if len(res.Logs) > 0 {
		flags |= resultHasLogs
	}
	if res.LogsTruncated {
		flags |= resultLogsTruncated
	}
	if res.Suspended != nil {
		flags |= resultSuspended
	}
	buf = appendReplyHead(buf, f, flags)
	buf = binary.BigEndian.AppendUint64(buf, uint64(res.Duration))
	buf = appendString(buf, res.Output)
	if e := res.Err; e != nil {
		buf = appendString(buf, string(e.Code))
		buf = appendString(buf, e.Message)
		buf = binary.AppendUvarint(buf, uint64(max(e.Line, 0)))
		buf = binary.AppendUvarint(buf, uint64(max(e.Column, 0)))
		buf = appendString(buf, e.Reason)
	}
	if len(res.Logs) > 0 {
		buf = binary.AppendUvarint(buf, uint64(len(res.Logs)))
		for _, l := range res.Logs {
			buf = appendString(buf, l.Level)
			buf = appendString(buf, l.Message)
			buf = binary.AppendUvarint(buf, uint64(max(l.Line, 0)))
		}
	}
	if s := res.Suspended; s != nil {
		buf = appendString(buf, string(s.Request))
		buf = appendString(buf, string(s.Journal))
	}
	return buf
}

func decodeResult(payload []byte, f *frame) error {
	f.Result = new(sandbox.Result)
	res := f.Result
	d := decoder{b: payload}
	flags := d.replyHead(f, "result", resultHasError|resultHasLogs|resultLogsTruncated|resultSuspended)
	res.Duration = time.Duration(d.uint64())
	res.Output = d.string()
	if flags&resultHasError != 0 {
		res.Err = &sandbox.Error{Code: sandbox.Code(d.string()), Message: d.string(),
			Line: d.int(), Column: d.int(), Reason: d.string()}
	}
	if flags&resultHasLogs != 0 {
		// Each line takes at least three bytes (two empty strings and a 0).
		if n := d.uvarint(); n > 0 && d.err == nil {
			if n > uint64(len(d.b))/3 {
				return fmt.Errorf("%d log lines announced in %d bytes", n, len(d.b))
			}
			res.Logs = make([]sandbox.LogEntry, n)
			for i := range res.Logs {
				res.Logs[i] = sandbox.LogEntry{Level: d.string(), Message: d.string(), Line: d.int()}
			}
		}
	}
	res.LogsTruncated = flags&resultLogsTruncated != 0
	if flags&resultSuspended != 0 {
		res.Suspended = &sandbox.Suspension{Request: []byte(d.string()), Journal: []byte(d.string())}
	}
	return d.end("result")
}

func appendHostCall(buf []byte, id uint64, c *sandbox.HostCall) []byte {
	buf = binary.BigEndian.AppendUint64(buf, id)
	buf = appendString(buf, c.Capability)
	buf = appendString(buf, c.Method)
	return appendString(buf, string(c.Args))
}

func decodeHostCall(payload []byte, c *sandbox.HostCall) (id uint64, err error) {
	d := decoder{b: payload}
	id = d.uint64()
	c.Capability, c.Method, c.Args = d.string(), d.string(), []byte(d.string())
	return id, d.end("host call")
}

func appendHostReply(buf []byte, id uint64, r *sandbox.HostReply) []byte {
	buf = binary.BigEndian.AppendUint64(buf, id)
	if e := r.Err; e != nil {
		buf = append(buf, hostReplyError)
		buf = appendString(buf, string(e.Code))
		buf = appendString(buf, e.Name)
		return appendString(buf, e.Message)
	}
	buf = append(buf, 0)
	return appendString(buf, string(r.Value))
}

func decodeHostReply(payload []byte, r *sandbox.HostReply) (id uint64, err error) {
	d := decoder{b: payload}
	id = d.uint64()
	switch flags := d.byte(); {
	case flags == hostReplyError:
		r.Err = &sandbox.HostError{Code: sandbox.Code(d.string()), Name: d.string(), Message: d.string()}
	case flags == 0:
		if v := d.string(); v != "" {
			r.Value = []byte(v)
		}
	case d.err == nil:
		d.err = fmt.Errorf("unknown host reply flags %#x", flags)
	}
	return id, d.end("host reply")
}

// appendReplyHead writes what every reply f starts with: the request's id,
// the flags (the kind's, and what the worker does after answering) and,
// when the worker retires after it, why.
func appendReplyHead(buf []byte, f *frame, flags byte) []byte {
	if f.Retiring != retireNone {
		flags |= replyRetiring
	}
	if f.Collecting {
		flags |= replyCollecting
	}
	buf = binary.BigEndian.AppendUint64(buf, f.ID)
	buf = append(buf, flags)
	if f.Retiring != retireNone {
		buf = append(buf, byte(f.Retiring))
	}
	return buf
}

// replyHead reads what appendReplyHead wrote into f and returns the flags;
// known are the flags the reply's kind may set besides those of every
// reply.
func (d *decoder) replyHead(f *frame, kind string, known byte) (flags byte) {
	f.ID = d.uint64()
	flags = d.byte()
	if flags&replyRetiring != 0 {
		f.Retiring = retireReason(d.byte())
		if (f.Retiring == retireNone || f.Retiring >= retireReasons) && d.err == nil {
			d.err = fmt.Errorf("unknown retirement reason %d", f.Retiring)
		}
	}
	f.Collecting = flags&replyCollecting != 0
	if flags&^(replyRetiring|replyCollecting|known) != 0 && d.err == nil {
		d.err = fmt.Errorf("unknown %s flags %#x", kind, flags)
	}
	return flags
}

func appendCheck(buf []byte, id uint64, req *checkRequest) []byte {
	buf = binary.BigEndian.AppendUint64(buf, id)
	buf = binary.BigEndian.AppendUint64(buf, uint64(req.Timeout))
	buf = appendString(buf, req.Source)
	// 0 is nil (a template at save time: its inputs are unknown), n+1 is n
	// names, none included: the guardrails tell the two apart.
	if req.InputNames == nil {
		buf = binary.AppendUvarint(buf, 0)
	} else {
		buf = binary.AppendUvarint(buf, uint64(len(req.InputNames))+1)
	}
	for _, name := range req.InputNames {
		buf = appendString(buf, name)
	}
	return buf
}

func decodeCheck(payload []byte, req *checkRequest) (id uint64, err error) {
	d := decoder{b: payload}
	id = d.uint64()
	req.Timeout = time.Duration(d.uint64())
	req.Source = d.string()
	// 0 is nil, n+1 is n names; each takes at least a byte (its length).
	if n := d.uvarint(); n > 0 && d.err == nil {
		n--
		if n > uint64(len(d.b)) {
			return 0, fmt.Errorf("%d input names announced in %d bytes", n, len(d.b))
		}
		req.InputNames = make([]string, n)
		for i := range req.InputNames {
			req.InputNames[i] = d.string()
		}
	}
	return id, d.end("check")
}

func appendReport(buf []byte, f *frame) ([]byte, error) {
	buf = appendReplyHead(buf, f, 0)
	buf = binary.BigEndian.AppendUint64(buf, uint64(f.Report.Duration))
	return appendJSON(buf, f.Report)
}

func decodeReport(payload []byte, f *frame) error {
	f.Report = new(checkReport)
	rep := f.Report
	d := decoder{b: payload}
	d.replyHead(f, "report", 0)
	rep.Duration = time.Duration(d.uint64())
	if d.err == nil {
		if err := json.Unmarshal(d.b, rep); err != nil {
			d.err = fmt.Errorf("report: %w", err)
		}
		d.b = nil
	}
	if d.err == nil && rep.Err != nil && rep.Err.Code == "" {
		d.err = errors.New("an error without a code")
	}
	return d.end("report")
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// decoder reads a payload front to back; the first error sticks and later
// reads return zero values.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("the payload ends inside a field")

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errShort
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint64() uint64 {
	if b := d.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) byte() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("malformed length or number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.uvarint()
	if v > 1<<31 && d.err == nil {
		d.err = fmt.Errorf("number %d out of range", v)
	}
	return int(v) // at most 1<<31: checked above
}

func (d *decoder) string() string {
	return string(d.take(d.uvarint()))
}

// end reports the first error, or bytes left over after the last field.
func (d *decoder) end(kind string) error {
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes left after the last field", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("%s payload: %w", kind, d.err)
	}
	return nil
}
