package natsurl

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"nats://127.0.0.1:4222":                 "nats://127.0.0.1:4222",
		"nats://user:s3cret@nats:4222":          "nats://user:xxxxx@nats:4222",
		"nats://t0ken@nats:4222":                "nats://xxxxx@nats:4222",
		"nats://h1:4222,nats://u:s3cret@h2:1":   "nats://h1:4222,nats://u:xxxxx@h2:1",
		"nats://a:4222, nats://u:s3cret@b:4223": "nats://a:4222, nats://u:xxxxx@b:4223",
		" nats://a:4222 ,nats://b:4223 ":        " nats://a:4222 ,nats://b:4223 ",
		"nats://u:s3cret@h o:4222":              "nats://xxxxx@h o:4222",
		"://bad":                                "://bad",
		// Without "//", the parser finds no user part: everything before
		// the '@' is hidden (a probe found these printed whole).
		"alice:s3cret@127.0.0.1:4222": "xxxxx@127.0.0.1:4222",
		"nats:alice:s3cret@h:4222":    "xxxxx@h:4222",
		"nats:/alice:s3cret@h:4222":   "xxxxx@h:4222",
		"nats//alice:s3cret@h:4222":   "xxxxx@h:4222",
		"tls:alice:s3cret@h":          "xxxxx@h",
		"nats:t0ken@h:4222":           "xxxxx@h:4222",
	} {
		got := Redact(raw)
		if got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
		for _, secret := range []string{"s3cret", "t0ken"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) leaks %q", raw, secret)
			}
		}
	}
}

func TestParseAcceptsWhatNATSConnects(t *testing.T) {
	for raw, want := range map[string][]string{
		"nats://127.0.0.1:4222":                 {"nats://127.0.0.1:4222"},
		"nats://a:4222,nats://b:4223":           {"nats://a:4222", "nats://b:4223"},
		"nats://a:4222, nats://b:4223":          {"nats://a:4222", "nats://b:4223"},
		" nats://a:4222 ,\tnats://b:4223 ":      {"nats://a:4222", "nats://b:4223"},
		"tls://u:p@nats.example.com":            {"tls://u:p@nats.example.com"},
		"nats://[::1]:4222":                     {"nats://[::1]:4222"},
		"wss://nats.example.com/ws, ws://n:443": {"wss://nats.example.com/ws", "ws://n:443"},
		"NATS://A:4222/":                        {"NATS://A:4222/"},
	} {
		got, err := Parse(raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", raw, err)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("Parse(%q) = %q, want %q", raw, got, want)
		}
	}
}

// A refused URL is named by its position and shown without its secrets;
// every bad one is reported.
func TestParseNamesEachBadURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []string // in the error, in order
	}{
		{"nats//a:4222", []string{`"nats//a:4222" has no scheme`}},
		{"nats://a:4222, nats//b:4223", []string{`URL 2 of 2 ("nats//b:4223") has no scheme`}},
		{"nats://a:4222,,nats://b:4223", []string{"URL 2 of 3", "is empty"}},
		{"nats://a:4222,", []string{"URL 2 of 2", "is empty"}},
		{"http://a:4222", []string{`has the scheme "http"`}},
		{"nats://:4222", []string{"has no host"}},
		{"nats://a:99999", []string{`has the port "99999"`}},
		{"nats://a:42x2", []string{"is not a URL"}},
		{"nats://a:4222/b", []string{"has a path"}},
		{"nats://a:4222?x=1", []string{"has a query"}},
		{"nats://u:s3cret@a:42x2, nats://t0ken@ b", []string{"URL 1 of 2", "URL 2 of 2"}},
		{"alice:s3cret@127.0.0.1:4222", []string{`"xxxxx@127.0.0.1:4222" has no scheme`}},
		{"nats://a:4222,nats:alice:s3cret@b:4223", []string{`URL 2 of 2 ("xxxxx@b:4223") has no scheme`}},
		{"nats:t0ken@h:4222", []string{"has no scheme"}},
		{"nats://a:4222, ws://b:80", []string{"mixes WebSocket"}},
	} {
		_, err := Parse(tc.raw)
		if err == nil {
			t.Errorf("Parse(%q) accepted it", tc.raw)
			continue
		}
		msg := err.Error()
		at := 0
		for _, w := range tc.want {
			i := strings.Index(msg[at:], w)
			if i < 0 {
				t.Errorf("Parse(%q) error %q does not say %q (in order)", tc.raw, msg, w)
				break
			}
			at += i + len(w)
		}
		for _, secret := range []string{"s3cret", "t0ken"} {
			if strings.Contains(msg, secret) {
				t.Errorf("Parse(%q) error leaks %q: %s", tc.raw, secret, msg)
			}
		}
		var e *Error
		if !strings.Contains(tc.raw, "ws://") && !errors.As(err, &e) {
			t.Errorf("Parse(%q) error %T is no *natsurl.Error", tc.raw, err)
		}
	}
}

// What Parse accepts, the NATS client takes as a server list (it fails
// only to connect, not to parse).
func TestParsedListIsANATSServerList(t *testing.T) {
	urls, err := Parse("nats://127.0.0.1:1, nats://127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	opts := nats.GetDefaultOptions()
	if err := nats.Name("x")(&opts); err != nil {
		t.Fatal(err)
	}
	opts.Servers = urls
	opts.AllowReconnect = false
	_, err = opts.Connect()
	if !errors.Is(err, nats.ErrNoServers) {
		t.Errorf("connecting to two closed ports: %v, want nats.ErrNoServers (a parse error would be another)", err)
	}
	if got := Join(urls); got != "nats://127.0.0.1:1,nats://127.0.0.1:2" {
		t.Errorf("Join = %q", got)
	}
}
