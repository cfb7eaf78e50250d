// Package natsurl reads and prints NATS server URLs for the executor and
// the CLI: NATS_URL (and --nats) is one URL or a comma-separated list of
// them, with optional spaces, as nats.go's Connect takes it. Parse checks
// the list URL by URL and names the bad one; Redact prints a list without
// its secrets.
//
// It must never return a password or a token, not even inside an error
// about a URL it cannot parse.
package natsurl

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Schemes nats.go connects with.
var schemes = map[string]bool{"nats": true, "tls": true, "ws": true, "wss": true}

// Error is one bad URL of a list.
type Error struct {
	// Index is the URL's position in the list, from 1.
	Index, Count int
	// URL is the URL as written, redacted.
	URL string
	// Reason says what is wrong with it.
	Reason string
}

func (e *Error) Error() string {
	if e.Count == 1 {
		return fmt.Sprintf("%q %s", e.URL, e.Reason)
	}
	return fmt.Sprintf("URL %d of %d (%q) %s", e.Index, e.Count, e.URL, e.Reason)
}

// Parse splits raw, one NATS URL or a comma-separated list of them (spaces
// around the commas allowed), and checks each one: a scheme nats://,
// tls://, ws:// or wss://, a host, an optional numeric port, no path except
// on WebSocket URLs, and no mix of WebSocket and plain URLs (nats.go
// refuses one). It returns the trimmed URLs, or every bad one as an *Error
// joined with errors.Join.
func Parse(raw string) ([]string, error) {
	parts := strings.Split(raw, ",")
	urls := make([]string, 0, len(parts))
	var errs []error
	var ws, plain bool
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if reason := check(p); reason != "" {
			errs = append(errs, &Error{Index: i + 1, Count: len(parts), URL: redactOne(p), Reason: reason})
			continue
		}
		if scheme, _, _ := strings.Cut(p, "://"); strings.HasPrefix(strings.ToLower(scheme), "ws") {
			ws = true
		} else {
			plain = true
		}
		urls = append(urls, p)
	}
	if ws && plain {
		errs = append(errs, errors.New("mixes WebSocket (ws://, wss://) and plain (nats://, tls://) URLs, which the NATS client refuses: use one kind"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return urls, nil
}

// check says what is wrong with one URL of a list, "" when nothing.
func check(s string) string {
	if s == "" {
		return "is empty: remove the extra comma"
	}
	if !strings.Contains(s, "://") {
		return "has no scheme: write it as nats://host:4222"
	}
	u, err := url.Parse(s)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the URL, secrets included
		}
		return "is not a URL: " + err.Error()
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case !schemes[scheme]:
		return fmt.Sprintf("has the scheme %q: use nats://, tls://, ws:// or wss://", u.Scheme)
	case u.Hostname() == "":
		return "has no host: write it as nats://host:4222"
	case u.RawQuery != "" || u.Fragment != "":
		return "has a query or a fragment, which NATS ignores: remove it"
	case (u.Path != "" && u.Path != "/") && !strings.HasPrefix(scheme, "ws"):
		return "has a path, which NATS ignores: remove it (or list several URLs with commas)"
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("has the port %q: a port is a number from 1 to 65535", port)
		}
	}
	return ""
}

// Join is the list as nats.Connect takes it.
func Join(urls []string) string { return strings.Join(urls, ",") }

// Redact hides the password of each URL of raw (NATS takes a
// comma-separated list), or the whole user part when it has no password
// (NATS reads a bare user as a token). The separators stay as written.
func Redact(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		trimmed := strings.TrimLeft(p, " \t\r\n")
		lead := p[:len(p)-len(trimmed)]
		trimmed = strings.TrimRight(trimmed, " \t\r\n")
		if trimmed == "" {
			continue
		}
		parts[i] = lead + redactOne(trimmed) + p[len(lead)+len(trimmed):]
	}
	return strings.Join(parts, ",")
}

func redactOne(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || !strings.Contains(raw, "://") {
		// Without "//" the parser reads "alice:" or "nats:" as the scheme and
		// the rest, password and all, as an opaque part it has no user in.
		return redactUnparsable(raw)
	}
	if u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword {
			return u.Redacted()
		}
		u.User = url.User("xxxxx") // a token in the user part
	}
	return u.String()
}

// redactUnparsable hides everything between the scheme and the last '@' of
// a URL that does not parse, where a user, a password or a token would be.
func redactUnparsable(raw string) string {
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return raw[:start] + "xxxxx" + raw[at:]
}
