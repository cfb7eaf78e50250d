package flowjob_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoTransportDependency: engines import flowjob for the types alone;
// it links the standard library and the identifier rule, nothing else (the
// NATS client is flowclient's).
func TestNoTransportDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "github.com/flowscript/flowscript/flowjob", "github.com/flowscript/flowscript/internal/jsident":
		default:
			t.Errorf("flowjob depends on %s: keep transports and libraries out of the wire package", pkg)
		}
	}
}
