package templatesapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/templates"
)

func TestTemplatesCRUD(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)

		if got := a.list(); len(got) != 0 {
			t.Fatalf("a new store lists %d templates", len(got))
		}
		first := a.create("first", "return 1")
		second := a.create(" second ", "function execute(x) {\n  return x\n}")
		third := a.create("third", "return 3")
		if second.Name != "second" {
			t.Errorf("name = %q, want it trimmed", second.Name)
		}

		r := a.authed("POST", "/api/script-templates", map[string]string{"name": "located", "description": "d", "source": "return 4"})
		wantStatus(t, r, http.StatusCreated)
		var located savedTemplate
		r.json(t, &located)
		if loc := r.header.Get("Location"); loc != "/api/script-templates/"+located.ID.String() {
			t.Errorf("Location = %q", loc)
		}
		if located.Description != "d" || located.Warnings != nil {
			t.Errorf("created %+v", located)
		}

		list := a.list()
		var ids []uuid.UUID
		for _, tpl := range list {
			ids = append(ids, tpl.ID)
		}
		if want := []uuid.UUID{located.ID, third.ID, second.ID, first.ID}; fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("list order %v, want newest first %v", ids, want)
		}

		r = a.authed("GET", "/api/script-templates/"+second.ID.String(), nil)
		wantStatus(t, r, http.StatusOK)
		var got savedTemplate
		r.json(t, &got)
		if got.ID != second.ID || got.Source != second.Source || !got.CreatedAt.Equal(second.CreatedAt) {
			t.Errorf("GET = %+v, want %+v", got, second)
		}

		r = a.authed("PUT", "/api/script-templates/"+second.ID.String(),
			map[string]string{"name": "renamed", "description": "now described", "source": "return 22"})
		wantStatus(t, r, http.StatusOK)
		var updated savedTemplate
		r.json(t, &updated)
		if updated.ID != second.ID || !updated.CreatedAt.Equal(second.CreatedAt) || updated.Name != "renamed" ||
			updated.Source != "return 22" || updated.UpdatedAt.Before(second.UpdatedAt) {
			t.Errorf("PUT = %+v (was %+v)", updated, second)
		}

		wantStatus(t, a.authed("DELETE", "/api/script-templates/"+first.ID.String(), nil), http.StatusNoContent)
		for _, method := range []string{"GET", "DELETE"} {
			r = a.authed(method, "/api/script-templates/"+first.ID.String(), nil)
			wantStatus(t, r, http.StatusNotFound)
			if e := r.apiErr(t); e.Code != CodeNotFound || !strings.Contains(e.Message, first.ID.String()) {
				t.Errorf("%s of a deleted template: %+v", method, e)
			}
		}
		r = a.authed("PUT", "/api/script-templates/"+first.ID.String(), map[string]string{"name": "x", "source": "return 1"})
		wantStatus(t, r, http.StatusNotFound)
		if n := len(a.list()); n != 3 {
			t.Errorf("%d templates after one delete, want 3", n)
		}
	})
}

type fieldWant struct {
	field, code string
	line, col   int
}

func TestSaveValidation(t *testing.T) {
	tests := []struct {
		name   string
		body   map[string]string
		fields []fieldWant
	}{
		{"name and source missing", map[string]string{}, []fieldWant{{"name", "REQUIRED", 0, 0}, {"source", "REQUIRED", 0, 0}}},
		{"name too long", map[string]string{"name": strings.Repeat("n", 121), "source": "return 1"}, []fieldWant{{"name", "TOO_LONG", 0, 0}}},
		{"name across two lines", map[string]string{"name": "a\u2028b", "source": "return 1"}, []fieldWant{{"name", "INVALID_TEXT", 0, 0}}},
		{"name with a bidirectional override", map[string]string{"name": "cpf\u202eexe.js", "source": "return 1"}, []fieldWant{{"name", "INVALID_TEXT", 0, 0}}},
		{"name that cannot be seen", map[string]string{"name": "\u200b\u200d", "source": "return 1"}, []fieldWant{{"name", "INVALID_TEXT", 0, 0}}},
		{"name of combining marks alone", map[string]string{"name": "\u0301\u20dd", "source": "return 1"}, []fieldWant{{"name", "INVALID_TEXT", 0, 0}}},
		{"description with a bidirectional override", map[string]string{"name": "a", "description": "cpf\u202etxt.exe", "source": "return 1"}, []fieldWant{{"description", "INVALID_TEXT", 0, 0}}},
		{"description with an isolate", map[string]string{"name": "a", "description": "x\u2067y\u2069", "source": "return 1"}, []fieldWant{{"description", "INVALID_TEXT", 0, 0}}},
		{"description too long", map[string]string{"name": "a", "description": strings.Repeat("d", 2001), "source": "return 1"}, []fieldWant{{"description", "TOO_LONG", 0, 0}}},
		{"source over the sandbox cap", map[string]string{"name": "a", "source": "return '" + strings.Repeat("x", 8<<10) + "'"}, []fieldWant{{"source", "TOO_LONG", 0, 0}}},
		{"syntax error with its position", map[string]string{"name": "a", "source": "function execute() {\n  return 1 +\n}"}, []fieldWant{{"source", "SCRIPT_SYNTAX_ERROR", 3, 1}}},
		{"guardrail errors with positions", map[string]string{"name": "a", "source": "function execute(cpf) {\n  const fs = require('fs')\n  return fetch(process.env.URL)\n}"},
			[]fieldWant{{"source", "GUARDRAIL_REQUIRE", 2, 14}, {"source", "GUARDRAIL_NETWORK", 3, 10}, {"source", "GUARDRAIL_PROCESS", 3, 16}}},
		{"timers, eval, Function and async execute", map[string]string{"name": "a", "source": "async function execute() {\n  setTimeout(() => eval('1'), 0)\n  return new Function('x')\n}"},
			[]fieldWant{{"source", "GUARDRAIL_ASYNC_EXECUTE", 1, 1}, {"source", "GUARDRAIL_TIMER", 2, 3}, {"source", "GUARDRAIL_EVAL", 2, 20}, {"source", "GUARDRAIL_FUNCTION_CONSTRUCTOR", 3, 14}}},
		{"import is a syntax error and a finding", map[string]string{"name": "a", "source": "import fs from 'fs'\nreturn 1"},
			[]fieldWant{{"source", "SCRIPT_SYNTAX_ERROR", 1, 1}, {"source", "GUARDRAIL_IMPORT", 1, 1}}},
		{"escaping the wrapper (compiles, but runs outside execute)", map[string]string{"name": "a", "source": "return 1\n}; var escaped = function() {"}, []fieldWant{{"source", "GUARDRAIL_WRAPPER_ESCAPE", 2, 1}}},
		{"escaping the wrapper another way", map[string]string{"name": "a", "source": "return 1\n}, escaped = function() {"}, []fieldWant{{"source", "SCRIPT_SYNTAX_ERROR", 2, 1}}},
		{"every problem at once", map[string]string{"name": " ", "source": "process.exit(1)"}, []fieldWant{{"name", "REQUIRED", 0, 0}, {"source", "GUARDRAIL_PROCESS", 1, 1}}},
	}
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		existing := a.create("existing", "return 1")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				for _, call := range []struct{ method, path string }{
					{"POST", "/api/script-templates"},
					{"PUT", "/api/script-templates/" + existing.ID.String()},
				} {
					r := a.authed(call.method, call.path, tt.body)
					wantStatus(t, r, http.StatusUnprocessableEntity)
					e := r.apiErr(t)
					var got []fieldWant
					for _, f := range e.Fields {
						got = append(got, fieldWant{f.Field, f.Code, f.Line, f.Column})
						if f.Message == "" {
							t.Errorf("field error %+v has no message", f)
						}
					}
					if e.Code != CodeValidationFailed || fmt.Sprint(got) != fmt.Sprint(tt.fields) {
						t.Errorf("%s: %s %v\nwant %v", call.method, e.Code, got, tt.fields)
					}
				}
			})
		}
		list := a.list()
		if len(list) != 1 || list[0].Source != existing.Source || list[0].Name != existing.Name {
			t.Errorf("refused saves changed the store: %+v", list)
		}
	})
}

func TestSaveReturnsWarnings(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	src := "async function helper() {}\nfunction execute() {\n  return globalThis.process ? 'node' : 'sandbox'\n}"
	tpl := a.create("warned", src)
	if len(tpl.Warnings) != 2 {
		t.Fatalf("warnings = %v, want the async helper and globalThis.process", tpl.Warnings)
	}
	want := []struct {
		code      string
		line, col float64
	}{{"GUARDRAIL_ASYNC_FUNCTION", 1, 1}, {"GUARDRAIL_GLOBALTHIS_HOST", 3, 21}}
	for i, w := range want {
		got := tpl.Warnings[i]
		if got["code"] != w.code || got["severity"] != "warning" || got["line"] != w.line || got["column"] != w.col {
			t.Errorf("warning %d = %v, want %+v", i, got, w)
		}
	}
	r := a.authed("GET", "/api/script-templates/"+tpl.ID.String(), nil)
	if strings.Contains(string(r.raw), "warnings") {
		t.Errorf("GET repeats warnings: %s", r.raw)
	}
}

// A save says which capabilities and connectors the source needs granted;
// console is the sandbox's and refuses nothing.
func TestSaveReturnsUses(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	src := "function execute(cpf) {\n  console.log(cpf)\n  const c = api.get('crm', '/c/' + cpf).json\n  kv.set('c', c)\n  return api.post(c.billing, '/i').status\n}"
	tpl := a.create("uses", src)
	if fmt.Sprint(tpl.Uses) != "map[capabilities:[api kv] connectors:[crm]]" {
		t.Errorf("uses = %v, want api and kv, connector crm", tpl.Uses)
	}
	if len(tpl.Warnings) != 1 || tpl.Warnings[0]["code"] != "GUARDRAIL_CONNECTOR_UNKNOWN" || tpl.Warnings[0]["line"] != 5.0 {
		t.Errorf("warnings = %v, want the connector not known at line 5", tpl.Warnings)
	}
	r := a.authed("PUT", "/api/script-templates/"+tpl.ID.String(), map[string]string{"name": "uses", "source": "return 1"})
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(string(r.raw), `"uses":{"capabilities":[],"connectors":[]}`) {
		t.Errorf("update answer %s, want empty uses", r.raw)
	}
	r = a.authed("GET", "/api/script-templates/"+tpl.ID.String(), nil)
	if strings.Contains(string(r.raw), `"uses":`) {
		t.Errorf("GET repeats uses: %s", r.raw)
	}
}

func TestBadInputIsAClear4xxAndWritesNothing(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	existing := a.create("existing", "return 1")
	one := "/api/script-templates/" + existing.ID.String()
	huge := `{"name":"a","source":"` + strings.Repeat("x", int(a.srv.cfg.templateBodyBytes())) + `"}`
	tests := []struct {
		name, method, path, body, contentType string
		status                                int
		code, mention                         string
	}{
		{"malformed JSON", "POST", "/api/script-templates", `{"name": "a",`, "", 400, CodeInvalidJSON, "ends in the middle"},
		{"syntax error", "POST", "/api/script-templates", `{"name": 'a'}`, "", 400, CodeInvalidJSON, "byte"},
		{"unknown field", "POST", "/api/script-templates", `{"name":"a","source":"return 1","workspaceId":"w"}`, "", 400, CodeUnknownField, "workspaceId"},
		{"wrong type", "POST", "/api/script-templates", `{"name":1,"source":"return 1"}`, "", 400, CodeInvalidJSON, "name must be a string"},
		{"not an object", "POST", "/api/script-templates", `["a"]`, "", 400, CodeInvalidJSON, "object"},
		{"empty body", "POST", "/api/script-templates", ``, "", 400, CodeInvalidJSON, "empty"},
		{"two objects", "POST", "/api/script-templates", `{"name":"a","source":"return 1"} {}`, "", 400, CodeInvalidJSON, "exactly one"},
		{"oversized body", "POST", "/api/script-templates", huge, "", 413, CodeBodyTooLarge, "limit"},
		{"not JSON", "POST", "/api/script-templates", `name=a`, "application/x-www-form-urlencoded", 415, CodeUnsupportedMediaType, "application/json"},
		{"JSON in another charset", "POST", "/api/script-templates", `{"name":"a","source":"return 1"}`, "application/json; charset=latin1", 415, CodeUnsupportedMediaType, `"latin1"`},
		{"PUT malformed", "PUT", one, `{`, "", 400, CodeInvalidJSON, ""},
		{"PUT unknown field", "PUT", one, `{"name":"b","source":"return 2","id":"x"}`, "", 400, CodeUnknownField, `"id"`},
		{"id not a uuid: GET", "GET", "/api/script-templates/42", ``, "", 400, CodeInvalidID, `"42"`},
		{"id not a uuid: PUT", "PUT", "/api/script-templates/not-an-id", `{"name":"b","source":"return 2"}`, "", 400, CodeInvalidID, "UUID"},
		{"id not a uuid: DELETE", "DELETE", "/api/script-templates/' OR 1=1 --", ``, "", 400, CodeInvalidID, "UUID"},
		{"id without hyphens", "GET", "/api/script-templates/" + strings.ReplaceAll(existing.ID.String(), "-", ""), ``, "", 400, CodeInvalidID, "UUID"},
		{"unknown route", "GET", "/api/templates", ``, "", 404, CodeNotFound, "/api/templates"},
		{"trailing slash", "GET", "/api/script-templates/", ``, "", 404, CodeNotFound, ""},
		{"unclean path", "GET", "/api/../api/script-templates", ``, "", 404, CodeNotFound, ""},
		{"wrong method", "PATCH", one, `{}`, "", 405, CodeMethodNotAllowed, "DELETE, GET, HEAD, PUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := []string{}
			if tt.contentType != "" {
				header = []string{"Content-Type", tt.contentType}
			}
			var body any
			if tt.body != "" {
				body = tt.body
			}
			r := a.authed(tt.method, tt.path, body, header...)
			wantStatus(t, r, tt.status)
			e := r.apiErr(t)
			if e.Code != tt.code || !strings.Contains(e.Message, tt.mention) {
				t.Errorf("error %+v, want code %s mentioning %q", e, tt.code, tt.mention)
			}
		})
	}
	// A compressed body is refused as such (415), not read as bad UTF-8.
	r := a.authed("POST", "/api/script-templates", `{"name":"a","source":"return 1"}`, "Content-Encoding", "gzip")
	wantStatus(t, r, http.StatusUnsupportedMediaType)
	if e := r.apiErr(t); e.Code != CodeUnsupportedMediaType || !strings.Contains(e.Message, "compressed") {
		t.Errorf("Content-Encoding gzip: %+v, want %s saying the body must not be compressed", e, CodeUnsupportedMediaType)
	}
	list := a.list()
	if len(list) != 1 || list[0].Name != "existing" || list[0].Source != "return 1" {
		t.Errorf("bad requests changed the store: %+v", list)
	}
	r = a.authed("POST", "/api/script-templates", `{"name":"identity","source":"return 1"}`, "Content-Encoding", "identity")
	wantStatus(t, r, http.StatusCreated)
	if r := a.authed("PATCH", one, nil); r.header.Get("Allow") != "DELETE, GET, HEAD, PUT" {
		t.Errorf("405 Allow = %q", r.header.Get("Allow"))
	}
}

// TestAllowNamesEveryServedMethod: a 405's Allow lists every method the
// path answers, HEAD included wherever GET is (net/http serves HEAD on
// every GET route), and none it refuses.
func TestAllowNamesEveryServedMethod(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	id := a.create("x", "return 1").ID.String()
	seen := map[string]bool{}
	for _, rt := range a.srv.routes() {
		path := strings.NewReplacer("{id}", id, "{version}", "1", "{jobId}", "job-1").Replace(rt.path)
		if seen[path] {
			continue
		}
		seen[path] = true
		r := a.authed("PATCH", path, nil)
		wantStatus(t, r, http.StatusMethodNotAllowed)
		allow := strings.Split(r.header.Get("Allow"), ", ")
		if slices.Contains(allow, "GET") != slices.Contains(allow, "HEAD") {
			t.Errorf("PATCH %s: Allow %q, want HEAD beside GET", rt.path, r.header.Get("Allow"))
		}
		if e := r.apiErr(t); !strings.Contains(e.Message, r.header.Get("Allow")) {
			t.Errorf("PATCH %s: the message %q does not name the allowed methods", rt.path, e.Message)
		}
		if slices.Contains(allow, "HEAD") {
			if r := a.authed("HEAD", path, nil); r.status == http.StatusMethodNotAllowed {
				t.Errorf("HEAD %s is in Allow but answers 405", rt.path)
			}
		}
	}
}

func TestBasePathFromConfig(t *testing.T) {
	for _, base := range []string{"/flow-ai/v1", "/"} {
		t.Run(base, func(t *testing.T) {
			cfg := testConfig()
			cfg.BasePath = base
			cfg = cfg.WithDefaults()
			a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
			prefix := strings.TrimRight(base, "/")
			wantStatus(t, a.authed("GET", prefix+"/script-templates", nil), http.StatusOK)
			if base != "/" {
				wantStatus(t, a.authed("GET", "/api/script-templates", nil), http.StatusNotFound)
			}
		})
	}
}

// The guardrails stop at MaxFindings; the answer says there may be more.
func TestSaveSaysWhenFindingsAreCapped(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	src := strings.Repeat("require('x')\n", guardrails.MaxFindings+20) + "return 1"
	r := a.authed("POST", "/api/script-templates", map[string]string{"name": "many", "source": src})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); len(e.Fields) != guardrails.MaxFindings || !strings.Contains(e.Message, "at most 100 findings") {
		t.Errorf("%d fields, message %q; want %d and a word that the check stopped", len(e.Fields), e.Message, guardrails.MaxFindings)
	}
	r = a.authed("POST", "/api/script-templates", map[string]string{"name": "few", "source": "require('x')\nrequire('y')"})
	if e := r.apiErr(t); strings.Contains(e.Message, "at most") {
		t.Errorf("two findings: %q says the check stopped", e.Message)
	}
}
