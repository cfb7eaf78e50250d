package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dop251/goja"

	"github.com/flowscript/flowscript/flowjob"
)

// Pause and resume (DESIGN.md §10), the sandbox's side. A run granted the
// approval capability keeps a journal: every value of Date.now(), new
// Date() and Math.random(), and every host call with its answer, in order.
// approval.request(...) stops the run there (uncatchable): the result is
// Suspended, with the request and the journal. A later run of the same
// source with that journal (Request.Journal) and the answer to the request
// (Request.Resolution) replays it: recorded times and random numbers come
// back as they were, recorded host calls return their recorded answers
// without reaching the host, the pending approval.request returns the
// resolution, and from there the run goes on live — recording, so that it
// may suspend again. A replay that asks for something else than the
// journal holds (another host call, other arguments, a time where a host
// call was) is CONTINUATION_DIVERGED.

// CodeContinuationDiverged is the code of a resumed run that did not replay
// its journal.
const CodeContinuationDiverged Code = "CONTINUATION_DIVERGED"

// MaxJournalBytes caps a suspended run's journal: it is stored whole in a
// key-value entry (and a NATS message is 1 MB by default). A run whose
// journal would be larger fails at approval.request with SCRIPT_ERROR.
const MaxJournalBytes = 768 << 10

// Suspension is a run stopped by approval.request.
type Suspension struct {
	// Request is the approval request as JSON ({message, data}, or null).
	Request json.RawMessage
	// Journal is the run's journal, encoded: pass it back, with the
	// resolution, to resume.
	Journal json.RawMessage
}

// journalEvent is one entry of a journal.
type journalEvent struct {
	Kind       string          `json:"k"`           // now, rand, host, approval
	Time       int64           `json:"t,omitempty"` // now: Unix nanoseconds
	Rand       float64         `json:"r,omitempty"` // rand
	Capability string          `json:"c,omitempty"` // host
	Method     string          `json:"m,omitempty"` // host
	Args       json.RawMessage `json:"a,omitempty"` // host
	Value      json.RawMessage `json:"v,omitempty"` // host: its answer; approval: its resolution
	Err        *HostError      `json:"e,omitempty"` // host: its error
	Request    json.RawMessage `json:"q,omitempty"` // approval: its request
}

// Event kinds.
const (
	eventNow      = "now"
	eventRand     = "rand"
	eventHost     = "host"
	eventApproval = "approval"
)

// recorder keeps a run's journal: it replays the journal it was given,
// then records.
type recorder struct {
	replay     []journalEvent
	pos        int
	events     []journalEvent
	resolution json.RawMessage
	// size estimates the encoded size of events; past MaxJournalBytes the
	// run stops recording (full), so that a loop reading the time cannot
	// grow the journal without bound: such a run cannot suspend, and fails
	// if it asks for approval.
	size int
	full bool
	// resolutions is the bytes of the approvals' resolutions recorded: the
	// engine's data, which a message about a full journal names apart.
	resolutions int
	// stop is set to why the run must stop: suspended or diverged.
	suspended *Suspension
	diverged  string
	// line and column are where a run whose journal was too large asked
	// for approval.
	line, column int
}

// stopped reports whether the run must stop (it suspended or diverged): the
// VM sees the interrupt only at its next instruction, and a built-in
// (items.map(approval.request), a bound Reflect.apply) can call the host,
// ask for approval again or read the time before that, which must neither
// run nor be recorded. A nil recorder (no journal) never stops.
func (r *recorder) stopped() bool {
	return r != nil && (r.suspended != nil || r.diverged != "")
}

// record appends e to the journal, unless the journal is full.
func (r *recorder) record(e journalEvent) {
	if e.Kind == eventApproval {
		r.resolutions += len(e.Value)
	}
	if r.full {
		return
	}
	r.size += 48 + len(e.Capability) + len(e.Method) + len(e.Args) + len(e.Value) + len(e.Request)
	if e.Err != nil {
		r.size += 32 + len(e.Err.Code) + len(e.Err.Message)
	}
	if r.size > MaxJournalBytes {
		r.full, r.events = true, nil
		return
	}
	r.events = append(r.events, e)
}

// marshalJournal is the journal's JSON as the script wrote its values:
// json.Marshal would write each <, > and & as six bytes (\u003c), so a
// request of 140 KB of them went over MaxJournalBytes, and a replay
// compared the escaped text with the script's own and diverged. It is the
// wire encoding, flowjob.Marshal.
func marshalJournal(events []journalEvent) ([]byte, error) {
	return flowjob.Marshal(events)
}

// sameJSON reports whether a replayed call's JSON is the recorded one: the
// same text, or the text json.Marshal wrote of it (a journal recorded
// before marshalJournal holds "\u0026" where the script writes "&").
func sameJSON(recorded, now json.RawMessage) bool {
	if bytes.Equal(recorded, now) {
		return true
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, now)
	return bytes.Equal(recorded, escaped.Bytes())
}

// decodeJournal reads a journal to replay.
func decodeJournal(data json.RawMessage) ([]journalEvent, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var events []journalEvent
	if err := json.Unmarshal(data, &events); err != nil {
		return nil, fmt.Errorf("the journal to replay is not readable: %w", err)
	}
	return events, nil
}

// replaying returns the next journal event when the run is still in the
// replayed part, checking it is of kind; ok false: the run is live.
func (r *recorder) next(kind string) (e journalEvent, replayed bool) {
	if r.pos >= len(r.replay) {
		return e, false
	}
	e = r.replay[r.pos]
	if e.Kind != kind {
		r.diverged = fmt.Sprintf("the run made %s where its journal holds %s (event %d)", what(kind), what(e.Kind), r.pos+1)
	}
	r.pos++
	return e, true
}

func what(kind string) string {
	switch kind {
	case eventNow:
		return "a reading of the time"
	case eventRand:
		return "a call of Math.random()"
	case eventHost:
		return "a host call"
	case eventApproval:
		return "a call of approval.request"
	}
	return "an event " + kind
}

// installJournal makes v's time and randomness go through r.
func (v *vm) installJournal(r *recorder) {
	v.rt.SetTimeSource(func() time.Time {
		if r.stopped() {
			return time.Now()
		}
		e, replayed := r.next(eventNow)
		if replayed && r.diverged == "" {
			r.record(e)
			return time.Unix(0, e.Time)
		}
		if replayed {
			v.rt.Interrupt(divergedMarker)
			return time.Now()
		}
		now := time.Now()
		r.record(journalEvent{Kind: eventNow, Time: now.UnixNano()})
		return now
	})
	v.rt.SetRandSource(func() float64 {
		if r.stopped() {
			return 0
		}
		e, replayed := r.next(eventRand)
		if replayed && r.diverged == "" {
			r.record(e)
			return e.Rand
		}
		if replayed {
			v.rt.Interrupt(divergedMarker)
			return 0
		}
		x := rand.Float64() //nolint:gosec // Math.random is not for secrets
		r.record(journalEvent{Kind: eventRand, Rand: x})
		return x
	})
}

// Markers of the interrupts that stop a run on purpose.
var (
	suspendMarker  = &struct{ name string }{"suspend"}
	divergedMarker = &struct{ name string }{"diverged"}
	tooLargeMarker = &struct{ name string }{"journal too large"}
)

// errSuspended is classify's answer for a run suspended while its thrown
// value was read (a message getter that asks for approval): not an error
// of the run, which ends suspended.
var errSuspended = &Error{Code: CodeScriptError, Message: "suspended"}

// journalStop is how a run interrupted by its journal ends: suspended (nil
// error) or with the error the marker stands for; ok is false for any
// other interrupt, and for a run without a journal.
func (h *hostState) journalStop(stopped *goja.InterruptedError) (e *Error, ok bool) {
	if h == nil || h.journal == nil || stopped == nil {
		return nil, false
	}
	switch stopped.Value() {
	case suspendMarker:
		return nil, true
	case divergedMarker:
		return &Error{Code: CodeContinuationDiverged, Message: "the resumed run did not replay its journal: " + h.journal.diverged + divergedNext}, true
	case tooLargeMarker:
		return &Error{Code: CodeScriptError, Message: h.journal.diverged, Line: h.journal.line, Column: h.journal.column}, true
	}
	return nil, false
}

// journaledCall is a host call of a run that keeps a journal: replayed
// from it while the run is in its replayed part, recorded afterwards. It
// reports false when the run diverged (and is interrupted).
func (v *vm) journaledCall(r *recorder, call HostCall, live func() HostReply) (HostReply, bool) {
	e, replayed := r.next(eventHost)
	switch {
	case replayed && r.diverged == "" && (e.Capability != call.Capability || e.Method != call.Method || !sameJSON(e.Args, call.Args)):
		r.diverged = fmt.Sprintf("the run called %s.%s(%s) where its journal holds %s.%s(%s) (event %d)",
			call.Capability, call.Method, clip(call.Args), e.Capability, e.Method, clip(e.Args), r.pos)
		fallthrough
	case r.diverged != "":
		v.rt.Interrupt(divergedMarker)
		return HostReply{}, false
	case replayed:
		r.record(e)
		return HostReply{Value: e.Value, Err: e.Err}, true
	}
	reply := live()
	r.record(journalEvent{Kind: eventHost, Capability: call.Capability, Method: call.Method,
		Args: call.Args, Value: reply.Value, Err: reply.Err})
	return reply, true
}

// approvalRequest is approval.request(request): the resolution when the run
// replays to this request, a suspension of the run otherwise.
func (v *vm) approvalRequest(r *recorder, request json.RawMessage) goja.Value {
	e, replayed := r.next(eventApproval)
	switch {
	case replayed && r.diverged == "" && !sameJSON(e.Request, request):
		r.diverged = fmt.Sprintf("the run asked for approval of %s where its journal holds %s (event %d)", clip(request), clip(e.Request), r.pos)
		fallthrough
	case r.diverged != "":
		v.rt.Interrupt(divergedMarker)
		return goja.Undefined()
	case replayed:
		if e.Value == nil { // the request this resume answers
			e.Value = r.resolution
			if e.Value == nil {
				e.Value = json.RawMessage("null")
			}
		}
		r.record(e)
		if r.pos == len(r.replay) { // the replay ends here: the run goes on live
			v.host.logs.startLive()
		}
		return v.parseJSON(e.Value)
	}
	r.record(journalEvent{Kind: eventApproval, Request: request})
	var journal []byte
	if !r.full {
		var err error
		if journal, err = marshalJournal(r.events); err != nil { // plain Go values: cannot fail
			panic(err)
		}
	}
	if r.full || len(journal) > MaxJournalBytes {
		resolutions := r.resolutions
		switch {
		case len(request) > MaxJournalBytes/2:
			r.diverged = fmt.Sprintf("the approval request is %d bytes, more than a continuation can hold (its journal is at most %d bytes): "+
				"send less data in it", len(request), MaxJournalBytes)
		case resolutions > MaxJournalBytes/2:
			// The engine's data, not the script's calls, filled it.
			r.diverged = fmt.Sprintf("the run's journal is over the %d bytes a continuation can hold when it asks for approval again: "+
				"the resolutions of its earlier approvals take %d bytes of it; resume with smaller resolutions (keep large data with the engine and pass a reference to it)",
				MaxJournalBytes, resolutions)
		default:
			r.diverged = fmt.Sprintf("the run's journal is over the %d bytes a continuation can hold when it asks for approval: "+
				"make fewer or smaller host calls, or read the time less often, before approval.request", MaxJournalBytes)
		}
		r.line, r.column = v.host.position(v.rt.CaptureCallStack(0, nil))
		v.rt.Interrupt(tooLargeMarker)
		return goja.Undefined()
	}
	r.suspended = &Suspension{Request: request, Journal: journal}
	v.rt.Interrupt(suspendMarker)
	return goja.Undefined()
}

// clip is a short form of a JSON value for a message.
func clip(b []byte) string {
	const n = 80
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
