package failrecord

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func failingJob() *flowjob.Job {
	return &flowjob.Job{
		ID: "job-1", SessionID: "s-1", FlowID: "f-1", BlockID: "b-1", Context: flowjob.ContextFlow,
		TemplateID: "tpl-1", TemplateVersion: 1,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         "function execute(nome) {\n  return nome.semNada.length\n}",
			InputVariables: []flowjob.InputVariable{{Name: "nome", Value: "{{ contact.name }}"}},
			OutputVariable: "out", OnError: flowjob.OnErrorBlocking,
			ErrorMessage: "Falhou para {{contact.id}}",
		},
		Variables: map[string]string{"contact.name": "Ana", "contact.id": "42", "contact.cpf": "123.456.789-09"},
	}
}

// A record of a job of markup is as large as its markup: < > & are not
// escaped (six bytes each), so a job that fits a broker message keeps a
// record that fits one too.
func TestEncodeKeepsMarkup(t *testing.T) {
	job := failingJob()
	job.Variables["contact.name"] = strings.Repeat("<b>&</b>", 1000)
	rec, err := New(job, flowjob.Result{JobID: job.ID, Status: flowjob.StatusFailed, Attempt: 1,
		Error: &flowjob.Error{Code: flowjob.CodeScriptError, Message: "<boom>"}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "<b>&</b><b>&</b>") || strings.Contains(string(data), `\u003c`) || len(data) > 10_000 {
		t.Errorf("record of %d bytes escapes the markup: %.200s", len(data), data)
	}
}

// A record keeps the variables the action reads, no continuation token,
// and the failure's facts; it round-trips through its JSON.
func TestNewLeavesOutWhatReplayDoesNotNeed(t *testing.T) {
	job := failingJob()
	job.Resume = &flowjob.Resume{Token: "v1.signed-continuation", Resolution: json.RawMessage(`{"approved":true}`)}
	res := flowjob.Result{JobID: job.ID, Status: flowjob.StatusFailed, Attempt: 2, CompletedAt: time.Unix(100, 0).UTC(),
		Error: &flowjob.Error{Code: flowjob.CodeScriptError, Message: "boom", Line: 2, Column: 15}}
	rec, err := New(job, res, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "signed-continuation") || strings.Contains(string(data), "123.456.789-09") {
		t.Fatalf("the record keeps the token or an unread variable: %s", data)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Job.Variables) != 2 || got.Job.Variables["contact.name"] != "Ana" || got.Job.Variables["contact.id"] != "42" {
		t.Errorf("variables %v, want contact.name and contact.id", got.Job.Variables)
	}
	if !slices.Equal(got.Omitted, []string{"resume.token", "variables"}) {
		t.Errorf("omitted %v", got.Omitted)
	}
	if got.Job.Resume == nil || string(got.Job.Resume.Resolution) != `{"approved":true}` || got.Job.Resume.Token != "" {
		t.Errorf("resume %+v: want the resolution without the token", got.Job.Resume)
	}
	if got.TimeoutMs != 1500 || got.Attempt != 2 || got.Error != *res.Error || got.SourceSHA256 != flowjob.SourceSHA256(job.Action.Source) {
		t.Errorf("record %+v", got)
	}
	if job.Resume.Token == "" || len(job.Variables) != 3 {
		t.Error("New changed the job it was given")
	}
	if _, err := Decode([]byte(`{"version":9,"job":{"id":"x","action":{"source":"1"}}}`)); err == nil {
		t.Error("a record of an unknown format version was read")
	}
}

// Replay reproduces the recorded failure at the same code, line and
// column, and a fixed source succeeds.
func TestReplayReproducesAndFixes(t *testing.T) {
	runner := sandbox.NewInProcess(sandbox.Limits{MaxParallel: 1}.WithDefaults())
	job := failingJob()
	ctx := context.Background()
	first := Replay(ctx, runner, Record{Version: 1, Job: *job, TimeoutMs: 1000}, Options{})
	if first.Replay.Error == nil {
		t.Fatalf("the failing job succeeded: %+v", first.Replay)
	}
	rec, err := New(job, flowjob.Result{Status: flowjob.StatusFailed, Error: first.Replay.Error}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	again := Replay(ctx, runner, rec, Options{})
	if !again.SameError || again.Replay.Status != flowjob.StatusFailed || again.Replay.Source != "recorded" {
		t.Errorf("replay %+v, want the same error", again)
	}
	if e := again.Replay.Error; e.Code != flowjob.CodeScriptError || e.Line != 2 || e.Column == 0 {
		t.Errorf("error %+v, want SCRIPT_ERROR at line 2", e)
	}
	fixed := Replay(ctx, runner, rec, Options{Source: "function execute(nome) {\n  return nome.length\n}", SourceLabel: "file fix.js"})
	if fixed.SameError || fixed.Replay.Status != flowjob.StatusSucceeded || *fixed.Replay.Output != "3" || fixed.Replay.Source != "file fix.js" {
		t.Errorf("fixed replay %+v, want success with output 3", fixed.Replay)
	}
	if fixed.Replay.SourceSHA256 == rec.SourceSHA256 || fixed.Original.SourceSHA256 != rec.SourceSHA256 {
		t.Error("the fixed replay reports the recorded source's hash")
	}
}

func TestScriptFailure(t *testing.T) {
	for code, want := range map[string]bool{
		flowjob.CodeScriptError: true, flowjob.CodeTimeout: true, flowjob.CodeMemoryLimit: true, flowjob.CodeSyntaxError: true,
		flowjob.CodeInvalidJob: false, flowjob.CodeSandboxCrash: false, flowjob.CodeDeliveryExhausted: false,
		flowjob.CodeDeadlineExceeded: false, flowjob.CodeInvalidContinuation: false,
	} {
		if got := ScriptFailure(code); got != want {
			t.Errorf("ScriptFailure(%s) = %v, want %v", code, got, want)
		}
	}
}
