package sandbox

import (
	"context"
	"testing"
	"time"
)

// testLimits are the defaults with a short timeout, so tests of runaway
// scripts stay fast.
func testLimits() Limits {
	return Limits{Timeout: time.Second}.WithDefaults()
}

func run(t *testing.T, source string, inputs ...Input) Result {
	t.Helper()
	return Execute(context.Background(), testLimits(), Request{Source: source, Inputs: inputs})
}

func in(name, value string) Input { return Input{Name: name, Value: value} }

// wantOutput fails unless res succeeded with out.
func wantOutput(t *testing.T, res Result, out string) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("want output %q, got error %v", out, res.Err)
	}
	if res.Output != out {
		t.Fatalf("want output %q, got %q", out, res.Output)
	}
}

// wantError fails unless res failed with code (and, when msg is not empty,
// exactly that message). It returns a copy of the error for more checks.
func wantError(t *testing.T, res Result, code Code, msg string) Error {
	t.Helper()
	if res.Err == nil {
		t.Fatalf("want error %s, got output %q", code, res.Output)
	}
	if res.Err.Code != code {
		t.Fatalf("want error code %s, got %v", code, res.Err)
	}
	if msg != "" && res.Err.Message != msg {
		t.Fatalf("want message %q, got %q", msg, res.Err.Message)
	}
	return *res.Err
}
