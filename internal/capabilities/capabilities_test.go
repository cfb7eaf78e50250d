package capabilities

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/sandbox"
)

const policyYAML = `
tenants:
  acme:
    capabilities: [api, kv]
  globex:
    capabilities: [kv]
connectors:
  crm:
    baseURL: %s/v1/
    methods: [GET, POST]
    pathPrefixes: [/customers]
    headers:
      Authorization: {env: CRM_TOKEN, prefix: "Bearer "}
    timeout: 2s
    tenants: [acme]
`

const secret = "s3cr3t-token-0123456789"

// stub is a loopback service that counts requests and records the last
// Authorization header.
type stub struct {
	*httptest.Server
	requests atomic.Int64
	auth     atomic.Value
}

func newStub(t testing.TB) *stub {
	s := &stub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":42,"path":"` + r.URL.Path + `"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func newCapabilities(t testing.TB, s *stub) *Capabilities {
	t.Helper()
	policy, err := ParsePolicy([]byte(strings.Replace(policyYAML, "%s", s.URL, 1)))
	if err != nil {
		t.Fatal(err)
	}
	api, err := httpapi.New(policy.Connectors, func(k string) string {
		if k == "CRM_TOKEN" {
			return secret
		}
		return ""
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(policy, api, sessionkv.NewMemory(sessionkv.Config{}))
}

func TestParsePolicyNamesTheProblem(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"tenants:\n  acme:\n    capabilities: [fetch]\n", `tenants.acme.capabilities[0]: unknown capability "fetch"`},
		{"tenants:\n  acme:\n    capabilitys: [api]\n", "capabilitys"},
		{"tenant: {}\n", "tenant"},
		{"", "the capabilities policy is empty"},
		{"# only a comment\n", "the capabilities policy is empty"},
		{"tenants:\n  \"*\":\n    capabilities: [api]\n", `"*" is not a pattern here`},
	} {
		if _, err := ParsePolicy([]byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to name %q", tc.yaml, err, tc.want)
		}
	}
}

// A connector whose answers could not reach a script within
// SANDBOX_MAX_HOST_BYTES is refused when the policy is loaded.
func TestConnectorAnswersFitTheHostBytes(t *testing.T) {
	p, err := ParsePolicy([]byte("connectors:\n  big:\n    baseURL: https://big.example\n    maxResponseBytes: 8388608\n  small:\n    baseURL: https://small.example\n    maxResponseBytes: 1000\n  plain:\n    baseURL: https://plain.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.FitsHostBytes(4 << 20)
	if err == nil || !strings.Contains(err.Error(), "connectors.big.maxResponseBytes: 8388608 is over half of SANDBOX_MAX_HOST_BYTES (4194304)") ||
		strings.Contains(err.Error(), "small") || strings.Contains(err.Error(), "plain") {
		t.Errorf("8 MiB answers within 4 MiB: %v, want big named alone", err)
	}
	if err := p.FitsHostBytes(16 << 20); err != nil {
		t.Errorf("within 16 MiB: %v", err)
	}
	if err := p.FitsHostBytes(1 << 20); err == nil || !strings.Contains(err.Error(), "connectors.plain.maxResponseBytes: 1048576") {
		t.Errorf("the default 1 MiB within 1 MiB: %v, want plain named", err)
	}
}

func TestGrantIsTheIntersection(t *testing.T) {
	p, err := ParsePolicy([]byte("tenants:\n  acme:\n    capabilities: [api, kv]\n  globex:\n    capabilities: [kv]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tenant string
		asked  []string
		want   string
	}{
		{"acme", []string{"kv", "api"}, "kv,api"},
		{"acme", []string{"api", "api"}, "api"},
		{"globex", []string{"api", "kv"}, "kv"},
		{"globex", []string{"api"}, ""},
		{"unknown", []string{"kv"}, ""},
		{"", []string{"kv"}, ""},
		{"acme", nil, ""},
	} {
		if got := strings.Join(p.Grant(tc.tenant, tc.asked), ","); got != tc.want {
			t.Errorf("Grant(%q, %v) = %q, want %q", tc.tenant, tc.asked, got, tc.want)
		}
	}
	if (*Policy)(nil).Grant("acme", []string{"kv"}) != nil || New(nil, nil, nil).policy.UsesKV() {
		t.Error("no policy grants nothing")
	}
}

func job(tenant, session string, caps ...string) *flowjob.Job {
	return &flowjob.Job{ID: "j", SessionID: session, TenantID: tenant, Capabilities: caps}
}

func call(t *testing.T, c *Capabilities, j *flowjob.Job, capability, method, args string) sandbox.HostReply {
	t.Helper()
	grants, host := c.HostFor(j)
	if host == nil {
		return sandbox.Denied(capability)
	}
	_ = grants
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return host.Call(ctx, sandbox.HostCall{Capability: capability, Method: method, Args: json.RawMessage(args)})
}

func TestAPICallsThroughTheConnector(t *testing.T) {
	s := newStub(t)
	c := newCapabilities(t, s)
	reply := call(t, c, job("acme", "s1", "api"), "api", "get", `["crm","/customers/42",{"query":{"full":"1"}}]`)
	if reply.Err != nil {
		t.Fatalf("reply error %+v", reply.Err)
	}
	var resp struct {
		Status int             `json:"status"`
		JSON   json.RawMessage `json:"json"`
	}
	if err := json.Unmarshal(reply.Value, &resp); err != nil || resp.Status != 200 || string(resp.JSON) != `{"id":42,"path":"/v1/customers/42"}` {
		t.Fatalf("reply %s (%v)", reply.Value, err)
	}
	if got := s.auth.Load(); got != "Bearer "+secret {
		t.Errorf("the stub saw Authorization %q, want the injected secret", got)
	}
	if strings.Contains(string(reply.Value), secret) {
		t.Error("the reply holds the secret")
	}
	for args, want := range map[string]string{
		`["crm","/customers/42","x"]`:                  "options (argument 3) must be {headers?, query?} with string values: got a string",
		`["crm","/customers/42",{"headers":{"a":1}}]`:  "options (argument 3) must be {headers?, query?} with string values: headers: want a string, got a number",
		`["crm","/customers/42",{"header":{"a":"1"}}]`: `options (argument 3) must be {headers?, query?} with string values: it has no member "header"`,
	} {
		if r := call(t, c, job("acme", "s1", "api"), "api", "get", args); r.Err == nil || r.Err.Message != "api.get: "+want {
			t.Errorf("api.get(%s): %+v, want %q", args, r.Err, want)
		}
	}
	before := s.requests.Load()
	for _, tc := range []struct {
		name, job, args, capability, method string
		j                                   *flowjob.Job
		code                                sandbox.Code
	}{
		{"a path outside the prefixes", "", `["crm","/admin"]`, "api", "get", job("acme", "s1", "api"), sandbox.CodeCapabilityDenied},
		{"a dot-dot escape", "", `["crm","/customers/../admin"]`, "api", "get", job("acme", "s1", "api"), sandbox.CodeCapabilityDenied},
		{"an absolute URL", "", `["crm","http://evil.example/x"]`, "api", "get", job("acme", "s1", "api"), sandbox.CodeCapabilityDenied},
		{"a method not allowed", "", `["crm","/customers/1",null]`, "api", "delete", job("acme", "s1", "api"), sandbox.CodeCapabilityDenied},
		{"another tenant", "", `["crm","/customers/1"]`, "api", "get", job("globex", "s1", "api", "kv"), sandbox.CodeCapabilityDenied},
		{"an unknown connector", "", `["erp","/customers/1"]`, "api", "get", job("acme", "s1", "api"), sandbox.CodeCapabilityDenied},
		{"not asked for", "", `["crm","/customers/1"]`, "api", "get", job("acme", "s1", "kv"), sandbox.CodeCapabilityDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := call(t, c, tc.j, tc.capability, tc.method, tc.args)
			if reply.Err == nil || reply.Err.Code != tc.code {
				t.Errorf("reply %s %+v, want %s", reply.Value, reply.Err, tc.code)
			}
			if reply.Err != nil && strings.Contains(reply.Err.Message, secret) {
				t.Error("the error names the secret")
			}
		})
	}
	if n := s.requests.Load() - before; n != 0 {
		t.Errorf("%d requests reached the stub where nothing may be sent", n)
	}
	// Malformed arguments are the script's TypeError, not a denial.
	for _, args := range []string{`[1,"/customers"]`, `["crm"]`, `["crm","/customers",{"headers":{"X":1}}]`, `{"a":1}`} {
		reply := call(t, c, job("acme", "s1", "api"), "api", "get", args)
		if reply.Err == nil || reply.Err.Code != "" || reply.Err.Name != "TypeError" {
			t.Errorf("%s: %+v, want a TypeError", args, reply.Err)
		}
	}
}

func TestAPINetworkFailureIsCatchable(t *testing.T) {
	s := newStub(t)
	c := newCapabilities(t, s)
	s.Close()
	reply := call(t, c, job("acme", "s1", "api"), "api", "get", `["crm","/customers/1"]`)
	if reply.Err == nil || reply.Err.Code != "" || reply.Err.Name != "NetworkError" {
		t.Errorf("a stopped service: %+v, want a NetworkError the script may catch", reply.Err)
	}
}

func TestKVIsScopedToTenantAndSession(t *testing.T) {
	c := newCapabilities(t, newStub(t))
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "set", `["cart",{"items":2}]`); r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "get", `["cart"]`); r.Err != nil || string(r.Value) != `{"items":2}` {
		t.Fatalf("same session: %s %+v", r.Value, r.Err)
	}
	for _, j := range []*flowjob.Job{job("acme", "s2", "kv"), job("globex", "s1", "kv")} {
		if r := call(t, c, j, "kv", "get", `["cart"]`); r.Err != nil || r.Value != nil {
			t.Errorf("tenant %s session %s reads %s %+v, want nothing", j.TenantID, j.SessionID, r.Value, r.Err)
		}
	}
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "delete", `["cart"]`); r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "get", `["cart"]`); r.Value != nil {
		t.Errorf("after delete: %s", r.Value)
	}
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "set", `["k",1,{"ttlSeconds":-1}]`); r.Err == nil || r.Err.Name != "TypeError" {
		t.Errorf("a negative ttl: %+v", r.Err)
	}
	// A ttl past what a time.Duration holds is the bucket's longest.
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "set", `["k",1,{"ttlSeconds":1e10}]`); r.Err != nil {
		t.Errorf("a huge ttl: %+v, want it capped", r.Err)
	}
	// Options of the wrong shape are named in JSON's terms, not Go's.
	for args, want := range map[string]string{
		`["k",1,"x"]`:                "options (argument 3) must be {ttlSeconds?}",
		`["k",1,{"ttlSeconds":"x"}]`: "options (argument 3) must be {ttlSeconds?}: ttlSeconds: want a number, got a string",
		`["k",1,{"ttl":60}]`:         `options (argument 3) must be {ttlSeconds?}: it has no member "ttl"`,
		`["k",1,{"ttlSeconds":-1}]`:  "ttlSeconds must be 0 or more seconds (0 or none: as long as any value is kept, KV_TTL), got -1",
		// NaN and Infinity cross as null: refused, not taken as no TTL.
		`["k",1,{"ttlSeconds":null}]`: "ttlSeconds must be a number of seconds, got null, NaN or Infinity",
	} {
		if r := call(t, c, job("acme", "s1", "kv"), "kv", "set", args); r.Err == nil || !strings.Contains(r.Err.Message, want) || strings.Contains(r.Err.Message, "Go ") {
			t.Errorf("kv.set(%s): %+v, want %q", args, r.Err, want)
		}
	}
	big := `["k","` + strings.Repeat("x", 70<<10) + `"]`
	if r := call(t, c, job("acme", "s1", "kv"), "kv", "set", big); r.Err == nil || r.Err.Name != "KvLimitError" || !strings.Contains(r.Err.Message, "KV_MAX_VALUE_BYTES") {
		t.Errorf("a value over the cap: %+v", r.Err)
	}
}
