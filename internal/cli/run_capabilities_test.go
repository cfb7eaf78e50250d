package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunWithCapabilities: an author runs a script with the executor's
// policy and sees what production would do: the grant, the connector's
// answer, CAPABILITY_DENIED when not granted, and the console lines.
func TestRunWithCapabilities(t *testing.T) {
	var requests atomic.Int64
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("X-Key") != "k-123" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = fmt.Fprintf(w, `{"name":"Ana"}`)
	}))
	defer stub.Close()
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte(fmt.Sprintf(`
tenants:
  acme: {capabilities: [api, kv]}
connectors:
  crm:
    baseURL: %s
    methods: [GET]
    pathPrefixes: [/customers]
    headers: {X-Key: {env: CRM_KEY}}
    tenants: [acme]
`, stub.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "console.log('oi')\nkv.set('a', 1)\nreturn api.get('crm', '/customers/1').json.name + kv.get('a')"
	env := map[string]string{"CRM_KEY": "k-123"}

	code, out, errOut := invocation{args: []string{"run", "--tenant", "acme", "--capability", "api", "--capability", "kv", "--policy", policy, "-"},
		stdin: script, env: env}.run(t)
	if code != ExitOK || strings.TrimSpace(out) != "Ana1" || !strings.Contains(errOut, "[log] line 1: oi") {
		t.Fatalf("granted: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, out, _ = invocation{args: []string{"run", "--json", "--tenant", "other", "--capability", "api", "--policy", policy, "-"},
		stdin: script, env: env}.run(t)
	var res struct {
		Error *struct {
			Code string `json:"code"`
			Line int    `json:"line"`
		} `json:"error"`
		Logs []struct{ Message string } `json:"logs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitFailed || res.Error == nil ||
		res.Error.Code != "CAPABILITY_DENIED" || res.Error.Line != 2 || len(res.Logs) != 1 {
		t.Fatalf("another tenant: exit %d, %s (%v)", code, out, err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the connector got %d requests, want 1 (the granted run's)", n)
	}
	if code, _, errOut := (invocation{args: []string{"run", "--capability", "fetch", "-"}, stdin: "return 1"}).run(t); code != ExitUsage || !strings.Contains(errOut, `unknown capability "fetch"`) {
		t.Errorf("an unknown capability: exit %d, %q", code, errOut)
	}
	// The warning names what is not granted, and why.
	_, _, errOut = invocation{args: []string{"run", "--tenant", "acme", "--capability", "api", "--capability", "approval", "--capability", "api", "--policy", policy, "-"},
		stdin: "return 1", env: env}.run(t)
	if want := fmt.Sprintf("flowscript run: %s does not grant tenant \"acme\" approval: a call of it throws CAPABILITY_DENIED\n", policy); errOut != want {
		t.Errorf("a capability the policy does not grant: stderr %q, want %q", errOut, want)
	}
	_, _, errOut = invocation{args: []string{"run", "--capability", "kv", "-"}, stdin: "return 1"}.run(t)
	if want := "no --policy, so nothing is granted: a call of kv throws CAPABILITY_DENIED"; !strings.Contains(errOut, want) {
		t.Errorf("no policy: stderr %q, want %q", errOut, want)
	}
}

// TestRunThroughApprovals: --resolution answers approval requests in
// order; without enough of them the run ends suspended (exit 3).
func TestRunThroughApprovals(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("tenants:\n  acme: {capabilities: [approval]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "const a = approval.request({message: 'first?'})\nconst b = approval.request({message: 'second?', data: a})\nreturn a + '/' + b"
	args := []string{"run", "--tenant", "acme", "--capability", "approval", "--policy", policy}

	code, out, errOut := invocation{args: append(append([]string{}, args...), "--resolution", `"yes"`, "--resolution", `"no"`, "-"), stdin: script}.run(t)
	if code != ExitOK || strings.TrimSpace(out) != "yes/no" || !strings.Contains(errOut, `[approval] {"message":"second?","data":"yes"} answered "no"`) {
		t.Fatalf("answered: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(errOut, "not used") {
		t.Errorf("every resolution used, yet: %q", errOut)
	}
	// More answers than requests: the run ends, and the extra ones are named.
	code, out, errOut = invocation{args: append(append([]string{}, args...), "--resolution", `"yes"`, "--resolution", `"no"`, "--resolution", "3", "-"), stdin: script}.run(t)
	if code != ExitOK || strings.TrimSpace(out) != "yes/no" ||
		!strings.Contains(errOut, "the script asked for approval 2 times; the last --resolution was not used") {
		t.Fatalf("an extra resolution: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = invocation{args: append(append([]string{}, args...), "--json", "--resolution", `"yes"`, "-"), stdin: script}.run(t)
	var res struct {
		Suspended bool            `json:"suspended"`
		Request   json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitSuspended || !res.Suspended ||
		string(res.Request) != `{"message":"second?","data":"yes"}` {
		t.Fatalf("suspended: exit %d, %s (%v)", code, out, err)
	}
	if code, _, errOut := (invocation{args: append(append([]string{}, args...), "--resolution", "{", "-"), stdin: script}).run(t); code != ExitUsage || !strings.Contains(errOut, "must be JSON") {
		t.Errorf("a resolution that is not JSON: exit %d, %q", code, errOut)
	}
	if code, _, errOut := (invocation{args: []string{"run", "--resolution", "true", "-"}, stdin: script}).run(t); code != ExitUsage || !strings.Contains(errOut, "--resolution answers approval.request: add --capability approval") {
		t.Errorf("a resolution without the approval capability: exit %d, %q", code, errOut)
	}
}
