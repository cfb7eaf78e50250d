package templatesapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// recordFailure runs a failing job in the sandbox and keeps its failure
// record in the failures stream of the executor configuration cfg on url,
// as an executor does; it returns the job's error.
func recordFailure(t *testing.T, url string, cfg consumer.Config, job *flowjob.Job) flowjob.Error {
	t.Helper()
	res := sandbox.NewInProcess(sandbox.Limits{MaxParallel: 1}.WithDefaults()).Run(context.Background(), actions.Request(job, time.Second))
	report := actions.Ran(res, 1)
	if report.Err == nil {
		t.Fatal("the job did not fail")
	}
	rec, err := failrecord.New(job, flowjob.Result{Status: flowjob.StatusFailed, Error: report.Err, Attempt: 1, CompletedAt: time.Now().UTC()}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := testenv.Context(t, 10*time.Second)
	if _, err := js.CreateOrUpdateStream(ctx, consumer.FailuresStreamConfig(cfg)); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, cfg.Subjects().Failure(job.ID), data); err != nil {
		t.Fatal(err)
	}
	return *report.Err
}

func TestReplayFailedJob(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	exec := consumer.Config{JobsStream: "T_API_JOBS", SubjectPrefix: "apitest"}.WithDefaults()
	job := &flowjob.Job{
		ID: "failed-1", SessionID: "s", FlowID: "f", BlockID: "b", Context: flowjob.ContextFlow,
		TemplateID: "tpl-1", TemplateVersion: 1,
		Action: flowjob.ExecuteScriptAction{
			Type: flowjob.ActionTypeExecuteScript, OutputVariable: "out", OnError: flowjob.OnErrorContinue,
			Source:         "function execute(n) {\n  return n.x.y\n}",
			InputVariables: []flowjob.InputVariable{{Name: "n", Value: "{{n}}"}},
		},
		Variables: map[string]string{"n": "1"},
	}
	orig := recordFailure(t, url, exec, job)

	cfg := testConfig()
	off := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	r := off.authed("POST", "/api/failures/failed-1/replay", nil)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := r.apiErr(t); e.Code != CodeFailuresUnavailable || !strings.Contains(e.Message, "NATS_URL") {
		t.Errorf("without NATS_URL: %+v", e)
	}

	// A broker that does not answer: the caller is told to retry, and not
	// where the broker is or who the service is to it (that is the log's).
	down := cfg
	down.NATSURL = "nats://alice:s3cret@127.0.0.1:1"
	r = startAPI(t, down, openEmbedded(t, down), nil).authed("POST", "/api/failures/failed-1/replay", nil)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := r.apiErr(t); e.Code != CodeFailuresUnavailable || strings.Contains(e.Message, "alice") || strings.Contains(e.Message, "127.0.0.1") ||
		!strings.Contains(e.Message, "try again") || r.header.Get("Retry-After") == "" {
		t.Errorf("broker down: %+v (Retry-After %q)", e, r.header.Get("Retry-After"))
	}

	cfg.NATSURL, cfg.JobsStream, cfg.SubjectPrefix = url, exec.JobsStream, exec.SubjectPrefix
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)

	r = a.authed("POST", "/api/failures/failed-1/replay", nil)
	wantStatus(t, r, http.StatusOK)
	var rep failrecord.Report
	r.json(t, &rep)
	if e := rep.Replay.Error; !rep.SameError || e == nil || e.Code != orig.Code || e.Line != orig.Line || e.Column != orig.Column {
		t.Errorf("replay %+v, original %+v", rep.Replay, orig)
	}
	if rep.TemplateID != "tpl-1" || rep.TemplateVersion != 1 || rep.Original.Error != orig {
		t.Errorf("report %+v", rep)
	}

	r = a.authed("POST", "/api/failures/failed-1/replay", map[string]any{"source": "function execute(n) {\n  return n + '!'\n}"})
	wantStatus(t, r, http.StatusOK)
	rep = failrecord.Report{}
	r.json(t, &rep)
	if rep.Replay.Status != flowjob.StatusSucceeded || rep.Replay.Output == nil || *rep.Replay.Output != "1!" || rep.Replay.Source != "request source" {
		t.Errorf("fixed replay %+v", rep.Replay)
	}
	// A replay whose result event would not fit a broker message fails as
	// the executor would fail the job.
	r = a.authed("POST", "/api/failures/failed-1/replay", map[string]any{"source": "return '\\u0001'.repeat(200000)"})
	wantStatus(t, r, http.StatusOK)
	rep = failrecord.Report{}
	r.json(t, &rep)
	if e := rep.Replay.Error; rep.Replay.Status != flowjob.StatusFailed || rep.Replay.Output != nil || e == nil || e.Code != flowjob.CodeOutputTooLarge || !strings.Contains(e.Message, "max_payload") {
		t.Errorf("a replay too large for a broker message: %+v", rep.Replay.Error)
	}

	for _, tc := range []struct {
		path   string
		body   any
		status int
		code   string
	}{
		{"/api/failures/never-failed/replay", nil, http.StatusNotFound, CodeNotFound},
		{"/api/failures/a.b/replay", nil, http.StatusBadRequest, CodeInvalidID},
		{"/api/failures/failed-1/replay", map[string]any{"source": "  "}, http.StatusUnprocessableEntity, CodeValidationFailed},
		{"/api/failures/failed-1/replay", map[string]any{"sauce": "x"}, http.StatusBadRequest, CodeUnknownField},
	} {
		r := a.authed("POST", tc.path, tc.body)
		wantStatus(t, r, tc.status)
		if e := r.apiErr(t); e.Code != tc.code {
			t.Errorf("%s %v: code %s, want %s (%s)", tc.path, tc.body, e.Code, tc.code, e.Message)
		}
	}
	r = a.do("POST", "/api/failures/failed-1/replay", nil, "X-API-Key", testReadAPIKey)
	wantStatus(t, r, http.StatusForbidden)
}

// TestReplayTemplateVersion replays a job pinned to version 1 of a
// template with version 1 (the failure again) and version 2 (the fix)
// from the API's own store.
func TestReplayTemplateVersion(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	exec := consumer.Config{JobsStream: "T_API_VJOBS", SubjectPrefix: "apiv"}.WithDefaults()
	cfg := testConfig()
	cfg.NATSURL, cfg.JobsStream, cfg.SubjectPrefix = url, exec.JobsStream, exec.SubjectPrefix
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)

	broken := "function execute(n) {\n  return n.x.y\n}"
	tpl := a.create("pinned", broken)
	wantStatus(t, a.authed("PUT", "/api/script-templates/"+tpl.ID.String(), map[string]string{"name": "pinned", "source": "function execute(n) {\n  return n + ' fixed'\n}"}), http.StatusOK)

	pinned := func(id, templateID string) *flowjob.Job {
		return &flowjob.Job{
			ID: id, SessionID: "s", FlowID: "f", BlockID: "b", Context: flowjob.ContextFlow,
			TemplateID: templateID, TemplateVersion: 1,
			Action: flowjob.ExecuteScriptAction{
				Type: flowjob.ActionTypeExecuteScript, OutputVariable: "out", OnError: flowjob.OnErrorContinue,
				Source: broken, InputVariables: []flowjob.InputVariable{{Name: "n", Value: "{{n}}"}},
			},
			Variables: map[string]string{"n": "1"},
		}
	}
	orig := recordFailure(t, url, exec, pinned("pinned-1", tpl.ID.String()))
	recordFailure(t, url, exec, pinned("foreign-1", "crm-lookup"))

	r := a.authed("POST", "/api/failures/pinned-1/replay", map[string]any{"version": 1})
	wantStatus(t, r, http.StatusOK)
	var rep failrecord.Report
	r.json(t, &rep)
	if e := rep.Replay.Error; !rep.SameError || e == nil || *e != orig || rep.Replay.Source != "template version 1" {
		t.Errorf("version 1: %+v, original %+v", rep.Replay, orig)
	}

	r = a.authed("POST", "/api/failures/pinned-1/replay", map[string]any{"version": 2})
	wantStatus(t, r, http.StatusOK)
	rep = failrecord.Report{}
	r.json(t, &rep)
	if rep.Replay.Status != flowjob.StatusSucceeded || rep.Replay.Output == nil || *rep.Replay.Output != "1 fixed" || rep.Replay.Source != "template version 2" {
		t.Errorf("version 2: %+v", rep.Replay)
	}

	// A version the template does not have is named as such, not as a
	// template that does not exist.
	r = a.authed("POST", "/api/failures/pinned-1/replay", map[string]any{"version": 9})
	wantStatus(t, r, http.StatusNotFound)
	if e := r.apiErr(t); !strings.Contains(e.Message, "has no version 9") {
		t.Errorf("no such version: %q, want it to say the template has no version 9", e.Message)
	}

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
	}{
		{"no such version", "/api/failures/pinned-1/replay", map[string]any{"version": 9}, http.StatusNotFound},
		{"source and version", "/api/failures/pinned-1/replay", map[string]any{"version": 2, "source": "return 1"}, http.StatusUnprocessableEntity},
		{"negative version", "/api/failures/pinned-1/replay", map[string]any{"version": -1}, http.StatusUnprocessableEntity},
		{"version zero", "/api/failures/pinned-1/replay", map[string]any{"version": 0}, http.StatusUnprocessableEntity},
		{"empty source", "/api/failures/pinned-1/replay", map[string]any{"source": ""}, http.StatusUnprocessableEntity},
		{"template of another system", "/api/failures/foreign-1/replay", map[string]any{"version": 1}, http.StatusUnprocessableEntity},
	} {
		r := a.authed("POST", tc.path, tc.body)
		if r.status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, r.status, tc.status, r.raw)
		}
	}
}

// TestReplayOfAnotherTenantsJob: with AUTH_JWT_TENANT_CLAIM a token may
// replay a job that asked for host functions only when its claim names the
// job's tenant: the replay runs them for that tenant.
func TestReplayOfAnotherTenantsJob(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	exec := consumer.Config{JobsStream: "T_API_TENANT_JOBS", SubjectPrefix: "apitenant"}.WithDefaults()
	job := &flowjob.Job{
		ID: "acme-failed", SessionID: "s", FlowID: "f", BlockID: "b", Context: flowjob.ContextFlow,
		TenantID: "acme", Capabilities: []string{flowjob.CapabilityKV},
		Action: flowjob.ExecuteScriptAction{
			Type: flowjob.ActionTypeExecuteScript, OutputVariable: "out", OnError: flowjob.OnErrorContinue,
			Source: "throw new Error('boom')",
		},
	}
	recordFailure(t, url, exec, job)
	cfg := testConfig()
	cfg.NATSURL, cfg.JobsStream, cfg.SubjectPrefix = url, exec.JobsStream, exec.SubjectPrefix
	cfg.JWTTenantClaim = "tenants"
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	token := func(tenant string) string {
		return "Bearer " + hsToken(t, testJWTSecret, with(tokenClaims("templates:write"), "tenants", tenant))
	}
	// Another tenant's job is answered as a job that has no record: the
	// answer tells neither that it exists nor whose it is.
	missing := a.do("POST", "/api/failures/acme-missing/replay", nil, "Authorization", token("globex"))
	wantStatus(t, missing, http.StatusNotFound)
	notFound := missing.apiErr(t)
	r := a.do("POST", "/api/failures/acme-failed/replay", nil, "Authorization", token("globex"))
	wantStatus(t, r, http.StatusNotFound)
	if e := r.apiErr(t); e.Code != CodeNotFound || strings.Contains(e.Message, "acme\"") ||
		e.Message != strings.ReplaceAll(notFound.Message, "acme-missing", "acme-failed") {
		t.Errorf("another tenant's token: %+v, want the answer for a job with no record: %+v", e, notFound)
	}
	wantStatus(t, a.do("POST", "/api/failures/acme-failed/replay", nil, "Authorization", token("acme")), http.StatusOK)

	// Without capabilities a replay still shows the job's session
	// variables: bound to its tenant too. A job of no tenant is not bound.
	plain := *job
	plain.ID, plain.Capabilities = "acme-plain", nil
	plain.Variables = map[string]string{"secret": "acme's"}
	plain.Action.Source = "throw new Error(secret)"
	recordFailure(t, url, exec, &plain)
	r = a.do("POST", "/api/failures/acme-plain/replay", nil, "Authorization", token("globex"))
	wantStatus(t, r, http.StatusNotFound)
	if e := r.apiErr(t); strings.Contains(e.Message, "acme's") || e.Code != CodeNotFound {
		t.Errorf("another tenant's token, job without capabilities: %+v", e)
	}
	// A version of the job's template is not read for such a token either.
	r = a.do("POST", "/api/failures/acme-plain/replay", map[string]any{"version": 1}, "Authorization", token("globex"))
	wantStatus(t, r, http.StatusNotFound)
	untenanted := plain
	untenanted.ID, untenanted.TenantID = "no-tenant", ""
	recordFailure(t, url, exec, &untenanted)
	wantStatus(t, a.do("POST", "/api/failures/no-tenant/replay", nil, "Authorization", token("globex")), http.StatusOK)
}
