package consumer

import (
	"testing"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// A job's outcome label says what became of it: a paused job (approval)
// is no failure, so the failure ratio does not count approvals.
func TestOutcomeMetricOfAStoredResult(t *testing.T) {
	for status, want := range map[flowjob.Status]string{
		flowjob.StatusSucceeded: telemetry.OutcomeSucceeded,
		flowjob.StatusSuspended: telemetry.OutcomeSuspended,
		flowjob.StatusFailed:    telemetry.OutcomeFailed,
	} {
		if got, _, _ := (outcome{status: status}).metric(); got != want {
			t.Errorf("status %s: outcome %q, want %q", status, got, want)
		}
	}
}
