package consumer

import (
	"fmt"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// outcome is what handling one delivery came to. It is one value that knows
// its ack action, its log label and its metric labels: settle, the logs and
// the metrics all read it, and nothing else switches on how a job ended.
type outcome struct {
	kind outcomeKind
	// code is the error code of the job's result, dead letter or transient
	// failure ("" on success).
	code string
	// status is the stored result's status (stored and duplicate kinds).
	status flowjob.Status
	// cause is why a job was dead-lettered or handed back.
	cause error
	// delay is how long the broker waits before redelivering (retry and
	// interrupted kinds).
	delay time.Duration
	// repeat is true when an earlier delivery (or a concurrent run) stored
	// the result first: that one was counted, this one is not.
	repeat bool
}

type outcomeKind int

const (
	// kindStored: the job's result is stored (by this delivery, or by an
	// earlier one when repeat is true). Ack.
	kindStored outcomeKind = iota + 1
	// kindDeadLettered: the job is in the DLQ (with a failed result when it
	// named an id) and never runs again. Term.
	kindDeadLettered
	// kindRetry: a transient failure (the store was unreachable, the sandbox
	// worker crashed); another attempt may succeed. Nak with delay.
	kindRetry
	// kindInterrupted: the replica is stopping and cut the job short. Nak
	// with a delay long enough for this replica's pending pulls to expire;
	// the delivery does not count as an attempt (Config.MaxDeliver).
	kindInterrupted
)

// ackAction is the one message operation an outcome leads to.
type ackAction int

const (
	actionAck ackAction = iota + 1
	actionTerm
	actionNakWithDelay
)

func (a ackAction) String() string {
	switch a {
	case actionAck:
		return "ack"
	case actionTerm:
		return "term"
	case actionNakWithDelay:
		return "nak"
	}
	return fmt.Sprintf("ackAction(%d)", int(a))
}

// kinds is the table of outcome kinds: their ack action, their label in
// logs, and their outcome label in metrics ("" takes the stored result's
// status).
var outcomeKinds = map[outcomeKind]struct {
	ack    ackAction
	label  string
	metric string
}{
	kindStored:       {actionAck, "", ""},
	kindDeadLettered: {actionTerm, "dead_lettered", telemetry.OutcomeDeadLettered},
	kindRetry:        {actionNakWithDelay, "retry", telemetry.OutcomeRetried},
	kindInterrupted:  {actionNakWithDelay, "interrupted", telemetry.OutcomeInterrupted},
}

func stored(r flowjob.Result, repeat bool) outcome {
	o := outcome{kind: kindStored, status: r.Status, repeat: repeat}
	if r.Error != nil {
		o.code = r.Error.Code
	}
	return o
}

// ack is the outcome's one ack action.
func (o outcome) ack() ackAction { return outcomeKinds[o.kind].ack }

// label names the outcome in logs.
func (o outcome) label() string {
	if o.repeat {
		return "duplicate"
	}
	if l := outcomeKinds[o.kind].label; l != "" {
		return l
	}
	return string(o.status)
}

// metric is the outcome as the metrics and the process span see it: its
// outcome label, its error code, and whether it counts as a finished job
// (a repeat was counted by the delivery that stored the result).
func (o outcome) metric() (name, code string, count bool) {
	name = outcomeKinds[o.kind].metric
	if name == "" {
		switch o.status {
		case flowjob.StatusSucceeded:
			name = telemetry.OutcomeSucceeded
		case flowjob.StatusSuspended:
			name = telemetry.OutcomeSuspended
		default:
			name = telemetry.OutcomeFailed
		}
	}
	return name, o.code, !o.repeat
}

// spanError is the error the process span records ("" for a job that got
// its result, even a failed one: the job was handled).
func (o outcome) spanError() error {
	if o.kind == kindDeadLettered || o.kind == kindRetry {
		return o.cause
	}
	return nil
}
