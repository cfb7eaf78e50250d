package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestPathNeverLeavesBaseURL(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL + "/api/v1/")})
	for _, tc := range []struct{ path, want string }{
		{"http://evil.example/customers", "absolute URLs"},
		{"https:/customers", "absolute URLs"},
		{"HTTP:customers", "absolute URLs"},
		{"javascript:alert(1)", "absolute URLs"},
		{"//evil.example/customers", "cannot name a host"},
		{`\\evil.example\customers`, "backslash"},
		{`/customers\..\admin`, "backslash"},
		{"/customers/../admin", "'..' segments"},
		{"/customers/..", "'..' segments"},
		{"/customers/./42", "'.' and '..'"},
		{"/customers/..;/admin", "'..' segments"},
		{"/customers/%2e%2e/admin", "encoded character %2e"},
		{"/customers/%2E%2e/admin", "encoded character %2E"},
		{"/customers/.%2e/admin", "encoded character %2e"},
		{"/customers%2f..%2fadmin", "encoded character %2f"},
		{"/customers%2F42", "encoded character %2F"},
		{"/customers/%5c..%5cadmin", "encoded character %5c"},
		{"/customers/%252e%252e/admin", "encoded character %25"},
		{"/customers/%00", "encoded character %00"},
		{"/customers/%zz", "percent-encoded byte"},
		{"/customers/%4", "percent-encoded byte"},
		{"/customers@evil.example", "'@'"},
		{"/customers/a@b", "'@'"},
		{"/customers/42#frag", "fragment"},
		{"/customers/4\n2", "control characters"},
		{"/customers/\x00", "control characters"},
		{"/customers/\x7f", "control characters"},
		{"/customers//42", "empty segments"},
		{"/customers/a b", "must be percent-encoded"},
		{"/customers/ä", "the character 'ä' must be percent-encoded"},
		{"/customers?q=joão", "the character 'ã' in the query must be percent-encoded"},
		{"/customers?q=a b", "in the query must be percent-encoded"},
		{"/customers?q=%x", "in the query must start"},
		{"/customers-admin", "allows only /customers, /orders"},
		{"/customersX/1", "allows only"},
		{"/orders-old", "allows only"},
		{"/admin", "allows only"},
		{"/", "allows only"},
		{"", "allows only"},
		{"/%63ustomers", "allows only"}, // prefixes match the path as sent
	} {
		_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: tc.path})
		d := asDenied(t, err)
		if !strings.Contains(d.Message, tc.want) {
			t.Errorf("path %q: message %q does not contain %q", tc.path, d.Message, tc.want)
		}
	}
	s.assertHits(t, 0)
}

func TestPathUnderPrefixReachesTheBase(t *testing.T) {
	var seen []string
	s := newStub(t, func(_ http.ResponseWriter, r *http.Request) { seen = append(seen, r.URL.RequestURI()) })
	c := newClient(t, map[string]Connector{"crm": crm(s.URL + "/api/v1")}) // no trailing slash: same base
	for _, p := range []string{
		"/customers",
		"/customers/",
		"customers/42",
		"/customers/42?x=1&y=a@b/c",
		"/customers/%40me;v=1",
		"/customers/a%20b:c",
		"/orders/7",
		"/orders",
	} {
		if _, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: p}); err != nil {
			t.Fatalf("path %q: %v", p, err)
		}
	}
	_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers?x=1",
		Query: map[string]string{"name": "Zoë & co", "a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/api/v1/customers",
		"/api/v1/customers/",
		"/api/v1/customers/42",
		"/api/v1/customers/42?x=1&y=a@b/c",
		"/api/v1/customers/%40me;v=1",
		"/api/v1/customers/a%20b:c",
		"/api/v1/orders/7",
		"/api/v1/orders",
		"/api/v1/customers?x=1&a=1&name=Zo%C3%AB+%26+co",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the stub saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestRootPrefixAllowsEverythingUnderTheBase(t *testing.T) {
	var seen string
	s := newStub(t, func(_ http.ResponseWriter, r *http.Request) { seen = r.URL.Path })
	conn := crm(s.URL)
	conn.PathPrefixes = []string{"/"}
	c := newClient(t, map[string]Connector{"crm": conn})
	if _, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: ""}); err != nil {
		t.Fatal(err)
	}
	if seen != "/" {
		t.Fatalf("path = %q, want /", seen)
	}
	_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/../etc/passwd"})
	asDenied(t, err)
	s.assertHits(t, 1)
}

// FuzzTarget: whatever a script writes, an accepted path stays on the base's
// scheme, host and path, under a prefix, with no dot segment once decoded.
func FuzzTarget(f *testing.F) {
	for _, s := range []string{"/customers/42?x=1", "/customers/../admin", "/customers/%2e%2e", "//h/x", "http://h/",
		"/customers;/..;/x", "customers/a%40b", "/orders/%252e", "/customers/\u2025"} {
		f.Add(s)
	}
	c, err := New(map[string]Connector{"crm": crm("https://crm.example.com/api/v1/")}, testEnv, nil)
	if err != nil {
		f.Fatal(err)
	}
	conn := c.connectors["crm"]
	f.Fuzz(func(t *testing.T, p string) {
		u, rel, err := c.target(conn, p, map[string]string{"q": p})
		if err != nil {
			asDenied(t, err)
			return
		}
		if u.Scheme != "https" || u.Host != "crm.example.com" || u.User != nil || u.Fragment != "" {
			t.Fatalf("%q left the base: %s", p, u)
		}
		if !strings.HasPrefix(u.EscapedPath(), "/api/v1/") || !conn.underPrefix(rel) {
			t.Fatalf("%q is outside the prefixes: %s", p, u)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if name, _, _ := strings.Cut(seg, ";"); name == "." || name == ".." {
				t.Fatalf("%q has a dot segment once decoded: %q", p, u.Path)
			}
		}
		if strings.ContainsAny(u.Path, "\\%") || strings.Contains(rel, "//") {
			t.Fatalf("%q: decoded path %q", p, u.Path)
		}
	})
}
