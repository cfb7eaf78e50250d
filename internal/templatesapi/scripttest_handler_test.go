package templatesapi

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/golang-jwt/jwt/v5"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

type testRunAnswer struct {
	OK         bool           `json:"ok"`
	Output     *string        `json:"output"`
	Error      *sandbox.Error `json:"error"`
	DurationMs float64        `json:"durationMs"`
	Findings   []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
	} `json:"findings"`
	Uses *struct {
		Capabilities []string `json:"capabilities"`
		Connectors   []string `json:"connectors"`
	} `json:"uses"`
}

func (a *api) testRun(body any) (response, testRunAnswer) {
	a.t.Helper()
	r := a.authed("POST", "/api/scripts/test", body)
	var out testRunAnswer
	if r.status == http.StatusOK {
		r.json(a.t, &out)
	}
	return r, out
}

func input(name, value string) map[string]string {
	return map[string]string{"name": name, "value": value}
}

func TestScriptTestRuns(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	cpf := "function execute(cpf) {\n  const digits = String(cpf).replace(/\\D/g, '')\n  return digits.length === 11 ? 'valido' : 'invalido'\n}"
	tests := []struct {
		name      string
		body      map[string]any
		ok        bool
		output    string
		code      sandbox.Code
		line, col int
		findings  []string
	}{
		{"success, full file", map[string]any{"source": cpf, "inputVariables": []any{input("cpf", "123.456.789-09")}}, true, "valido", "", 0, 0, nil},
		{"success, legacy body", map[string]any{"source": "return a + '-' + b", "inputVariables": []any{input("a", "x"), input("b", "y")}}, true, "x-y", "", 0, 0, nil},
		{"object result", map[string]any{"source": "return {n: 1}"}, true, `{"n":1}`, "", 0, 0, nil},
		{"no inputVariables field", map[string]any{"source": "return 'ok'"}, true, "ok", "", 0, 0, nil},
		{"script error", map[string]any{"source": "const x = 1\nthrow new Error('boom')"}, false, "", sandbox.CodeScriptError, 2, 7, nil},
		{"syntax error", map[string]any{"source": "return (1"}, false, "", sandbox.CodeSyntaxError, 1, 10, nil},
		{"timeout", map[string]any{"source": "while (true) {}"}, false, "", sandbox.CodeTimeout, 0, 0, nil},
		{"async", map[string]any{"source": "async function execute() { return 1 }"}, false, "", sandbox.CodeAsyncUnsupported, 0, 0, []string{"GUARDRAIL_ASYNC_EXECUTE"}},
		{"host global runs and is reported", map[string]any{"source": "return process.exit(1)"}, false, "", sandbox.CodeScriptError, 1, 8, []string{"GUARDRAIL_PROCESS"}},
		{"uses are reported", map[string]any{"source": "if (false) { api.get('crm', '/x'); kv.set('a', 1); api.post(name, '/y') }\nreturn 'ok'"}, true, "ok", "", 0, 0,
			[]string{"GUARDRAIL_CONNECTOR_UNKNOWN"}},
		{"an input shadows a host name", map[string]any{"source": "return process", "inputVariables": []any{input("process", "mine")}}, true, "mine", "", 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := a.testRun(tt.body)
			wantStatus(t, r, http.StatusOK)
			if out.OK != tt.ok || out.DurationMs <= 0 || out.Findings == nil {
				t.Fatalf("answer %s", r.raw)
			}
			if tt.ok {
				if out.Output == nil || *out.Output != tt.output || out.Error != nil {
					t.Errorf("answer %s, want output %q", r.raw, tt.output)
				}
			} else {
				if out.Output != nil || out.Error == nil || out.Error.Code != tt.code || out.Error.Message == "" ||
					out.Error.Line != tt.line || out.Error.Column != tt.col {
					t.Errorf("answer %s, want %s at %d:%d", r.raw, tt.code, tt.line, tt.col)
				}
			}
			var codes []string
			for _, f := range out.Findings {
				codes = append(codes, f.Code)
			}
			if strings.Join(codes, ",") != strings.Join(tt.findings, ",") {
				t.Errorf("findings %v, want %v", codes, tt.findings)
			}
			wantUses := "[] []"
			if tt.name == "uses are reported" {
				wantUses = "[api kv] [crm]"
			}
			if out.Uses == nil || out.Uses.Capabilities == nil || out.Uses.Connectors == nil ||
				fmt.Sprint(out.Uses.Capabilities, " ", out.Uses.Connectors) != wantUses {
				t.Errorf("answer %s, want uses %s", r.raw, wantUses)
			}
		})
	}
	if r, out := a.testRun(map[string]any{"source": "while (true) {}"}); out.DurationMs < float64(cfg.Sandbox.Timeout.Milliseconds())*0.9 {
		t.Errorf("a timed-out run reports %vms, want about the %s limit: %s", out.DurationMs, cfg.Sandbox.Timeout, r.raw)
	}
}

func TestScriptTestRefusesBadInput(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	tests := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"no source", map[string]any{}, 422, "source"},
		{"blank source", map[string]any{"source": "  "}, 422, "source"},
		{"source over the cap", map[string]any{"source": "return '" + strings.Repeat("x", 8<<10) + "'"}, 422, "source"},
		{"input name not an identifier", map[string]any{"source": "return 1", "inputVariables": []any{input("1x", "a")}}, 422, "inputVariables[0].name"},
		{"input name reserved", map[string]any{"source": "return 1", "inputVariables": []any{input("a", ""), input("class", "a")}}, 422, "inputVariables[1].name"},
		{"duplicate input", map[string]any{"source": "return 1", "inputVariables": []any{input("a", "1"), input("a", "2")}}, 422, "inputVariables[1].name"},
		{"inputs over the cap", map[string]any{"source": "return 1", "inputVariables": []any{input("a", strings.Repeat("v", 4<<10))}}, 422, "inputVariables"},
		{"value not a string", `{"source":"return 1","inputVariables":[{"name":"a","value":"1"},{"name":"b","value":1}]}`, 400, "inputVariables[1].value"},
		{"unknown field in an input", `{"source":"return 1","inputVariables":[{"name":"a","value":"1","type":"x"}]}`, 400, "inputVariables[0].type"},
		{"unknown top-level field", `{"source":"return 1","timeout":99999}`, 400, "timeout"},
		// A job's input needs a value (it may be ""): so does a test run's.
		{"input without a value", `{"source":"return a","inputVariables":[{"name":"a"}]}`, 422, "inputVariables[0].value"},
		{"input value null", `{"source":"return a","inputVariables":[{"name":"a","value":null}]}`, 422, "inputVariables[0].value"},
		{"input null", `{"source":"return 1","inputVariables":[{"name":"a","value":""},null]}`, 422, "inputVariables[1]"},
		{"tenant id over a job's cap", map[string]any{"source": "return 1", "tenantId": strings.Repeat("t", 257)}, 422, "tenantId"},
		// A job refuses it too (a black-box probe found the test run took it).
		{"tenant id of white space", map[string]any{"source": "return 1", "tenantId": " \t "}, 422, "tenantId"},
		{"more capabilities than there are", map[string]any{"source": "return 1", "capabilities": []string{"api", "kv", "approval", "kv"}}, 422, "capabilities"},
		{"body null", `null`, 400, ""},
		// The whole path, past a number no float64 holds in a resolution.
		{"a wrong kind after a huge number", `{"resolutions":[[1e400],{"a":1}],"source":1}`, 400, "source"},
		{"a fraction for milliseconds", `{"source":"return 1","timeoutMs":1.5,"foo":1}`, 400, "timeoutMs"},
		// As the executor refuses such a resume job (INVALID_JOB), before the
		// script reads it.
		{"a resolution nested too deep", `{"source":"return approval.request()","capabilities":["approval"],"resolutions":[true,` +
			strings.Repeat("[", 600) + strings.Repeat("]", 600) + `]}`, 422, "resolutions[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.authed("POST", "/api/scripts/test", tt.body)
			wantStatus(t, r, tt.status)
			e := r.apiErr(t)
			switch {
			case tt.field == "" && len(e.Fields) != 0:
				t.Errorf("error %+v, want no fields", e)
			case tt.field != "" && (len(e.Fields) == 0 || e.Fields[0].Field != tt.field):
				t.Errorf("error %+v, want the first field to be %s", e, tt.field)
			}
		})
	}
}

// A request full of problems gets an answer of a bounded size: one problem
// for an overlong capability list whatever its length (30,000 here, the
// test config's body limit), at most
// flowjob.MaxFieldErrors fields otherwise, and sent values quoted cut.
func TestScriptTestAnswersBadInputBriefly(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	r := a.authed("POST", "/api/scripts/test", map[string]any{"source": "return 1", "capabilities": make([]string, 30_000)})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); len(e.Fields) != 1 || e.Fields[0].Field != "capabilities" || len(r.raw) > 1024 {
		t.Errorf("30,000 capabilities: %d bytes: %.300s", len(r.raw), r.raw)
	}

	inputs := make([]any, 0, 128)
	for i := range 128 {
		inputs = append(inputs, input(fmt.Sprintf("%d%s", i, strings.Repeat("n", 20)), ""))
	}
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": "return 1", "inputVariables": inputs})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	e := r.apiErr(t)
	if len(e.Fields) != 50 || !strings.Contains(e.Message, "(and 127 more problems, the first 49 listed in fields)") {
		t.Errorf("128 bad names: %d fields, message %q", len(e.Fields), e.Message)
	}

	long := strings.Repeat("x", 4000)
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": "return 1", "capabilities": []string{long}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); !strings.Contains(e.Message, `unknown capability "`+strings.Repeat("x", 37)+`"…`) || len(r.raw) > 1024 {
		t.Errorf("a 4,000-byte capability is not quoted cut: %.400s", r.raw)
	}
}

// A test run takes a job's timeoutMs: it shortens the limit (the run ends
// long before the service's 5 s), and a negative one is refused.
func TestScriptTestTakesATimeout(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.Timeout = 5 * time.Second
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	r, out := a.testRun(map[string]any{"source": "while (true) {}", "timeoutMs": 100})
	if r.status != http.StatusOK || out.OK || out.Error == nil || out.Error.Code != sandbox.CodeTimeout || out.DurationMs > 2500 {
		t.Errorf("timeoutMs 100 under a 5 s limit: %d %s", r.status, r.raw)
	}
	// A value past any limit is the service's limit, not a wrapped duration.
	r, out = a.testRun(map[string]any{"source": "const t = Date.now(); while (Date.now() - t < 20) {} return 1", "timeoutMs": int64(18446744073710)})
	if !out.OK {
		t.Errorf("timeoutMs 18446744073710: %d %s", r.status, r.raw)
	}
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": "return 1", "timeoutMs": "100"})
	wantStatus(t, r, http.StatusBadRequest)
	if e := r.apiErr(t); e.Message != "timeoutMs must be an integer, got string" {
		t.Errorf("timeoutMs \"100\": %s", r.raw)
	}
	// A whole number in another notation is that number, as in a job.
	for _, ms := range []string{"1e2", "100.0"} {
		r, res := a.testRun(`{"source":"while (true) {}","timeoutMs":` + ms + `}`)
		if r.status != http.StatusOK || res.Error == nil || res.Error.Code != sandbox.CodeTimeout || res.DurationMs > 2500 {
			t.Errorf("timeoutMs %s: %d %s", ms, r.status, r.raw)
		}
	}
	r = a.authed("POST", "/api/scripts/test", `{"source":"return 1","timeoutMs":1e300}`)
	wantStatus(t, r, http.StatusBadRequest)
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": "return 1", "timeoutMs": -1})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); len(e.Fields) != 1 || e.Fields[0].Field != "timeoutMs" {
		t.Errorf("timeoutMs -1: %s", r.raw)
	}
}

// A NUL character runs in a job's source, so a test run runs it; only a
// template cannot store it.
func TestScriptTestRunsWhatOnlyStorageRefuses(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	source := "return 'a\x00b'.length" // a raw NUL inside a string literal
	r, out := a.testRun(map[string]any{"source": source})
	if r.status != http.StatusOK || !out.OK || out.Output == nil || *out.Output != "3" {
		t.Errorf("a test run of a source with a NUL: %d %s", r.status, r.raw)
	}
	r = a.authed("POST", "/api/script-templates", map[string]string{"name": "nul", "source": source})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); len(e.Fields) != 1 || e.Fields[0].Field != "source" || !strings.Contains(e.Message, "cannot store") {
		t.Errorf("saving a source with a NUL: %s", r.raw)
	}
}

// gate is a Runner that holds every run until released, and says when a
// run has entered.
type gate struct {
	next    sandbox.Runner
	entered chan struct{}
	release chan struct{}
}

func (g *gate) Run(ctx context.Context, req sandbox.Request) sandbox.Result {
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return g.next.Run(ctx, req)
}

func TestScriptTestOverTheLimitIs429(t *testing.T) {
	cfg := testConfig() // MaxParallel 2
	g := &gate{next: sandbox.NewInProcess(cfg.Sandbox), entered: make(chan struct{}, 8), release: make(chan struct{})}
	a := startAPI(t, cfg, openEmbedded(t, cfg), g)

	// Test runs leave one of the pool's workers to saves' checks.
	slots := cfg.Sandbox.MaxParallel - 1
	var wg sync.WaitGroup
	held := make([]response, slots)
	for i := range slots {
		wg.Go(func() { held[i], _ = a.testRun(map[string]any{"source": "return 'held'"}) })
	}
	for range slots {
		select {
		case <-g.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the held runs did not start")
		}
	}

	start := time.Now()
	r, _ := a.testRun(map[string]any{"source": "return 'one too many'"})
	wantStatus(t, r, http.StatusTooManyRequests)
	e := r.apiErr(t)
	if e.Code != CodeSandboxBusy || e.Message != "Limite de 1 scripts simultâneos atingido. Tente novamente em instantes." {
		t.Errorf("429 error %+v", e)
	}
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("the 429 took %s: it must answer at once, not queue", waited)
	}

	close(g.release)
	wg.Wait()
	for i, h := range held {
		if h.status != http.StatusOK || !strings.Contains(string(h.raw), `"output":"held"`) {
			t.Errorf("held run %d: %d %s", i, h.status, h.raw)
		}
	}
	// The slots came back.
	r, out := a.testRun(map[string]any{"source": "return 'again'"})
	if r.status != http.StatusOK || out.Output == nil || *out.Output != "again" {
		t.Errorf("after the held runs ended: %d %s", r.status, r.raw)
	}
}

// startWithPolicy starts the API with cfg and a capabilities policy, whose
// text names a counting stub's URL with %s, and returns both.
func startWithPolicy(t *testing.T, cfg Config, policy string) (*api, *countingStub) {
	t.Helper()
	stub := newCountingStub(t)
	cfg.CapabilitiesPolicyFile = t.TempDir() + "/policy.yaml"
	writeFile(t, cfg.CapabilitiesPolicyFile, fmt.Sprintf(policy, stub.URL))
	return startAPI(t, cfg, openEmbedded(t, cfg), nil), stub
}

// TestTenantBoundTokens: with AUTH_JWT_TENANT_CLAIM a token may run test
// runs with host functions only for the tenants its claim names (a write
// token for one tenant called another tenant's connector, with that
// tenant's secrets); an API key, and a run without capabilities, are not
// bound.
func TestTenantBoundTokens(t *testing.T) {
	cfg := testConfig()
	cfg.JWTTenantClaim = "tenants"
	a, stub := startWithPolicy(t, cfg, "tenants:\n  acme: {capabilities: [api]}\n  globex: {capabilities: [api]}\nconnectors:\n  crm:\n    baseURL: %s\n    methods: [GET]\n    pathPrefixes: [/customers]\n    tenants: [acme, globex]\n")
	source := "return api.get('crm', '/customers/1').status"
	run := func(credential []string, tenant string, caps ...string) response {
		body := map[string]any{"source": source, "tenantId": tenant}
		if len(caps) > 0 {
			body["capabilities"] = caps
		}
		return a.do("POST", "/api/scripts/test", body, credential...)
	}
	bearer := func(claims jwt.MapClaims) []string {
		return []string{"Authorization", "Bearer " + hsToken(t, testJWTSecret, claims)}
	}
	globex := bearer(with(tokenClaims("templates:write"), "tenants", "globex"))
	both := bearer(with(tokenClaims("templates:write"), "tenants", []any{"acme", "globex"}))
	none := bearer(tokenClaims("templates:write"))
	// An attribute left unset, as identity providers send it: no tenant.
	blank := bearer(with(tokenClaims("templates:write"), "tenants", ""))
	blankInArray := bearer(with(tokenClaims("templates:write"), "tenants", []any{""}))

	for _, c := range []struct {
		name       string
		credential []string
		tenant     string
		status     int
	}{
		{"its own tenant", globex, "globex", http.StatusOK},
		{"another tenant", globex, "acme", http.StatusForbidden},
		{"no tenant", globex, "", http.StatusForbidden},
		{"one of its tenants", both, "acme", http.StatusOK},
		{"a token naming none", none, "acme", http.StatusForbidden},
		{"a token naming none, for no tenant", none, "", http.StatusForbidden},
		{"an empty tenant claim, for no tenant", blank, "", http.StatusForbidden},
		{"an empty tenant in the claim's array, for no tenant", blankInArray, "", http.StatusForbidden},
		{"an API key", []string{"X-API-Key", testAPIKey}, "acme", http.StatusOK},
	} {
		r := run(c.credential, c.tenant, "api")
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.status)
			continue
		}
		if c.status == http.StatusForbidden {
			// A request for no tenant is told to name one.
			want := strconv.Quote(c.tenant)
			if c.tenant == "" {
				want = "set tenantId"
			}
			if e := r.apiErr(t); e.Code != CodeForbidden || !strings.Contains(e.Message, "tenants claim") || !strings.Contains(e.Message, want) {
				t.Errorf("%s: %+v, want FORBIDDEN naming the claim and %s", c.name, e, want)
			}
		}
	}
	if n := stub.requests.Load(); n != 3 {
		t.Errorf("the connector got %d requests, want 3 (the allowed runs only)", n)
	}
	// Without capabilities the tenant does not matter.
	wantStatus(t, run(globex, "acme"), http.StatusOK)
	// A tenant claim of another type is refused with the token.
	r := run(bearer(with(tokenClaims("templates:write"), "tenants", 7)), "acme", "api")
	wantStatus(t, r, http.StatusUnauthorized)
	if e := r.apiErr(t); !strings.Contains(e.Message, "tenants claim") {
		t.Errorf("a numeric tenant claim: %+v", e)
	}
}

// TestScriptTestWithCapabilities: a test run asks for host functions as a
// job does; the service's policy grants them per tenant, so the author
// sees CAPABILITY_DENIED (and the console lines) before publishing.
func TestScriptTestWithCapabilities(t *testing.T) {
	a, stub := startWithPolicy(t, testConfig(), "tenants:\n  acme: {capabilities: [api, kv]}\nconnectors:\n  crm:\n    baseURL: %s\n    methods: [GET]\n    pathPrefixes: [/customers]\n    tenants: [acme]\n")
	source := "console.log('oi')\nkv.set('a', 2)\nreturn api.get('crm', '/customers/1').status * kv.get('a')"

	r := a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "tenantId": "acme", "capabilities": []string{"api", "kv"}})
	wantStatus(t, r, http.StatusOK)
	var out struct {
		OK      bool           `json:"ok"`
		Output  string         `json:"output"`
		Error   *sandbox.Error `json:"error"`
		Granted []string       `json:"granted"`
		Logs    []sandbox.LogEntry
	}
	r.json(t, &out)
	if !out.OK || out.Output != "400" || strings.Join(out.Granted, ",") != "api,kv" || len(out.Logs) != 1 || out.Logs[0].Line != 1 {
		t.Fatalf("granted run: %s", r.raw)
	}
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "tenantId": "other", "capabilities": []string{"api"}})
	r.json(t, &out)
	if out.OK || out.Error == nil || out.Error.Code != sandbox.CodeCapabilityDenied || out.Error.Line != 2 || len(out.Granted) != 0 {
		t.Fatalf("another tenant: %s", r.raw)
	}
	if n := stub.requests.Load(); n != 1 {
		t.Errorf("the connector got %d requests, want 1", n)
	}
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "capabilities": []string{"fetch"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); !strings.Contains(e.Message, `unknown capability "fetch"`) {
		t.Errorf("an unknown capability: %s", r.raw)
	}
	// A job refuses a repeated capability (flowjob), so the test run does.
	r = a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "tenantId": "acme", "capabilities": []string{"api", "kv", "api"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if e := r.apiErr(t); len(e.Fields) != 1 || e.Fields[0].Field != "capabilities[2]" || e.Fields[0].Code != "DUPLICATE_CAPABILITY" ||
		!strings.Contains(e.Message, `"api" is already capabilities[0]`) {
		t.Errorf("a repeated capability: %s", r.raw)
	}
}

// A test run answers the script's approval requests with the request's
// resolutions, replaying the run as an executor does: the connector sees
// each call once.
func TestScriptTestThroughApprovals(t *testing.T) {
	stub := newCountingStub(t)
	policy := t.TempDir() + "/policy.yaml"
	writeFile(t, policy, fmt.Sprintf("tenants:\n  acme: {capabilities: [api, approval]}\nconnectors:\n  crm:\n    baseURL: %s\n    methods: [GET]\n    pathPrefixes: [/customers]\n    tenants: [acme]\n", stub.URL))
	cfg := testConfig()
	cfg.CapabilitiesPolicyFile = policy
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	source := "const c = api.get('crm', '/customers/1').status\n" +
		"const first = approval.request({message: 'one?'})\n" +
		"const second = approval.request({message: 'two?', data: first})\n" +
		"return [c, first, second].join(' ')"
	type answer struct {
		OK        bool    `json:"ok"`
		Status    string  `json:"status"`
		Output    *string `json:"output"`
		Approvals []struct {
			Request    json.RawMessage `json:"request"`
			Resolution json.RawMessage `json:"resolution"`
		} `json:"approvals"`
	}
	run := func(resolutions ...any) answer {
		t.Helper()
		r := a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "tenantId": "acme",
			"capabilities": []string{"api", "approval"}, "resolutions": resolutions})
		wantStatus(t, r, http.StatusOK)
		var out answer
		r.json(t, &out)
		return out
	}

	out := run("yes", "no")
	if !out.OK || out.Status != "succeeded" || out.Output == nil || *out.Output != "200 yes no" || len(out.Approvals) != 2 ||
		string(out.Approvals[1].Request) != `{"message":"two?","data":"yes"}` || string(out.Approvals[1].Resolution) != `"no"` {
		t.Fatalf("answered run: %+v", out)
	}
	if n := stub.requests.Load(); n != 1 {
		t.Errorf("the connector got %d requests over three runs of the script, want 1 (replayed from the journal)", n)
	}
	out = run("yes")
	if out.OK || out.Status != "suspended" || out.Output != nil || len(out.Approvals) != 2 || out.Approvals[1].Resolution != nil {
		t.Errorf("a run with too few resolutions: %+v", out)
	}
	r := a.authed("POST", "/api/scripts/test", map[string]any{"source": source, "resolutions": make([]int, MaxTestResolutions+1)})
	wantStatus(t, r, http.StatusUnprocessableEntity)
}

// TestScriptTestFailsAnOutputTooLargeForABroker: an output within
// SANDBOX_MAX_OUTPUT_BYTES whose result event would not fit a broker
// message once JSON escapes it fails as the executor fails it
// (OUTPUT_TOO_LARGE, naming max_payload), instead of succeeding in the
// test and failing in every production run.
func TestScriptTestFailsAnOutputTooLargeForABroker(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	r, out := a.testRun(map[string]any{"source": "return '\\u0001'.repeat(200000)"}) // 200 KB, 1.2 MB escaped
	if r.status != http.StatusOK || out.OK || out.Error == nil || out.Error.Code != sandbox.CodeOutputTooLarge || !strings.Contains(out.Error.Message, "max_payload") || out.Output != nil {
		t.Errorf("%d %+v (output set: %v), want a failed run with OUTPUT_TOO_LARGE naming max_payload", r.status, out.Error, out.Output != nil)
	}
	r, out = a.testRun(map[string]any{"source": "return 'a'.repeat(200000)"})
	if r.status != http.StatusOK || !out.OK || out.Output == nil || len(*out.Output) != 200000 {
		t.Errorf("200 KB of plain text: %d ok %v %+v, want it returned", r.status, out.OK, out.Error)
	}
	// A broker that carries 8 MiB (NATS_MAX_PAYLOAD) carries it.
	cfg.BrokerMaxPayload = 8 << 20
	r, out = startAPI(t, cfg, openEmbedded(t, cfg), nil).testRun(map[string]any{"source": "return '\\u0001'.repeat(200000)"})
	if r.status != http.StatusOK || !out.OK {
		t.Errorf("with NATS_MAX_PAYLOAD of 8 MiB: %d %+v, want the output", r.status, out.Error)
	}
}
