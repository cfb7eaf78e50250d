package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
	"github.com/flowscript/flowscript/internal/templatesapi"
)

const (
	testAPIKey    = "cli-test-key-0123456789abcdef"
	testJWTSecret = "cli-test-secret-0123456789abcdef-0123456789"
)

// startTemplatesAPI serves the templates API in process over store and
// returns its base URL (…/api).
func startTemplatesAPI(t *testing.T, open func(t *testing.T, maxSource int) templates.Store) string {
	t.Helper()
	cfg := templatesapi.Config{
		APIKeys:     []string{testAPIKey},
		JWTSecret:   testJWTSecret,
		JWTAudience: []string{"flowscript-templates"},
		JWTIssuer:   "https://issuer.example.com/",
		Sandbox:     sandbox.Limits{Timeout: time.Second, MaxParallel: 2}.WithDefaults(),
	}.WithDefaults()
	srv, err := templatesapi.NewServer(cfg, open(t, cfg.Sandbox.MaxSourceBytes), sandbox.NewInProcess(cfg.Sandbox), guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL + "/api"
}

func embeddedStore(t *testing.T, maxSource int) templates.Store {
	s, err := templates.OpenEmbedded(t.TempDir(), templates.Options{MaxSourceBytes: maxSource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func postgresStore(t *testing.T, maxSource int) templates.Store {
	url := storetest.PostgresSchemaURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := templates.OpenPostgres(ctx, url, templates.Options{MaxSourceBytes: maxSource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// tpl runs `flowscript templates args...` against base with the test key.
func tpl(t *testing.T, base string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return invocation{
		args:  append([]string{"templates"}, args...),
		stdin: stdin,
		env:   map[string]string{"FLOWSCRIPT_API_URL": base, "FLOWSCRIPT_API_KEY": testAPIKey},
	}.run(t)
}

type templateJSON struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Source      string    `json:"source"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Warnings    []any     `json:"warnings"`
}

func oneJSON(t *testing.T, stdout string, v any) {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("stdout is not the JSON expected: %v: %q", err, stdout)
	}
}

func TestTemplatesLifecycle(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(t *testing.T, maxSource int) templates.Store
	}{{"embedded", embeddedStore}, {"postgres", postgresStore}} {
		t.Run(store.name, func(t *testing.T) {
			base := startTemplatesAPI(t, store.open)
			cpf := writeScript(t, cpfScript)

			code, stdout, stderr := tpl(t, base, "", "list")
			if code != ExitOK || stdout != "[]\n" {
				t.Fatalf("list on an empty store: exit %d, stdout %q; stderr: %s", code, stdout, stderr)
			}

			code, stdout, stderr = tpl(t, base, "", "create", "--name", "Valida CPF", "--description", "11 digits", "--source", cpf)
			if code != ExitOK {
				t.Fatalf("create: exit %d; stderr: %s", code, stderr)
			}
			var created templateJSON
			oneJSON(t, stdout, &created)
			if created.ID == "" || created.Name != "Valida CPF" || created.Source != cpfScript || created.Description != "11 digits" {
				t.Fatalf("created = %+v", created)
			}
			code, stdout, stderr = tpl(t, base, "return 2", "create", "--source", "-", "--name", "two")
			var two templateJSON
			if code != ExitOK {
				t.Fatalf("create from stdin: exit %d; stderr: %s", code, stderr)
			}
			if oneJSON(t, stdout, &two); two.Source != "return 2" {
				t.Errorf("created from stdin = %+v", two)
			}

			code, stdout, stderr = tpl(t, base, "", "get", created.ID)
			var got templateJSON
			if code != ExitOK {
				t.Fatalf("get: exit %d; stderr: %s", code, stderr)
			}
			oneJSON(t, stdout, &got)
			if got.ID != created.ID || got.Source != cpfScript {
				t.Errorf("get = %+v", got)
			}

			code, stdout, stderr = tpl(t, base, "", "list")
			var list []templateJSON
			if code != ExitOK {
				t.Fatalf("list: exit %d; stderr: %s", code, stderr)
			}
			oneJSON(t, stdout, &list)
			if len(list) != 2 {
				t.Errorf("list = %+v, want 2 templates", list)
			}
			code, stdout, _ = tpl(t, base, "", "list", "--table")
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if code != ExitOK || len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "DESCRIPTION") ||
				!strings.Contains(stdout, created.ID+"  Valida CPF") || !strings.Contains(stdout, "11 digits") {
				t.Errorf("list --table: exit %d:\n%s", code, stdout)
			}

			// update keeps the description unless --description is given.
			code, stdout, stderr = tpl(t, base, "return 3", "update", created.ID, "--name", "Valida CPF", "--source", "-")
			var updated templateJSON
			if code != ExitOK {
				t.Fatalf("update: exit %d; stderr: %s", code, stderr)
			}
			if oneJSON(t, stdout, &updated); updated.Description != "11 digits" || updated.Source != "return 3" {
				t.Errorf("update without --description = %+v, want the description kept", updated)
			}
			code, stdout, stderr = tpl(t, base, "return 4", "update", created.ID, "--name", "Valida CPF", "--description", "", "--source", "-")
			if code != ExitOK {
				t.Fatalf("update: exit %d; stderr: %s", code, stderr)
			}
			if oneJSON(t, stdout, &updated); updated.Description != "" {
				t.Errorf("update --description '' = %+v, want it cleared", updated)
			}

			code, stdout, stderr = tpl(t, base, "", "delete", created.ID)
			if code != ExitOK || stdout != `{"deleted":true,"id":"`+created.ID+`"}`+"\n" {
				t.Errorf("delete: exit %d, stdout %q; stderr: %s", code, stdout, stderr)
			}
			code, stdout, stderr = tpl(t, base, "", "get", created.ID)
			if code != ExitFailed || stdout != "" || !strings.Contains(stderr, "the API answered 404") || !strings.Contains(stderr, `"code":"NOT_FOUND"`) {
				t.Errorf("get after delete: exit %d, stdout %q; stderr: %s", code, stdout, stderr)
			}
			code, _, stderr = tpl(t, base, "", "delete", created.ID)
			if code != ExitFailed || !strings.Contains(stderr, `"code":"NOT_FOUND"`) {
				t.Errorf("delete twice: exit %d; stderr: %s", code, stderr)
			}
		})
	}
}

func TestTemplatesAPIErrors(t *testing.T) {
	base := startTemplatesAPI(t, embeddedStore)
	t.Run("syntax error refused with its line", func(t *testing.T) {
		code, stdout, stderr := tpl(t, base, "", "create", "--name", "broken", "--source", writeScript(t, "function execute() {\n  return (1 +\n}\n"))
		if code != ExitFailed || stdout != "" {
			t.Fatalf("exit %d, stdout %q", code, stdout)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "the API answered 422") {
			t.Fatalf("stderr = %q, want a status line and the API's JSON error", stderr)
		}
		var body struct {
			Error struct {
				Code   string `json:"code"`
				Fields []struct {
					Field string `json:"field"`
					Line  int    `json:"line"`
				} `json:"fields"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[1]), &body); err != nil {
			t.Fatalf("the second line is not the API's JSON error: %v", err)
		}
		if body.Error.Code != "VALIDATION_FAILED" || len(body.Error.Fields) == 0 || body.Error.Fields[0].Field != "source" || body.Error.Fields[0].Line == 0 {
			t.Errorf("error = %+v", body.Error)
		}
	})
	t.Run("bad id", func(t *testing.T) {
		code, _, stderr := tpl(t, base, "", "get", "not-a-uuid")
		if code != ExitFailed || !strings.Contains(stderr, `"code":"INVALID_ID"`) {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
	t.Run("no credential", func(t *testing.T) {
		code, _, stderr := invocation{args: []string{"templates", "list", "--url", base}}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, `"code":"UNAUTHENTICATED"`) || !strings.Contains(stderr, "set FLOWSCRIPT_API_KEY") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		code, _, stderr := invocation{args: []string{"templates", "list", "--url", base, "--api-key", "wrong-key-0123456789abcdef"}}.run(t)
		if code != ExitFailed || !strings.Contains(stderr, "the API answered 401") || strings.Contains(stderr, "No credential was sent") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
	t.Run("bearer token", func(t *testing.T) {
		now := time.Now()
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": "author@example.com", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
			"aud": "flowscript-templates", "iss": "https://issuer.example.com/", "scope": "templates:read",
		}).SignedString([]byte(testJWTSecret))
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := invocation{args: []string{"templates", "list", "--url", base + "/"},
			env: map[string]string{"FLOWSCRIPT_TOKEN": token}}.run(t)
		if code != ExitOK || !strings.HasPrefix(stdout, "[") {
			t.Errorf("exit %d, stdout %q; stderr: %s", code, stdout, stderr)
		}
	})
	t.Run("not the API", func(t *testing.T) {
		code, _, stderr := tpl(t, strings.TrimSuffix(base, "/api")+"/elsewhere", "", "list")
		// Unknown paths answer the API's 404 to an authenticated caller.
		if code != ExitFailed || !strings.Contains(stderr, `"code":"NOT_FOUND"`) {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
	t.Run("nobody listening", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		code, _, stderr := tpl(t, "http://"+addr+"/api", "", "list", "--timeout", "5s")
		if code != ExitFailed || !strings.Contains(stderr, "is the templates API running there? Set --url or FLOWSCRIPT_API_URL") {
			t.Errorf("exit %d; stderr: %s", code, stderr)
		}
	})
}

func TestTemplatesTest(t *testing.T) {
	base := startTemplatesAPI(t, embeddedStore)
	cpf := writeScript(t, cpfScript)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		check func(t *testing.T, res map[string]any)
	}{
		{"output", []string{"--source", cpf, "--input", "cpf=123.456.789-09"}, "", ExitOK, func(t *testing.T, res map[string]any) {
			if res["ok"] != true || res["output"] != "valido" {
				t.Errorf("res = %v", res)
			}
		}},
		// Inputs reach execute by position, in the order of the flags.
		{"inputs by position", []string{"--source", "-", "--input", "a=x", "--input", "b=y"}, "function execute(b, a) { return b + '-' + a }", ExitOK,
			func(t *testing.T, res map[string]any) {
				if res["output"] != "x-y" {
					t.Errorf("res = %v", res)
				}
			}},
		{"script error", []string{"--source", "-"}, "throw new Error('boom')", ExitFailed, func(t *testing.T, res map[string]any) {
			e, _ := res["error"].(map[string]any)
			if res["ok"] != false || e["code"] != string(sandbox.CodeScriptError) || !strings.Contains(e["message"].(string), "boom") {
				t.Errorf("res = %v", res)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := tpl(t, base, tc.stdin, append([]string{"test"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			var res map[string]any
			oneJSON(t, stdout, &res)
			if _, ok := res["findings"]; !ok {
				t.Errorf("no findings in %v", res)
			}
			tc.check(t, res)
		})
	}
}

func TestTemplatesUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no subcommand", nil, "missing the subcommand: list, get, create, update, versions, delete or test"},
		{"unknown subcommand", []string{"rename"}, `unknown subcommand "rename"`},
		{"limit zero", []string{"list", "--limit", "0"}, "--limit must be from 1 to 200, got 0"},
		{"limit over the API's maximum", []string{"list", "--limit", "201"}, "--limit must be from 1 to 200"},
		{"cursor without limit", []string{"list", "--cursor", "abc"}, "give --limit too"},
		{"version zero", []string{"versions", "x", "--version", "0"}, "--version must be 1 or more"},
		{"versions without id", []string{"versions"}, "versions takes one template ID, got 0"},
		{"update without name", []string{"update", "x", "--source", "x.js"}, "update needs --name"},
		{"update without source", []string{"update", "x", "--name", "n"}, "update needs --source FILE"},
		{"get without id", []string{"get"}, "get takes one template ID, got 0"},
		{"delete two ids", []string{"delete", "a", "b"}, "delete takes one template ID, got 2"},
		{"list with argument", []string{"list", "x"}, `list takes no argument, got "x"`},
		{"create without name", []string{"create", "--source", "x.js"}, "create needs --name"},
		{"create without source", []string{"create", "--name", "n"}, "create needs --source FILE"},
		{"test without source", []string{"test"}, "test needs --source FILE"},
		{"key and token", []string{"list", "--api-key", "k", "--token", "t"}, "give --api-key or --token, not both"},
		{"bad url", []string{"list", "--url", "127.0.0.1:8081"}, "--url must be the API's base URL"},
		{"flag of another subcommand", []string{"get", "x", "--table"}, "flag provided but not defined: --table"},
		{"bad input", []string{"test", "--source", "x.js", "--input", "noequals"}, "want name=value"},
		{"missing source file", []string{"create", "--name", "n", "--source", "/nonexistent.js"}, "opening the script"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invocation{args: append([]string{"templates"}, tc.args...)}.run(t)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "flowscript help templates") {
				t.Errorf("exit %d, stdout %q; stderr: %s", code, stdout, stderr)
			}
		})
	}
}

func TestHelpOfTheNewCommands(t *testing.T) {
	for _, name := range []string{"submit", "bench", "templates"} {
		code, stdout, _ := invocation{args: []string{"help", name}}.run(t)
		if code != ExitOK || !strings.Contains(stdout, "Usage:\n  flowscript "+name) || !strings.Contains(stdout, "Examples:\n  ") {
			t.Errorf("help %s: exit %d:\n%s", name, code, stdout)
		}
		code, stdout2, _ := invocation{args: []string{name, "--help"}}.run(t)
		if code != ExitOK || stdout2 != stdout {
			t.Errorf("%s --help: exit %d, and not the help text", name, code)
		}
		code, list, _ := invocation{args: []string{"help"}}.run(t)
		if code != ExitOK || !strings.Contains(list, "\n  "+name+" ") {
			t.Errorf("the command list lacks %s:\n%s", name, list)
		}
	}
}

func TestTemplatesPagesAndVersions(t *testing.T) {
	var store templates.Store
	base := startTemplatesAPI(t, func(t *testing.T, maxSource int) templates.Store {
		store = embeddedStore(t, maxSource)
		return store
	})
	const n = 205 // two pages when list walks them
	for i := range n {
		if _, err := store.Create(context.Background(), templates.Draft{Name: fmt.Sprintf("tpl %03d", i), Source: "return 1"}); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := tpl(t, base, "", "list")
	var list []templateJSON
	if code != ExitOK || stderr != "" {
		t.Fatalf("list: exit %d; stderr: %s", code, stderr)
	}
	if oneJSON(t, stdout, &list); len(list) != n || list[0].Name != "tpl 204" || list[n-1].Name != "tpl 000" {
		t.Fatalf("list walked %d templates (first %q), want all %d newest first", len(list), list[0].Name, n)
	}

	// One page, and the cursor that continues it on stderr.
	code, stdout, stderr = tpl(t, base, "", "list", "--limit", "2", "--name", "TPL 20")
	if code != ExitOK {
		t.Fatalf("list --limit: exit %d; stderr: %s", code, stderr)
	}
	oneJSON(t, stdout, &list)
	_, hint, ok := strings.Cut(strings.TrimSpace(stderr), "more templates follow: ")
	if len(list) != 2 || list[0].Name != "tpl 204" || !ok || !strings.Contains(hint, `--name "TPL 20"`) {
		t.Fatalf("list --limit 2 --name: %+v; stderr %q", list, stderr)
	}
	fields := strings.Fields(hint)
	code, stdout, stderr = tpl(t, base, "", "list", "--limit", "2", "--cursor", fields[3], "--name", "TPL 20")
	if code != ExitOK {
		t.Fatalf("list --cursor: exit %d; stderr: %s", code, stderr)
	}
	if oneJSON(t, stdout, &list); len(list) != 2 || list[0].Name != "tpl 202" {
		t.Errorf("second page = %+v", list)
	}
	code, _, stderr = tpl(t, base, "", "list", "--limit", "2", "--cursor", fields[3]+"x")
	if code != ExitFailed || !strings.Contains(stderr, "INVALID_CURSOR") {
		t.Errorf("a damaged cursor: exit %d; stderr %s", code, stderr)
	}
	code, stdout, _ = tpl(t, base, "", "list", "--name", "tpl 2", "--table")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != ExitOK || len(lines) != 6 || !strings.Contains(lines[0], "VERSION") {
		t.Errorf("list --name --table: exit %d:\n%s", code, stdout)
	}

	// Versions: update stores the next one; the first stays readable.
	id := list[0].ID
	code, stdout, stderr = tpl(t, base, "return 2", "update", id, "--name", "renamed", "--source", "-")
	var updated struct {
		Version int `json:"version"`
	}
	if code != ExitOK {
		t.Fatalf("update: exit %d; stderr: %s", code, stderr)
	}
	if oneJSON(t, stdout, &updated); updated.Version != 2 {
		t.Errorf("update answered version %d, want 2", updated.Version)
	}
	code, stdout, stderr = tpl(t, base, "", "versions", id)
	var versions []map[string]any
	if code != ExitOK {
		t.Fatalf("versions: exit %d; stderr: %s", code, stderr)
	}
	if oneJSON(t, stdout, &versions); len(versions) != 2 || versions[0]["name"] != "renamed" || versions[1]["version"] != 1.0 {
		t.Errorf("versions = %v", versions)
	}
	code, stdout, stderr = tpl(t, base, "", "versions", id, "--version", "1")
	var first map[string]any
	if code != ExitOK {
		t.Fatalf("versions --version 1: exit %d; stderr: %s", code, stderr)
	}
	if oneJSON(t, stdout, &first); first["source"] != "return 1" || first["name"] != "tpl 202" {
		t.Errorf("version 1 = %v", first)
	}
	code, _, stderr = tpl(t, base, "", "versions", id, "--version", "3")
	if code != ExitFailed || !strings.Contains(stderr, "has no version 3") {
		t.Errorf("a missing version: exit %d; stderr %s", code, stderr)
	}
}

// TestTemplatesUpdateDoesNotOverwriteAnUpdateInBetween: update without
// --description reads the template for its description and writes with
// If-Match, so another author's update that lands between the read and the
// write is not overwritten with the old description: the API answers 412
// and the command says to look again.
func TestTemplatesUpdateDoesNotOverwriteAnUpdateInBetween(t *testing.T) {
	cfg := templatesapi.Config{APIKeys: []string{testAPIKey}, Sandbox: sandbox.Limits{Timeout: time.Second, MaxParallel: 1}.WithDefaults()}.WithDefaults()
	srv, err := templatesapi.NewServer(cfg, embeddedStore(t, cfg.Sandbox.MaxSourceBytes), sandbox.NewInProcess(cfg.Sandbox), guardrails.NewInProcess(cfg.Sandbox), nil)
	if err != nil {
		t.Fatal(err)
	}
	var interpose atomic.Pointer[string] // the template to update after the command reads it
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if p := interpose.Load(); p != nil && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/script-templates/"+*p) &&
			interpose.CompareAndSwap(p, nil) { // another author's update, after the command's read
			id := *p
			body := `{"name": "Valida CPF", "description": "theirs", "source": "return 'theirs'"}`
			req := httptest.NewRequest(http.MethodPut, "/api/script-templates/"+id, strings.NewReader(body))
			req.Header.Set("X-API-Key", testAPIKey)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Errorf("the update in between: %d %s", rec.Code, rec.Body)
			}
		}
	}))
	t.Cleanup(ts.Close)
	base := ts.URL + "/api"

	code, stdout, stderr := tpl(t, base, "return 1", "create", "--name", "Valida CPF", "--description", "mine", "--source", "-")
	if code != ExitOK {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	var created templateJSON
	oneJSON(t, stdout, &created)
	id := created.ID

	interpose.Store(&id)
	code, _, stderr = tpl(t, base, "return 2", "update", id, "--name", "Valida CPF", "--source", "-")
	if code != ExitFailed || !strings.Contains(stderr, "412") || !strings.Contains(stderr, "changed after this command read it") {
		t.Fatalf("update over an update in between: exit %d, stderr %q; want 1 and the 412 explained", code, stderr)
	}
	code, stdout, stderr = tpl(t, base, "", "get", id)
	if code != ExitOK {
		t.Fatalf("get: exit %d: %s", code, stderr)
	}
	var got templateJSON
	oneJSON(t, stdout, &got)
	if got.Description != "theirs" || got.Source != "return 'theirs'" {
		t.Errorf("after the refused update: %+v, want the other author's version kept", got)
	}

	// With nothing in between, the same update goes through.
	code, stdout, stderr = tpl(t, base, "return 2", "update", id, "--name", "Valida CPF", "--source", "-")
	if code != ExitOK {
		t.Fatalf("update: exit %d: %s", code, stderr)
	}
	oneJSON(t, stdout, &got)
	if got.Description != "theirs" || got.Source != "return 2" {
		t.Errorf("update: %+v, want the description kept and the new source", got)
	}
}
