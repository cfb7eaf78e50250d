package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/sandbox"
)

const (
	failingSource = "function execute(nome) {\n  const partes = nome.split(' ')\n  return partes[3].toUpperCase()\n}\n"
	fixedSource   = "function execute(nome) {\n  const partes = nome.split(' ')\n  return (partes[3] || partes[0]).toUpperCase()\n}\n"
)

// runFailingJob runs a job pinned to version 1 of template templateID whose
// script throws on an executor of b, and returns its result.
func runFailingJob(t *testing.T, b broker, id, templateID string) flowjob.Result {
	t.Helper()
	startExecutor(t, b)
	nc, err := nats.Connect(b.url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	client, err := flowclient.NewClient(nc, flowclient.WithSubjectPrefix(b.names.SubjectPrefix), flowclient.WithResultsStream(b.names.ResultsStream))
	if err != nil {
		t.Fatal(err)
	}
	job := &flowjob.Job{
		ID: id, SessionID: "s-1", FlowID: "f-1", BlockID: "b-1", Context: flowjob.ContextFlow,
		TemplateID: templateID, TemplateVersion: 1,
		Action: flowjob.ExecuteScriptAction{
			Type: flowjob.ActionTypeExecuteScript, Source: failingSource,
			InputVariables: []flowjob.InputVariable{{Name: "nome", Value: "{{contact.name}}"}},
			OutputVariable: "out", OnError: flowjob.OnErrorContinue,
		},
		Variables: map[string]string{"contact.name": "maria silva", "contact.phone": "+55 11 99999-0000"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := client.Run(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Code != flowjob.CodeScriptError || res.Error.Line != 3 {
		t.Fatalf("result %+v, want SCRIPT_ERROR at line 3", res)
	}
	if res.TemplateID != templateID || res.TemplateVersion != 1 || res.SourceSHA256 != flowjob.SourceSHA256(failingSource) {
		t.Fatalf("result provenance %q v%d %q", res.TemplateID, res.TemplateVersion, res.SourceSHA256)
	}
	// The record is published after the result: wait for it.
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := failrecord.Load(ctx, js, failrecord.StreamName(b.names.JobsStream), b.names.Subjects(), id)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failure record: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return *res
}

func TestReplayReproducesTheFailure(t *testing.T) {
	eachBroker(t, func(t *testing.T, b broker) {
		// The template, as the templates API keeps it: v1 fails, v2 is the fix.
		base := startTemplatesAPI(t, embeddedStore)
		code, stdout, stderr := tpl(t, base, failingSource, "create", "--name", "nome", "--source", "-")
		var created struct {
			ID string `json:"id"`
		}
		if code != ExitOK || json.Unmarshal([]byte(stdout), &created) != nil || created.ID == "" {
			t.Fatalf("templates create: exit %d, stdout %s, stderr %s", code, stdout, stderr)
		}
		if code, _, stderr := tpl(t, base, fixedSource, "update", created.ID, "--name", "nome", "--source", "-"); code != ExitOK {
			t.Fatalf("templates update: exit %d, stderr %s", code, stderr)
		}

		id := newJobID("replay")
		orig := runFailingJob(t, b, id, created.ID)
		flags := []string{"replay", "--nats", b.url, "--subject-prefix", b.names.SubjectPrefix, "--jobs-stream", b.names.JobsStream}

		// Same source: the same code, line and column.
		code, stdout, stderr = invocation{args: append(append(flags, "--json"), id)}.run(t)
		if code != ExitFailed {
			t.Fatalf("exit %d, want %d (the replay fails again); stderr: %s", code, ExitFailed, stderr)
		}
		var rep failrecord.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("stdout is not a report: %v: %q", err, stdout)
		}
		e := rep.Replay.Error
		if !rep.SameError || e == nil || e.Code != orig.Error.Code || e.Line != orig.Error.Line || e.Column != orig.Error.Column {
			t.Errorf("replay error %+v, original %+v", e, orig.Error)
		}
		if rep.Original.Error != *orig.Error || rep.TemplateID != created.ID || rep.TemplateVersion != 1 {
			t.Errorf("report %+v", rep)
		}

		// The text form shows both sides.
		code, stdout, _ = invocation{args: append(flags, id)}.run(t)
		if code != ExitFailed || !strings.Contains(stdout, "reproduced: the same code, line and column") ||
			strings.Count(stdout, flowjob.CodeScriptError) != 2 || !strings.Contains(stdout, "template "+created.ID+" v1") {
			t.Errorf("text report:\n%s", stdout)
		}

		// A fixed source succeeds.
		code, stdout, stderr = invocation{args: append(append(flags, "--json", "--source", writeScript(t, fixedSource)), id)}.run(t)
		if code != ExitOK {
			t.Fatalf("fixed: exit %d; stdout %s; stderr: %s", code, stdout, stderr)
		}
		var fixed failrecord.Report
		if err := json.Unmarshal([]byte(stdout), &fixed); err != nil {
			t.Fatal(err)
		}
		if fixed.Replay.Status != flowjob.StatusSucceeded || *fixed.Replay.Output != "MARIA" || fixed.SameError {
			t.Errorf("fixed replay %+v", fixed.Replay)
		}

		// --version N takes the template version's source from the API.
		code, stdout, stderr = invocation{args: append(append(flags, "--version", "2", "--url", base, "--api-key", testAPIKey), id)}.run(t)
		if code != ExitOK || !strings.Contains(stdout, "replay (template version 2)") || !strings.Contains(stdout, "fixed: the replay succeeded") {
			t.Errorf("--version 2: exit %d\n%s\n%s", code, stdout, stderr)
		}
		code, _, stderr = invocation{args: append(append(flags, "--version", "7", "--url", base, "--api-key", testAPIKey), id)}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "has no version 7") {
			t.Errorf("--version 7: exit %d, stderr %s", code, stderr)
		}

		// A job without a record.
		code, _, stderr = invocation{args: append(flags, "never-failed")}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "no failure record of job never-failed") {
			t.Errorf("unknown job: exit %d, stderr %s", code, stderr)
		}
	})
}

func TestReplayUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "give one JOB_ID"},
		{[]string{"replay", "a", "b"}, "give one JOB_ID"},
		{[]string{"replay", "no spaces"}, "is not a job id"},
		{[]string{"replay", "--source", "x.js", "--version", "2", "job-1"}, "not both"},
		{[]string{"replay", "--version", "0", "job-1"}, "--version must be 1 or more"},
		{[]string{"replay", "--jobs-stream", "a.b", "job-1"}, "--jobs-stream"},
	} {
		code, _, stderr := invocation{args: tc.args}.run(t)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestReplayWritesControlCharactersVisibly: what came from the job (a
// contact's text in an error message, an output, a console line) reaches
// the operator's terminal with its control characters escaped, so that an
// escape sequence in it is shown, not obeyed (a black-box probe: ESC ]0;
// retitled the terminal, ESC [2J cleared it); tabs, newlines and accents
// are kept.
func TestReplayWritesControlCharactersVisibly(t *testing.T) {
	hostile := "hi \x1b]0;PWNED\x07\x1b[2J\u009b31m ação"
	out := "saída\x1b[31m"
	var b strings.Builder
	printReplay(&b, failrecord.Report{
		JobID:    "esc-1",
		Original: failrecord.Original{Error: flowjob.Error{Code: flowjob.CodeScriptError, Message: "Error: " + hostile, Line: 1, Column: 1}},
		Replay: failrecord.Outcome{Status: flowjob.StatusSucceeded, Output: &out,
			Logs: []sandbox.LogEntry{{Level: "log", Line: 2, Message: "linha\t1\n" + hostile}}},
	})
	got := b.String()
	if strings.ContainsFunc(got, func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b }) {
		t.Fatalf("a control character reached the output:\n%q", got)
	}
	for _, want := range []string{`hi \x1b]0;PWNED\x07\x1b[2J\u009b31m ação`, `saída\x1b[31m`, "linha\t1\nhi "} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
}
