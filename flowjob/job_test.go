package flowjob

import (
	"encoding/json"
	"testing"
	"time"
)

// A resume job is the suspended job's step under a new id, with its own
// copies of what the engine may change afterwards, and without the first
// run's deadline (an approval may come long after it).
func TestResumeWithCopiesAndDropsTheDeadline(t *testing.T) {
	j := validJob()
	deadline := time.Now().Add(3 * time.Second)
	handoff := false
	j.Deadline, j.Action.ErrorHandoff, j.DefaultExceptionBlockID = &deadline, &handoff, "exception"
	j.Variables = map[string]string{"contact.name": "maria"}
	j.TenantID, j.Capabilities = "acme", []string{CapabilityApproval}
	resolution := json.RawMessage(`{"approved":true}`)

	r := j.ResumeWith("resume-1", "token", resolution)
	if r.ID != "resume-1" || r.SessionID != j.SessionID || r.Action.Source != j.Action.Source ||
		r.Resume == nil || r.Resume.Token != "token" || string(r.Resume.Resolution) != `{"approved":true}` {
		t.Fatalf("ResumeWith = %+v, want the same step under resume-1 with the token and resolution", r)
	}
	if r.Deadline != nil {
		t.Errorf("the resume job has the first run's deadline %v, want none", r.Deadline)
	}
	if j.Deadline != &deadline {
		t.Error("ResumeWith changed the suspended job's deadline")
	}

	j.Variables["contact.name"] = "changed"
	j.Action.InputVariables[0].Value = "changed"
	j.Capabilities[0] = "changed"
	handoff = true
	resolution[2] = 'X'
	if r.Variables["contact.name"] != "maria" || r.Action.InputVariables[0].Value != "{{contact.name}}" ||
		r.Capabilities[0] != CapabilityApproval || r.Action.Handoff() || string(r.Resume.Resolution) != `{"approved":true}` {
		t.Errorf("changing the suspended job after ResumeWith changed the resume job: %+v", r)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("the resume job does not validate: %v", err)
	}
}
