package sandbox

import (
	"strings"
	"testing"

	"github.com/flowscript/flowscript/flowjob"
)

// The sandbox's source and input caps are a job's own, and a setting above
// them is refused: the templates API would otherwise test and save scripts
// no job can carry.
func TestLimitsStayWithinAJob(t *testing.T) {
	if DefaultMaxSourceBytes != flowjob.MaxSourceBytes || DefaultMaxInputBytes != flowjob.MaxInputBytes {
		t.Fatalf("defaults %d/%d, a job's caps %d/%d", DefaultMaxSourceBytes, DefaultMaxInputBytes, flowjob.MaxSourceBytes, flowjob.MaxInputBytes)
	}
	if err := (Limits{}).WithDefaults().Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	l := Limits{MaxSourceBytes: flowjob.MaxSourceBytes + 1, MaxInputBytes: flowjob.MaxInputBytes + 1}.WithDefaults()
	err := l.Validate()
	for _, want := range []string{"SANDBOX_MAX_SOURCE_BYTES must be between 1 and 262144", "SANDBOX_MAX_INPUT_BYTES must be between 1 and 1048576"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}
