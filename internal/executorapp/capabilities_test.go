package executorapp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// Host functions through the real executor binary (DESIGN.md §9): a
// policy file, a connector to a loopback stub with a credential from the
// executor's environment, kv on the broker, console lines in the results.

const apiSecret = "crm-token-7f3a9c0d1e2b4a68"

// apiStub is the service behind the connector: it counts requests, keeps
// the last Authorization header, and answers by path.
type apiStub struct {
	*httptest.Server
	requests atomic.Int64
	auth     atomic.Value
}

func newAPIStub(t *testing.T, other string) *apiStub {
	s := &apiStub{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/v1/customers/hang":
			<-r.Context().Done()
		case "/v1/customers/away":
			http.Redirect(w, r, other+"/v1/customers/1", http.StatusFound)
		case "/v1/customers/echo":
			// A careless service that echoes the credential.
			_, _ = fmt.Fprintf(w, `{"auth":%q}`, r.Header.Get("Authorization"))
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":42,"name":"Ana","path":%q}`, r.URL.Path)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// capabilityEnv writes a policy for the stubs and returns the executor's
// environment with it.
func capabilityEnv(t *testing.T, env map[string]string, crm string) map[string]string {
	t.Helper()
	policy := fmt.Sprintf(`
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
    timeout: 10s
    tenants: [acme]
`, crm)
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	env["CAPABILITIES_POLICY_FILE"] = file
	env["CRM_TOKEN"] = apiSecret
	env["KV_BUCKET"] = "T_KV_" + strings.ToUpper(hex.EncodeToString(b[:]))
	env["SANDBOX_TIMEOUT_MS"] = "2000"
	env["SANDBOX_MAX_HOST_CALLS"] = "5"
	return env
}

func hostJob(id, tenant, session, source string, caps ...string) *flowjob.Job {
	j := slowJob(id, 0)
	j.Action.Source = source
	j.Action.OnError = flowjob.OnErrorContinue
	j.TenantID, j.SessionID, j.Capabilities = tenant, session, caps
	return j
}

func TestHostFunctionsThroughTheExecutor(t *testing.T) {
	eachBroker(t, func(t *testing.T, url string) {
		other := newAPIStub(t, "")
		crm := newAPIStub(t, other.URL)
		env, cfg := names(t, url)
		env = capabilityEnv(t, env, crm.URL)
		testenv.DeleteStreamsAtCleanup(t, url, "KV_"+env["KV_BUCKET"])
		startBinary(t, env)
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		client := newClient(t, nc, cfg)
		provisioned(t, nc, cfg) // the first job may come before the executor made its streams
		run := func(j *flowjob.Job) *flowjob.Result {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := client.Run(ctx, j)
			if err != nil {
				t.Fatalf("job %s: %v", j.ID, err)
			}
			return res
		}
		code := func(r *flowjob.Result) string {
			if r.Error == nil {
				return ""
			}
			return r.Error.Code
		}

		// A granted call reaches the connector with the credential the
		// script never sees, whatever it looks at.
		res := run(hostJob("granted", "acme", "s1", `
console.log('buscando cliente')
const r = api.get('crm', '/customers/42')
let seen = JSON.stringify(globalThis) + Object.getOwnPropertyNames(globalThis).join() + JSON.stringify(r)
for (const o of [api, kv, console]) seen += Object.getOwnPropertyNames(o).join()
try { api.get('crm', '/admin') } catch (e) { seen += e.message + e.stack }
if (seen.includes('`+apiSecret[:10]+`')) return 'LEAKED'
return r.status + ':' + r.json.name`, "api"))
		if res.Status != flowjob.StatusSucceeded || res.Variables["out"] != "200:Ana" {
			t.Fatalf("granted call: %+v", res)
		}
		if got := crm.auth.Load(); got != "Bearer "+apiSecret {
			t.Errorf("the stub saw Authorization %q, want the executor's secret", got)
		}
		if len(res.Logs) != 1 || res.Logs[0].Message != "buscando cliente" || res.Logs[0].Line != 2 {
			t.Errorf("logs %+v", res.Logs)
		}
		res = run(hostJob("echo", "acme", "s1", `return JSON.stringify(api.get('crm', '/customers/echo'))`, "api"))
		if strings.Contains(res.Variables["out"], apiSecret) {
			t.Errorf("an echoing service handed the secret to the script: %s", res.Variables["out"])
		}

		// Refused before anything is sent.
		before := crm.requests.Load()
		for _, tc := range []struct{ name, tenant, source string }{
			{"not granted", "globex", "return api.get('crm', '/customers/1')"},
			{"no tenant", "", "return api.get('crm', '/customers/1')"},
			{"a method not allowed", "acme", "return api.delete('crm', '/customers/1')"},
			{"a path outside the prefixes", "acme", "return api.get('crm', '/orders/1')"},
			{"dot-dot", "acme", "return api.get('crm', '/customers/../admin')"},
			{"encoded dot-dot", "acme", "return api.get('crm', '/customers/%2e%2e/admin')"},
			{"an absolute URL", "acme", "return api.get('crm', '" + other.URL + "/v1/customers/1')"},
			{"an at sign", "acme", "return api.get('crm', '/customers@evil.example/x')"},
		} {
			res := run(hostJob("denied-"+strings.ReplaceAll(tc.name, " ", "-"), tc.tenant, "s1", "\n"+tc.source, "api"))
			if code(res) != flowjob.CodeCapabilityDenied || res.Error.Line != 2 {
				t.Errorf("%s: %+v, want CAPABILITY_DENIED at line 2", tc.name, res.Error)
			}
		}
		if n := crm.requests.Load() - before; n != 0 {
			t.Errorf("%d requests reached the connector where nothing may be sent", n)
		}

		// A redirect to another host is a network failure the script may
		// catch; the other host gets nothing.
		res = run(hostJob("redirect", "acme", "s1", `try { api.get('crm', '/customers/away') } catch (e) { return e.code }`, "api"))
		if res.Variables["out"] != "NETWORK_ERROR" || other.requests.Load() != 0 {
			t.Errorf("a redirect off the host: %+v, other host requests %d", res.Variables, other.requests.Load())
		}

		// A hanging service: SCRIPT_TIMEOUT within the deadline plus 1 s,
		// and the worker is free for the next job.
		start := time.Now()
		res = run(hostJob("hang", "acme", "s1", "return api.get('crm', '/customers/hang')", "api"))
		if code(res) != flowjob.CodeTimeout || time.Since(start) > 2*time.Second+5*time.Second {
			t.Errorf("a hanging service: %+v after %s", res.Error, time.Since(start))
		}
		res = run(hostJob("limit", "acme", "s1", "for (let i = 0; i < 6; i++) kv.get('k')\nreturn 'done'", "kv"))
		if code(res) != flowjob.CodeHostCallLimit {
			t.Errorf("call 6 of 5: %+v", res.Error)
		}

		// kv: the next job of the session sees it; another session or
		// tenant never does.
		if res := run(hostJob("kv-set", "acme", "s1", "kv.set('cart', {items: 2}); return 'ok'", "kv")); res.Status != flowjob.StatusSucceeded {
			t.Fatalf("kv.set: %+v", res.Error)
		}
		for _, tc := range []struct{ tenant, session, want string }{
			{"acme", "s1", `{"items":2}`}, {"acme", "s2", ""}, {"globex", "s1", ""},
		} {
			res := run(hostJob(fmt.Sprintf("kv-get-%s-%s", tc.tenant, tc.session), tc.tenant, tc.session,
				"const v = kv.get('cart'); return v === undefined ? '' : v", "kv"))
			if res.Variables["out"] != tc.want {
				t.Errorf("tenant %s session %s reads %q, want %q (%+v)", tc.tenant, tc.session, res.Variables["out"], tc.want, res.Error)
			}
		}
	})
}

// TestKVSurvivesARestart: what a job stored is there for the session's
// next job on an executor started afterwards.
func TestKVSurvivesARestart(t *testing.T) {
	url := testenv.MachineNATSURL(t)
	env, cfg := names(t, url)
	env = capabilityEnv(t, env, "http://127.0.0.1:1")
	testenv.DeleteStreamsAtCleanup(t, url, "KV_"+env["KV_BUCKET"])
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	client := newClient(t, nc, cfg)
	provisioned(t, nc, cfg) // the first job may come before the executor made its streams
	first := startBinary(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if res, err := client.Run(ctx, hostJob("before", "acme", "s9", "kv.set('step', 'pagamento'); return 'ok'", "kv")); err != nil || res.Status != flowjob.StatusSucceeded {
		t.Fatalf("kv.set: %+v, %v", res, err)
	}
	_ = first.cmd.Process.Kill()
	first.wait(t, 10*time.Second)
	startBinary(t, env)
	res, err := client.Run(ctx, hostJob("after", "acme", "s9", "return kv.get('step')", "kv"))
	if err != nil || res.Variables["out"] != "pagamento" {
		t.Fatalf("after a restart: %+v, %v", res, err)
	}
}
