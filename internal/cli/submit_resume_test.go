package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// policyHosts grants what a job asks for (the executor's policy is not
// what these tests are about).
type policyHosts struct{}

func (policyHosts) HostFor(job *flowjob.Job) ([]string, sandbox.Host) { return job.Capabilities, nil }

func TestSubmitSuspendsAndResumes(t *testing.T) {
	b := newBroker(t, testenv.EmbeddedNATS(t).ClientURL())
	signer, err := continuation.NewSigner([]byte("a-continuation-key-for-the-cli-tests-0123"), nil)
	if err != nil {
		t.Fatal(err)
	}
	startExecutorWith(t, b, consumer.Options{Hosts: policyHosts{}, Continuations: signer})
	script := writeScript(t, "const a = approval.request({message: 'ok?'})\nreturn 'got ' + JSON.stringify(a)\n")
	job := append(append([]string{"submit"}, b.flags()...), "--source", script, "--tenant", "acme", "--capability", "approval")

	code, stdout, stderr := invocation{args: job}.run(t)
	if code != ExitOK {
		t.Fatalf("submit: exit %d; stderr: %s", code, stderr)
	}
	suspended := decodeResult(t, stdout)
	if suspended.Status != flowjob.StatusSuspended || suspended.Continuation == "" {
		t.Fatalf("first submit: %+v", suspended)
	}

	resume := append(slices.Clone(job), "--resume", suspended.Continuation, "--resolution", `{"approved":true}`)
	code, stdout, stderr = invocation{args: resume}.run(t)
	if code != ExitOK {
		t.Fatalf("resume: exit %d; stderr: %s", code, stderr)
	}
	done := decodeResult(t, stdout)
	if done.Status != flowjob.StatusSucceeded || done.Variables["result"] != `got {"approved":true}` || done.JobID == suspended.JobID {
		t.Errorf("resumed: %+v", done)
	}

	// Again, under a new id: the continuation was used.
	code, stdout, _ = invocation{args: resume}.run(t)
	if r := decodeResult(t, stdout); code != ExitFailed || r.Error == nil || r.Error.Code != flowjob.CodeContinuationUsed {
		t.Errorf("second resume: exit %d, %+v", code, r.Error)
	}

	for _, bad := range [][]string{
		{"--resolution", "true"},
		{"--resume", "x.y", "--resolution", "{not json"},
		{"--capability", "teleport"},
	} {
		code, _, stderr := invocation{args: append(append([]string{}, job...), bad...)}.run(t)
		if code != ExitUsage || !strings.Contains(stderr, "--") && !strings.Contains(stderr, "capability") {
			t.Errorf("%v: exit %d; stderr: %s", bad, code, stderr)
		}
	}
}
