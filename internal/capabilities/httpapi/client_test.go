package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestDoCallsTheConnectorWithTheSecret(t *testing.T) {
	var got http.Header
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "first")
		w.Header().Add("X-Multi", "second")
		_, _ = io.WriteString(w, `{"id":42,"name":"Ana"}`)
	})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL + "/api/")})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "get", Path: "/customers/42",
		Headers: map[string]string{"x-trace": "abc", "Cookie": "a=b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer "+testToken || got.Get("X-Trace") != "abc" || got.Get("Cookie") != "a=b" ||
		got.Get("User-Agent") != userAgent {
		t.Fatalf("the stub got headers %v", got)
	}
	if resp.Status != 200 || resp.Body != `{"id":42,"name":"Ana"}` || string(resp.JSON) != resp.Body || resp.Truncated {
		t.Fatalf("response = %+v", resp)
	}
	if resp.Headers["content-type"] != "application/json" || resp.Headers["x-multi"] != "first" {
		t.Fatalf("headers = %v", resp.Headers)
	}
	b, _ := json.Marshal(resp)
	if strings.Contains(string(b), testToken) {
		t.Fatalf("the response holds the secret: %s", b)
	}
}

func TestPolicyDenialsSendNothing(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	billing := crm(s.URL)
	billing.Tenants = []string{"globex"}
	c := newClient(t, map[string]Connector{"crm": crm(s.URL), "billing": billing})
	for _, tc := range []struct {
		tenant string
		req    Request
		want   string
	}{
		{"acme", Request{Connector: "nope", Method: "GET", Path: "/customers"}, `connector "nope" is not available; this tenant may use: "crm"`},
		{"acme", Request{Connector: "billing", Method: "GET", Path: "/customers"}, `connector "billing" is not available; this tenant may use: "crm"`},
		{"initech", Request{Connector: "crm", Method: "GET", Path: "/customers"}, `this tenant may use: none`},
		{"", Request{Connector: "crm", Method: "GET", Path: "/customers"}, `this tenant may use: none`},
		{"acme", Request{Connector: "crm", Method: "DELETE", Path: "/customers/1"}, `connector "crm" does not allow DELETE; it allows GET, POST, PUT`},
		{"acme", Request{Connector: "crm", Method: "HEAD", Path: "/customers/1"}, `method "HEAD" is not supported`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Body: json.RawMessage(`{}`)}, `GET takes no body`},
		{"acme", Request{Connector: "crm", Method: "POST", Path: "/customers", Body: json.RawMessage(`{`)}, `not a JSON value`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"authorization": "Bearer mine"}},
			`connector "crm" sets header "Authorization" itself`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"Host": "evil.example"}}, `managed by the host`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"Transfer-Encoding": "chunked"}}, `managed by the host`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"Proxy-Authorization": "x"}}, `managed by the host`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"X-A": "1\r\nX-B: 2"}}, `control character`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"X A": "1"}}, `not valid`},
		{"acme", Request{Connector: "crm", Method: "GET", Path: "/customers", Headers: map[string]string{"x-a": "1", "X-A": "2"}}, `given twice`},
	} {
		_, err := c.Do(context.Background(), tc.tenant, tc.req)
		if d := asDenied(t, err); !strings.Contains(d.Message, tc.want) {
			t.Errorf("%+v: message %q does not contain %q", tc.req, d.Message, tc.want)
		}
	}
	s.assertHits(t, 0)
}

func TestConnectorsListsWhatATenantMayUse(t *testing.T) {
	any := crm("http://127.0.0.1:1")
	any.Tenants = []string{"*"}
	globex := crm("http://127.0.0.1:1")
	globex.Tenants = []string{"globex", "acme"}
	c := newClient(t, map[string]Connector{"crm": crm("http://127.0.0.1:1"), "public": any, "erp": globex})
	for tenant, want := range map[string]string{"acme": "crm,erp,public", "globex": "erp,public", "": "public"} {
		if got := strings.Join(c.Connectors(tenant), ","); got != want {
			t.Errorf("Connectors(%q) = %s, want %s", tenant, got, want)
		}
	}
}

func TestBodies(t *testing.T) {
	type seen struct{ method, contentType, body string }
	var got seen
	s := newStub(t, func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = seen{r.Method, r.Header.Get("Content-Type"), string(b)}
	})
	conn := crm(s.URL)
	conn.Methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	c := newClient(t, map[string]Connector{"crm": conn})
	for _, tc := range []struct {
		req  Request
		want seen
	}{
		{Request{Method: "POST", Body: json.RawMessage(` {"a":[1,2]} `)}, seen{"POST", "application/json", `{"a":[1,2]}`}},
		{Request{Method: "PUT", Body: json.RawMessage(`"plain \"text\" é"`)}, seen{"PUT", "text/plain; charset=utf-8", `plain "text" é`}},
		{Request{Method: "PATCH", Body: json.RawMessage(`null`)}, seen{"PATCH", "application/json", `null`}},
		{Request{Method: "POST", Body: json.RawMessage(`"a=1&b=2"`), Headers: map[string]string{"content-type": "application/x-www-form-urlencoded"}},
			seen{"POST", "application/x-www-form-urlencoded", `a=1&b=2`}},
		{Request{Method: "DELETE"}, seen{"DELETE", "", ""}},
		{Request{Method: "POST"}, seen{"POST", "", ""}},
	} {
		tc.req.Connector, tc.req.Path = "crm", "/customers/1"
		if _, err := c.Do(context.Background(), "acme", tc.req); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %s: the stub saw %+v, want %+v", tc.req.Method, tc.req.Body, got, tc.want)
		}
	}
}

// A service that echoes the credential back (or an error that would name
// it) never shows it to the script, in any of the forms it is echoed.
func TestSecretsNeverReachTheScript(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("X-Echo", auth)
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"auth": auth, "q": r.URL.Query().Get("pad")})
		_, _ = w.Write(b)
	})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Headers["x-echo"] != "Bearer [REDACTED]" || resp.Body != `{"auth":"Bearer [REDACTED]","q":""}` || resp.JSON == nil {
		t.Fatalf("response = %+v", resp)
	}
	if got := c.Redact("a " + testToken + " b %22" + testToken); got != "a [REDACTED] b %22[REDACTED]" {
		t.Fatalf("Redact = %q", got)
	}
}

// A script that moves the cut over an echoed credential (padding the
// response until the cap falls inside it) reads no piece of it.
func TestCutBodyHidesAPieceOfASecret(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Query().Get("pad")+r.Header.Get("Authorization")+"\n")
	})
	conn := crm(s.URL)
	conn.MaxResponseBytes = 64
	c := newClient(t, map[string]Connector{"crm": conn})
	for pad := 64 - len(testToken) + 1; pad < 64; pad++ { // the cut falls inside the token
		resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers",
			Query: map[string]string{"pad": strings.Repeat("x", pad-len("Bearer "))}})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Truncated {
			t.Fatalf("pad %d: not truncated: %+v", pad, resp)
		}
		rest := strings.TrimPrefix(strings.TrimLeft(resp.Body, "x"), "Bearer ")
		if rest != "" {
			t.Fatalf("pad %d: body %q ends with a piece of the secret", pad, resp.Body)
		}
	}
}

func TestSecretsFromFiles(t *testing.T) {
	var got string
	s := newStub(t, func(_ http.ResponseWriter, r *http.Request) { got = r.Header.Get("X-Api-Key") })
	conn := crm(s.URL)
	conn.Headers = map[string]Secret{"x-api-key": {File: "/run/secrets/crm"}}
	c, err := New(map[string]Connector{"crm": conn}, testEnv, func(name string) ([]byte, error) {
		if name != "/run/secrets/crm" {
			return nil, errors.New("no such file")
		}
		return []byte("file-secret-123\r\n"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers",
		Headers: map[string]string{"X-API-KEY": "mine"}})
	asDenied(t, err)
	if _, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"}); err != nil {
		t.Fatal(err)
	}
	if got != "file-secret-123" {
		t.Fatalf("X-Api-Key = %q", got)
	}
	if c.Redact("file-secret-123") != redacted {
		t.Fatal("the file's secret is not redacted")
	}
}

func TestStatusIsNotAnError(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "no such customer")
	})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers/9"})
	if err != nil || resp.Status != 404 || resp.Body != "no such customer" || resp.JSON != nil {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
	b, _ := json.Marshal(resp)
	if !strings.Contains(string(b), `"json":null`) {
		t.Fatalf("json is not null: %s", b)
	}
}

func TestNetworkFailureIsCatchable(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	base := s.URL
	s.Close() // nothing listens there any more
	c := newClient(t, map[string]Connector{"crm": crm(base)})
	_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
	n := asNetwork(t, err)
	if n.Message != `connector "crm": GET /customers: the connection was refused` || n.Timeout {
		t.Fatalf("error = %+v", n)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.URL.Path) })
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				resp, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers/1"})
				if err != nil || resp.Body != "/customers/1" {
					t.Errorf("Do = %+v, %v", resp, err)
					return
				}
			}
		})
	}
	wg.Wait()
	s.assertHits(t, 16*20)
}
