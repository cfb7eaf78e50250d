package consumer

import (
	"errors"
	"fmt"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// outcome is what handling one delivery came to. settle maps each outcome
// to exactly one ack action; there is no other place that acks.
type outcome interface{ isOutcome() }

// resultStored: the job's result is in RESULTS (stored now, or by an earlier
// run when duplicate is true). Ack.
type resultStored struct {
	result    flowjob.Result
	duplicate bool
}

// deadLettered: the job is in DLQ and will never run again. Term.
type deadLettered struct {
	code   string
	reason string
}

// retryLater: a transient failure (the store was unreachable, the sandbox
// worker crashed); another delivery may succeed. Nak with delay.
type retryLater struct {
	cause error
	delay time.Duration
}

// interrupted: the replica is stopping and cut the job short. Nak with a
// delay long enough for this replica's pending pulls to expire, so another
// replica (or this one after a restart) runs it.
type interrupted struct {
	delay time.Duration
}

func (resultStored) isOutcome() {}
func (deadLettered) isOutcome() {}
func (retryLater) isOutcome()   {}
func (interrupted) isOutcome()  {}

// ackAction is the one message operation an outcome leads to.
type ackAction int

const (
	actionAck ackAction = iota + 1
	actionTerm
	actionNakWithDelay
)

// settlement is the ack action for out and, for a Nak, its delay.
func settlement(out outcome) (ackAction, time.Duration) {
	switch o := out.(type) {
	case resultStored:
		return actionAck, 0
	case deadLettered:
		return actionTerm, 0
	case retryLater:
		return actionNakWithDelay, o.delay
	case interrupted:
		return actionNakWithDelay, o.delay
	default:
		panic(fmt.Sprintf("consumer: outcome %T has no ack action", out))
	}
}

func (a ackAction) String() string {
	switch a {
	case actionAck:
		return "ack"
	case actionTerm:
		return "term"
	case actionNakWithDelay:
		return "nak"
	default:
		return fmt.Sprintf("ackAction(%d)", int(a))
	}
}

// jobOutcome is out as telemetry sees it: the outcome label, the error code
// ("" on success), the error to record on the process span, and whether it
// counts as a finished job. A duplicate (the job's result was stored by an
// earlier run, which counted it) takes the stored result's status on its
// span but is not counted again.
func jobOutcome(out outcome) (name, code string, err error, count bool) {
	switch o := out.(type) {
	case resultStored:
		name = telemetry.OutcomeSucceeded
		if o.result.Status != flowjob.StatusSucceeded {
			name = telemetry.OutcomeFailed
		}
		if o.result.Error != nil {
			code = o.result.Error.Code
		}
		return name, code, nil, !o.duplicate
	case deadLettered:
		return telemetry.OutcomeDeadLettered, o.code, errors.New(o.reason), true
	case retryLater:
		if se := sandbox.AsError(o.cause); se != nil {
			code = string(se.Code)
		}
		return telemetry.OutcomeRetried, code, o.cause, true
	case interrupted:
		return telemetry.OutcomeInterrupted, "", nil, true
	default:
		return fmt.Sprintf("%T", out), "", nil, false
	}
}

// outcomeName is the outcome's label in logs.
func outcomeName(out outcome) string {
	switch o := out.(type) {
	case resultStored:
		if o.duplicate {
			return "duplicate"
		}
		return string(o.result.Status)
	case deadLettered:
		return "dead_lettered"
	case retryLater:
		return "retry"
	case interrupted:
		return "interrupted"
	default:
		return fmt.Sprintf("%T", out)
	}
}
