package actions

import (
	"errors"

	"github.com/flowscript/flowscript/flowjob"
)

// Verdict is the one decision on a delivery: the job's result event, and
// what to do with it. A delivery gets exactly one (Policy.Decide).
type Verdict struct {
	// Result is the job's result event.
	Result flowjob.Result
	// Answer is true when the job named a usable id (see flowjob.ValidID):
	// Result is stored under it. Otherwise nothing is stored (the executor
	// sends Result only to the job's Reply-To inbox, when it has one).
	Answer bool
	// DeadLetter is true when the job must never run again and is kept for
	// an operator: bad input (INVALID_JOB), deliveries exhausted
	// (DELIVERY_EXHAUSTED), a job that keeps crashing its sandbox worker
	// (SANDBOX_CRASH). The dead letter's code and reason are Result.Error's.
	DeadLetter bool
}

// Option refines Decide for jobs that could not be read faithfully.
type Option func(*decision)

type decision struct {
	invalid    error
	fallbackID string
}

// BadInput says the job broke the contract: err (usually from
// flowjob.Decode, which returns the job as far as it decoded) names the
// fields that broke a rule, and Decide uses only the others. The directive
// is the policy's as far as those fields allow; when the action cannot be
// applied faithfully it is throw in a Tool and freeze_handoff otherwise.
// Ids that broke a rule are left out of the result.
func BadInput(err error) Option {
	return func(d *decision) {
		d.invalid = err
		if d.invalid == nil {
			d.invalid = errors.New("invalid job")
		}
	}
}

// FallbackID is the job id to answer under when the job itself names no
// usable one: the message's Nats-Msg-Id, which engines set to the job id.
// An engine that published a truncated job still gets its answer.
func FallbackID(id string) Option {
	return func(d *decision) { d.fallbackID = id }
}

// deadLetterCodes are the failures after which a job never runs again.
var deadLetterCodes = map[string]bool{
	flowjob.CodeInvalidJob:        true,
	flowjob.CodeDeliveryExhausted: true,
	flowjob.CodeSandboxCrash:      true,
}
