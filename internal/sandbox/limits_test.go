package sandbox

import (
	"strings"
	"testing"
	"time"

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

func TestLimitsFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	l, err := LimitsFromEnv(env(nil))
	if err != nil || l != (Limits{}).WithDefaults() {
		t.Fatalf("no variables: %+v, %v; want the defaults", l, err)
	}
	l, err = LimitsFromEnv(env(map[string]string{"SANDBOX_TIMEOUT_MS": "250", "SANDBOX_MAX_PARALLEL": "3"}))
	if err != nil || l.Timeout != 250*time.Millisecond || l.MaxParallel != 3 {
		t.Fatalf("set: %+v, %v", l, err)
	}
	// Spaces around a value (pasted from a YAML file or a shell) are no
	// part of it, as in the executor's other variables; a blank value is unset.
	l, err = LimitsFromEnv(env(map[string]string{
		"SANDBOX_TIMEOUT_MS": " 250\n", "SANDBOX_TIMEZONE": "America/Sao_Paulo ", "SANDBOX_MEMORY_MB": "  ",
	}))
	if err != nil || l.Timeout != 250*time.Millisecond || l.TimeZone.String() != "America/Sao_Paulo" || l.MemoryMB != (Limits{}).WithDefaults().MemoryMB {
		t.Fatalf("values with spaces: %+v, %v", l, err)
	}
	for vars, want := range map[string]string{
		// 0 is out of range, not unset
		"SANDBOX_TIMEOUT_MS=0":       "SANDBOX_TIMEOUT_MS must be between 1 and 600000, got 0",
		"SANDBOX_MAX_PARALLEL=0":     "SANDBOX_MAX_PARALLEL must be between 1 and 1024, got 0",
		"SANDBOX_MEMORY_MB=0":        "SANDBOX_MEMORY_MB must be between 1 and 4096, got 0",
		"SANDBOX_MAX_LOG_BYTES=0":    "SANDBOX_MAX_LOG_BYTES must be between 64 and 1048576, got 0",
		"SANDBOX_MAX_OUTPUT_BYTES=0": "SANDBOX_MAX_OUTPUT_BYTES must be positive, got 0",
		// a number of milliseconds that would wrap as a duration
		"SANDBOX_TIMEOUT_MS=18446744073711": "SANDBOX_TIMEOUT_MS must be between 1 and 600000, got 18446744073711",
		"SANDBOX_TIMEOUT_MS=-5":             "SANDBOX_TIMEOUT_MS must be between 1 and 600000, got -5",
		"SANDBOX_MAX_PARALLEL=soon":         `SANDBOX_MAX_PARALLEL must be a whole number, got "soon"`,
		"SANDBOX_TIMEZONE=Nowhere/X":        `SANDBOX_TIMEZONE must be an IANA zone name such as UTC or America/Sao_Paulo, got "Nowhere/X"`,
		// Go's name for the host's zone, which must never reach a script
		"SANDBOX_TIMEZONE=Local": `got "Local" (the host's zone, which scripts never see)`,
	} {
		name, value, _ := strings.Cut(vars, "=")
		if _, err := LimitsFromEnv(env(map[string]string{name: value})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", vars, err, want)
		}
	}
}
