package natsurl

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"nats://127.0.0.1:4222":               "nats://127.0.0.1:4222",
		"nats://user:s3cret@nats:4222":        "nats://user:xxxxx@nats:4222",
		"nats://t0ken@nats:4222":              "nats://xxxxx@nats:4222",
		"nats://h1:4222,nats://u:s3cret@h2:1": "nats://h1:4222,nats://u:xxxxx@h2:1",
		"://bad":                              "(unparsable URL)",
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
