package flowclient_test

import (
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// approvalOnly grants every job the approval capability.
type approvalOnly struct{}

func (approvalOnly) HostFor(*flowjob.Job) ([]string, sandbox.Host) {
	return []string{flowjob.CapabilityApproval}, nil
}

func TestClientResume(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		e := newEnv(t, url, false)
		signer, err := continuation.NewSigner([]byte("a-continuation-key-for-the-client-tests"), nil)
		if err != nil {
			t.Fatal(err)
		}
		startExecutorWith(t, e.nc, e.cfg, consumer.Options{Hosts: approvalOnly{}, Continuations: signer})
		c := e.client(t)
		ctx := testenv.Context(t, 30*time.Second)

		job := cpfJob("asks", "")
		job.Action.Source = `const a = approval.request({message: 'Send it?'}); return 'answer: ' + a.ok`
		job.Action.InputVariables = nil
		job.Capabilities = []string{flowjob.CapabilityApproval}
		r, err := c.Run(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != flowjob.StatusSuspended || r.Continuation == "" || string(r.Directive.Request) != `{"message":"Send it?"}` {
			t.Fatalf("suspended result: %+v", r)
		}
		done, err := c.Resume(ctx, job, "asks-resumed", r.Continuation, map[string]bool{"ok": true})
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != flowjob.StatusSucceeded || done.Variables["cpfStatus"] != "answer: true" {
			t.Errorf("resumed result: %s %v %+v", done.Status, done.Variables, done.Error)
		}
		// Retrying with the same id answers from the store.
		again, err := c.Resume(ctx, job, "asks-resumed", r.Continuation, map[string]bool{"ok": false})
		if err != nil || again.Variables["cpfStatus"] != "answer: true" {
			t.Errorf("retried resume: %+v, %v", again, err)
		}
	})
}
