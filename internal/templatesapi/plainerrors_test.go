package templatesapi

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHandlersPlainAnswersPassUnchanged: only net/http's own answers are
// rewritten; a handler's answer that imitates one (plain text, Connection:
// close, the same status and text) reaches the client as the handler wrote
// it, since net/http adds its Date header and sorts the headers; and one
// that drops the Date header too, with a text of its own, is not taken
// for net/http's either.
func TestHandlersPlainAnswersPassUnchanged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "400 Bad Request")
	})
	hs, limited := newHTTPServer(testConfig(), slog.New(slog.DiscardHandler), ln, h)
	go hs.Serve(limited) //nolint:errcheck // closed below
	t.Cleanup(func() { _ = hs.Close() })

	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || string(raw) != "400 Bad Request" {
		t.Errorf("the handler's answer came as %d %q %q, want it unchanged", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}

func TestJSONServerErrorWantsNetHTTPsText(t *testing.T) {
	for _, c := range []struct {
		write string
		ok    bool
	}{
		{"HTTP/1.1 400 Bad Request" + netHTTPErrorHeaders + "400 Bad Request", true},
		{"HTTP/1.1 400 Bad Request: missing required Host header" + netHTTPErrorHeaders + "400 Bad Request: missing required Host header", true},
		{"HTTP/1.1 501 Not Implemented" + netHTTPErrorHeaders + "Unsupported transfer encoding", true},
		{"HTTP/1.1 400 Bad Request" + netHTTPErrorHeaders + "hello from a handler", false},
		{"HTTP/1.1 501 Not Implemented" + netHTTPErrorHeaders + "501 Not Implemented", true},
		{"HTTP/1.1 200 OK" + netHTTPErrorHeaders + "200 OK", false},
		{"HTTP/1.1 400 Bad Request\r\nDate: x" + netHTTPErrorHeaders + "400 Bad Request", false},
	} {
		answer, ok := jsonServerError([]byte(c.write))
		if ok != c.ok || ok && !strings.Contains(string(answer), `"error":{"code":`) {
			t.Errorf("%q: rewritten %v (%q), want %v", c.write, ok, answer, c.ok)
		}
	}
}
