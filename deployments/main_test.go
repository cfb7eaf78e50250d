package deployments

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind (the telemetry
// set-up and the go build runs start some).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
