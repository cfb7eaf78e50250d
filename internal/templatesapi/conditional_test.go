package templatesapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
)

// TestIfMatchOfAnotherResource: a PUT or DELETE whose If-Match is the ETag
// of another template, of a version or of a list is told so, not that the
// template changed (it did not), and nothing is written.
func TestIfMatchOfAnotherResource(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		x, y := a.create("x", "return 1"), a.create("y", "return 1")
		one := "/api/script-templates/" + y.ID.String()
		tagOf := func(path string) string {
			r := a.authed("GET", path, nil)
			wantStatus(t, r, http.StatusOK)
			return r.header.Get("ETag")
		}
		others := map[string]string{
			"another template":            tagOf("/api/script-templates/" + x.ID.String()),
			"a version of this template":  tagOf(one + "/versions/1"),
			"the versions of this one":    tagOf(one + "/versions"),
			"the list":                    tagOf("/api/script-templates"),
			"another template and a list": tagOf("/api/script-templates/"+x.ID.String()) + ", " + tagOf("/api/script-templates"),
		}
		for name, tag := range others {
			for _, r := range []response{
				a.authed("PUT", one, map[string]string{"name": "y", "source": "return 2"}, "If-Match", tag),
				a.authed("DELETE", one, nil, "If-Match", tag),
			} {
				wantStatus(t, r, http.StatusPreconditionFailed)
				if e := r.apiErr(t); e.Code != CodePreconditionFailed || !strings.Contains(e.Message, "of another template or version") ||
					strings.Contains(e.Message, "changed") {
					t.Errorf("If-Match of %s: %+v, want it named a tag of another resource", name, e)
				}
			}
		}
		// A stale tag of this template beside another's is still stale.
		stale := tagOf(one)
		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "y", "source": "return 3"}), http.StatusOK)
		r := a.authed("PUT", one, map[string]string{"name": "y", "source": "return 4"}, "If-Match", stale+", "+others["another template"])
		wantStatus(t, r, http.StatusPreconditionFailed)
		if e := r.apiErr(t); !strings.Contains(e.Message, "changed") || !strings.Contains(e.Message, "version 2") {
			t.Errorf("a stale tag: %+v, want it called changed", e)
		}
		var got templates.Template
		if a.authed("GET", one, nil).json(t, &got); got.Version != 2 {
			t.Errorf("after refused writes: version %d, want 2", got.Version)
		}
	})
}

// TestIfMatchNotOfThisService: a PUT or DELETE whose If-Match holds only
// tags this service never gave out ("bogus", another service's) is told
// that, and what to send, not that the template changed since a read
// (there was none); a GET so too. A stale tag beside one is still stale.
func TestIfMatchNotOfThisService(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		one := "/api/script-templates/" + a.create("x", "return 1").ID.String()
		for _, tag := range []string{`"bogus"`, `"bogus", "another-bogus"`, `"` + strings.Repeat("A", 31) + `"`} {
			for _, r := range []response{
				a.authed("PUT", one, map[string]string{"name": "x", "source": "return 2"}, "If-Match", tag),
				a.authed("DELETE", one, nil, "If-Match", tag),
			} {
				wantStatus(t, r, http.StatusPreconditionFailed)
				if e := r.apiErr(t); e.Code != CodePreconditionFailed || !strings.Contains(e.Message, "no tag of this service") ||
					!strings.Contains(e.Message, "ETag a GET of this template answered") || strings.Contains(e.Message, "changed") {
					t.Errorf("If-Match %s: %+v, want it called no tag of this service", tag, e)
				}
			}
			r := a.authed("GET", one, nil, "If-Match", tag)
			wantStatus(t, r, http.StatusPreconditionFailed)
			if e := r.apiErr(t); !strings.Contains(e.Message, "no tag of this service") || strings.Contains(e.Message, "changed") {
				t.Errorf("GET with If-Match %s: %+v, want it called no tag of this service", tag, e)
			}
		}
		stale := a.authed("GET", one, nil).header.Get("ETag")
		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "x", "source": "return 3"}, "If-Match", stale), http.StatusOK)
		r := a.authed("PUT", one, map[string]string{"name": "x", "source": "return 4"}, "If-Match", `"bogus", `+stale)
		wantStatus(t, r, http.StatusPreconditionFailed)
		if e := r.apiErr(t); !strings.Contains(e.Message, "changed") || !strings.Contains(e.Message, "version 2") {
			t.Errorf("a stale tag beside a bogus one: %+v, want it called changed", e)
		}
		var got templates.Template
		if a.authed("GET", one, nil).json(t, &got); got.Version != 2 {
			t.Errorf("after refused writes: version %d, want 2", got.Version)
		}
	})
}

// TestConditionalCreate: a POST to the collection evaluates its
// conditions against the collection, which exists and has no entity tag
// (RFC 9110 §13.1): If-None-Match: * and an If-Match other than * are 412
// and nothing is saved; If-Match: * and a tag in If-None-Match create.
func TestConditionalCreate(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	body := map[string]string{"name": "made", "source": "return 1"}
	for _, h := range [][]string{{"If-None-Match", "*"}, {"If-Match", `"bogus"`}, {"If-Match", `"a", "b"`}} {
		r := a.authed("POST", "/api/script-templates", body, h...)
		wantStatus(t, r, http.StatusPreconditionFailed)
		if e := r.apiErr(t); e.Code != CodePreconditionFailed || !strings.Contains(e.Message, "nothing was written") {
			t.Errorf("%s: %+v", h, e)
		}
	}
	var list []templates.Template
	if a.authed("GET", "/api/script-templates", nil).json(t, &list); len(list) != 0 {
		t.Fatalf("refused creates saved %d templates", len(list))
	}
	wantStatus(t, a.authed("POST", "/api/script-templates", body, "If-Match", "*"), http.StatusCreated)
	wantStatus(t, a.authed("POST", "/api/script-templates", body, "If-None-Match", `"x"`), http.StatusCreated)
}

// countingChecker counts the compile checks a save asks for.
type countingChecker struct {
	guardrails.Checker
	checks atomic.Int64
}

func (c *countingChecker) Check(ctx context.Context, req guardrails.CheckRequest) guardrails.CheckResult {
	c.checks.Add(1)
	return c.Checker.Check(ctx, req)
}

// TestPutToMissingTemplateChecksNoSource: a PUT to an id no template has is
// 404 before its source is checked, a check that waits for a sandbox
// worker (seconds while test runs hold them all).
func TestPutToMissingTemplateChecksNoSource(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		checker := &countingChecker{Checker: guardrails.NewInProcess(cfg.Sandbox)}
		srv, err := NewServer(cfg, open(t, cfg), sandbox.NewInProcess(cfg.Sandbox), checker, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		t.Cleanup(srv.Close)
		t.Cleanup(ts.Close)
		a := &api{t: t, srv: srv, ts: ts, client: ts.Client()}

		r := a.authed("PUT", "/api/script-templates/"+uuid.NewString(), map[string]string{"name": "x", "source": "return 1"})
		wantStatus(t, r, http.StatusNotFound)
		if n := checker.checks.Load(); n != 0 {
			t.Errorf("a PUT to no template checked its source %d times, want none", n)
		}
		tpl := a.create("x", "return 1")
		wantStatus(t, a.authed("PUT", "/api/script-templates/"+tpl.ID.String(), map[string]string{"name": "x", "source": "return 2"}), http.StatusOK)
		if n := checker.checks.Load(); n != 2 {
			t.Errorf("a create and a PUT checked %d sources, want 2", n)
		}
	})
}
