package httpapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRedirectsStayOnTheConnectorsHost(t *testing.T) {
	other := newStub(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other host") })
	var auth []string
	s := newStub(t, func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/api/customers/old":
			http.Redirect(w, r, "/api/customers/new", http.StatusMovedPermanently)
		case "/api/customers/new":
			_, _ = io.WriteString(w, "moved here")
		case "/api/customers/away":
			http.Redirect(w, r, other.URL+"/api/customers/1", http.StatusFound)
		case "/api/customers/sideways":
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/api/customers/1", http.StatusFound)
		case "/api/customers/up":
			http.Redirect(w, r, "../admin", http.StatusFound)
		case "/api/customers/root":
			http.Redirect(w, r, "/customers/1", http.StatusFound) // outside the base path
		case "/api/customers/encoded":
			http.Redirect(w, r, "/api/customers/%2e%2e/admin", http.StatusFound)
		case "/api/customers/post":
			http.Redirect(w, r, "/api/customers/new", http.StatusSeeOther) // POST becomes GET
		case "/api/customers/loop":
			http.Redirect(w, r, "/api/customers/loop", http.StatusFound)
		case "/api/admin":
			_, _ = io.WriteString(w, "admin")
		}
	})
	c := newClient(t, map[string]Connector{"crm": crm(s.URL + "/api")})
	get := func(path string) (Response, error) {
		return c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: path})
	}

	resp, err := get("/customers/old")
	if err != nil || resp.Body != "moved here" {
		t.Fatalf("same-host redirect: %+v, %v", resp, err)
	}
	if len(auth) != 2 || auth[1] != "Bearer "+testToken {
		t.Fatalf("the credential did not follow a same-host redirect: %q", auth)
	}

	for path, want := range map[string]string{
		"/customers/away":     "a redirect to another host was refused",
		"/customers/sideways": "a redirect to another host was refused",
		"/customers/up":       "a redirect to a path the connector does not allow was refused",
		"/customers/root":     "a redirect to a path the connector does not allow was refused",
		"/customers/encoded":  "a redirect to a path the connector does not allow was refused",
		"/customers/loop":     "stopped after 5 redirects",
	} {
		_, err := get(path)
		n := asNetwork(t, err)
		if n.Message != `connector "crm": GET `+path+": "+want {
			t.Errorf("%s: message %q", path, n.Message)
		}
	}
	other.assertHits(t, 0)

	// A 303 turns POST into GET: followed when GET is allowed, refused otherwise.
	if _, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "POST", Path: "/customers/post"}); err != nil {
		t.Fatal(err)
	}
	postOnly := crm(s.URL + "/api")
	postOnly.Methods = []string{"POST"}
	c2 := newClient(t, map[string]Connector{"crm": postOnly})
	_, err = c2.Do(context.Background(), "acme", Request{Connector: "crm", Method: "POST", Path: "/customers/post"})
	if n := asNetwork(t, err); !strings.Contains(n.Message, "a redirect to a method the connector does not allow") {
		t.Fatalf("message %q", n.Message)
	}
}
