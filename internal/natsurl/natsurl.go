// Package natsurl prints NATS URLs without their secrets, for logs and
// error messages of the executor and the CLI. It must never return a
// password or a token.
package natsurl

import (
	"net/url"
	"strings"
)

// Redact hides the password of each URL of raw (NATS takes a
// comma-separated list), or the whole user part when it has no password
// (NATS reads a bare user as a token).
func Redact(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		parts[i] = redactOne(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

func redactOne(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword {
			return u.Redacted()
		}
		u.User = url.User("xxxxx") // a token in the user part
	}
	return u.String()
}
