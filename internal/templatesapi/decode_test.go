package templatesapi

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// encoding/json forgives duplicate keys (the last wins), field names in
// another case and invalid UTF-8 (replaced by U+FFFD); the API refuses
// them with a 400 naming the problem, and writes nothing.
func TestJSONBodiesAreStrict(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	for _, tt := range []struct {
		name, path, body string
		code, field      string
		mention          string
	}{
		{"duplicate key", "/api/script-templates", `{"name":"a","source":"return 1","name":"b"}`, CodeDuplicateField, "name", "appears twice"},
		{"duplicate source hiding a payload", "/api/script-templates", `{"name":"a","source":"return 1","source":"require('fs')"}`, CodeDuplicateField, "source", "appears twice"},
		{"wrong case", "/api/script-templates", `{"Name":"a","source":"return 1"}`, CodeFieldCase, "Name", `did you mean "name"`},
		{"wrong case beside the right one", "/api/script-templates", `{"name":"a","SOURCE":"return 2","source":"return 1"}`, CodeFieldCase, "SOURCE", `"source"`},
		{"wrong case nested", "/api/scripts/test", `{"source":"return x","inputVariables":[{"name":"x","value":"1"},{"NAME":"y","value":"2"}]}`, CodeFieldCase, "inputVariables[1].NAME", `"inputVariables[1].name"`},
		{"duplicate nested", "/api/scripts/test", `{"source":"return x","inputVariables":[{"name":"x","value":"1","value":"2"}]}`, CodeDuplicateField, "inputVariables[0].value", "appears twice"},
		{"invalid UTF-8", "/api/script-templates", "{\"name\":\"a\xff\xfe\",\"source\":\"return 1\"}", CodeInvalidUTF8, "", "offset 10"},
		{"truncated UTF-8", "/api/script-templates", "{\"name\":\"caf\xc3\",\"source\":\"return 1\"}", CodeInvalidUTF8, "", "not valid UTF-8"},
		{"lone high surrogate", "/api/script-templates", `{"name":"a\ud800","source":"return 1"}`, CodeInvalidUTF8, "", "surrogate"},
		{"lone low surrogate", "/api/script-templates", `{"name":"a\udc00b","source":"return 1"}`, CodeInvalidUTF8, "", "surrogate"},
		{"reversed pair", "/api/script-templates", `{"name":"\ude00\ud83d","source":"return 1"}`, CodeInvalidUTF8, "", "surrogate"},
		{"unknown field", "/api/script-templates", `{"name":"a","source":"return 1","owner":"x"}`, CodeUnknownField, "owner", "unknown field"},
		{"byte order mark", "/api/script-templates", "\ufeff" + `{"name":"a","source":"return 1"}`, CodeInvalidJSON, "", "byte order mark"},
		{"integer too large", "/api/scripts/test", `{"source":"return 1","timeoutMs":99999999999999999999999}`, CodeInvalidJSON, "timeoutMs", "must be an integer from -9007199254740992 to 9007199254740992, got 99999999999999999999999"},
		{"integer past 2^53 that fits 64 bits", "/api/scripts/test", `{"source":"return 1","timeoutMs":9007199254740993}`, CodeInvalidJSON, "timeoutMs", "must be an integer from -9007199254740992 to 9007199254740992, got 9007199254740993"},
		{"largest 64-bit integer", "/api/scripts/test", `{"source":"return 1","timeoutMs":9223372036854775807}`, CodeInvalidJSON, "timeoutMs", "to 9007199254740992"},
		{"fraction for an integer", "/api/scripts/test", `{"source":"return 1","timeoutMs":1.5}`, CodeInvalidJSON, "timeoutMs", "timeoutMs must be a whole number, got 1.5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.authed("POST", tt.path, tt.body)
			wantStatus(t, r, http.StatusBadRequest)
			e := r.apiErr(t)
			if e.Code != tt.code || !strings.Contains(e.Message, tt.mention) {
				t.Errorf("error %+v, want %s mentioning %q", e, tt.code, tt.mention)
			}
			if tt.field != "" && (len(e.Fields) != 1 || e.Fields[0].Field != tt.field) {
				t.Errorf("fields %+v, want %s", e.Fields, tt.field)
			}
		})
	}
	if list := a.list(); len(list) != 0 {
		t.Errorf("refused bodies wrote %d templates", len(list))
	}

	// What is strictly valid still passes: escaped pairs, escaped quotes
	// and backslashes before a u, keys that only look alike.
	r := a.authed("POST", "/api/script-templates", `{"name":"smile \ud83d\ude00 \\ud800 \"q\"","description":"é","source":"return '\u00e9'"}`)
	wantStatus(t, r, http.StatusCreated)
	var tpl savedTemplate
	r.json(t, &tpl)
	if tpl.Name != `smile 😀 \ud800 "q"` || tpl.Description != "é" {
		t.Errorf("saved %q / %q", tpl.Name, tpl.Description)
	}
	if r, out := a.testRun(map[string]any{"source": "return a + b", "inputVariables": []map[string]string{input("a", "1"), input("b", "2")}}); r.status != http.StatusOK || !out.OK {
		t.Errorf("test run: %d %s", r.status, r.raw)
	}
}

func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"\ud83d\ude00"`, `"\ud800"`, `"\\ud800"`, `"\\\ud800"`, `{"a":"\udc00"}`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		at, found := loneSurrogate(raw)
		if found && (at < 0 || at >= len(raw) || raw[at] != '\\') {
			t.Errorf("loneSurrogate(%q) = %d, not at a backslash", raw, at)
		}
	})
}

// An unknown path's 404 says what to change: the trailing slash, or where
// the routes are listed.
func TestUnknownPathsSayWhatToChange(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	tpl := a.create("slash", "return 1")
	for path, want := range map[string]string{
		"/api/script-templates/" + tpl.ID.String() + "/": "drop the trailing slash",
		"/api/scripts":      "the routes are in /api/openapi.json",
		"/script-templates": "the routes are under /api",
		// The decoded path names a route that exists: the answer shows
		// the path as sent, and why it is not that route.
		"/api/script-templates%2F" + tpl.ID.String(): "/api/script-templates%2F" + tpl.ID.String() + ": a path segment cannot hold an encoded slash (%2F)",
	} {
		r := a.authed("GET", path, nil)
		wantStatus(t, r, http.StatusNotFound)
		if e := r.apiErr(t); !strings.Contains(e.Message, want) {
			t.Errorf("GET %s: %q, want it to say %q", path, e.Message, want)
		}
	}
}

// TestBodyReadFailuresAreNotBadJSON: a body that stops arriving (the
// server's read deadline passed) is 408 REQUEST_TIMEOUT, and no answer
// carries the network error's text, which names the sockets' addresses.
func TestBodyReadFailuresAreNotBadJSON(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Close() }()
	if _, err := client.Write([]byte(`{"name":"slow",`)); err != nil {
		t.Fatal(err)
	}
	if err := server.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/api/script-templates", server)
	r.Header.Set("Content-Type", "application/json")
	var dst struct{ Name string }
	herr := decodeJSON(httptest.NewRecorder(), r, 1<<20, &dst)
	if herr == nil || herr.status != http.StatusRequestTimeout || herr.Code != CodeRequestTimeout {
		t.Fatalf("got %+v, want 408 %s", herr, CodeRequestTimeout)
	}
	if strings.Contains(herr.Message, "127.0.0.1") || !strings.Contains(herr.Message, "send it at once") {
		t.Errorf("message %q should say what to do, without the sockets addresses", herr.Message)
	}
}

// A field or parameter name is the client's choice and may be huge: the
// answer names it cut, once per place, never whole (a 1.5 MB key was
// echoed three times).
func TestLongFieldNamesAreEchoedCut(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	long := strings.Repeat("k", 20000)
	for _, tt := range []struct {
		name, method, path, body, code string
	}{
		{"unknown field", "POST", "/api/script-templates", `{"name":"a","source":"return 1","` + long + `":1}`, CodeUnknownField},
		{"unknown nested field", "POST", "/api/scripts/test", `{"source":"return 1","inputVariables":[{"name":"x","value":"1","` + long + `":1}]}`, CodeUnknownField},
		{"duplicate key in free JSON", "POST", "/api/scripts/test", `{"source":"return 1","resolutions":[{"` + long + `":1,"` + long + `":2}]}`, CodeDuplicateField},
		{"unknown query parameter", "GET", "/api/script-templates?" + long + "=1", "", CodeUnknownParameter},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			r := a.authed(tt.method, tt.path, body)
			wantStatus(t, r, http.StatusBadRequest)
			if len(r.raw) > 2000 {
				t.Errorf("the answer is %d bytes for a name of %d: %.300s…", len(r.raw), len(long), r.raw)
			}
			e := r.apiErr(t)
			if e.Code != tt.code || len(e.Fields) != 1 || !strings.HasSuffix(e.Fields[0].Field, "…") ||
				!strings.Contains(e.Message, "kkkk") || !strings.Contains(e.Fields[0].Message, "kkkk") {
				t.Errorf("error %.500v, want %s naming the field cut", e, tt.code)
			}
		})
	}
}
