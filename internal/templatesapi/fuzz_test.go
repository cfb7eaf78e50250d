package templatesapi

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzSaveTemplate: whatever the source — deeply nested, pathological, not
// JavaScript at all — a save answers 201 or a 4xx in the one error shape,
// never a 5xx, and a source refused for what it is carries its field.
// (The checker here is the in-process one; the worker pool's answers to the
// same sources are TestCheckRunsInAWorker's and TestAPIBinary*'s.)
func FuzzSaveTemplate(f *testing.F) {
	for _, s := range []string{
		"return 1", "return " + strings.Repeat("[", 600), strings.Repeat("{", 600) + strings.Repeat("}", 600),
		"return " + strings.Repeat("!", 2100) + "1", "return 1" + strings.Repeat("+1", 2100),
		"return require('fs')", "async function execute() {}", "}); (function(){", "", " ", "\x00",
		"const a = 1\u2028\u2029return process", "return " + strings.Repeat("`${", 600), "return /[(/",
	} {
		f.Add(s)
	}
	cfg := testConfig()
	a := startAPI(f, cfg, openEmbedded(f, cfg), nil)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 6<<10 {
			return // see sandbox.FuzzBuilderDeep: the parser's errors grow with the square of some texts
		}
		a.t = t
		r := a.authed("POST", "/api/script-templates", map[string]string{"name": "fuzz", "source": src})
		switch {
		case r.status == http.StatusCreated:
		case r.status >= 400 && r.status < 500:
			e := r.apiErr(t)
			if r.status == http.StatusUnprocessableEntity && len(e.Fields) == 0 {
				t.Fatalf("422 without fields: %s", r.raw)
			}
		default:
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
	})
}
