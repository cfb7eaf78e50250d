package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// redacted replaces a secret in anything that goes back to a script.
const redacted = "[REDACTED]"

// resolveSecret reads one header's value; it returns the value (Prefix
// included) or a problem that names where the value comes from, never the
// value.
func resolveSecret(name string, s Secret, env func(string) string, readFile func(string) ([]byte, error)) (string, string) {
	if !validToken(name) {
		return "", "not a valid header name"
	}
	if hostHeaders[http.CanonicalHeaderKey(name)] {
		return "", "the host manages this header; a connector cannot set it"
	}
	var value string
	switch {
	case (s.Env == "") == (s.File == ""):
		return "", "set exactly one of env and file"
	case s.Env != "":
		value = env(s.Env)
		if value == "" {
			return "", "environment variable " + s.Env + " is unset or empty"
		}
	default:
		b, err := readFile(s.File)
		if err != nil {
			return "", "reading file " + s.File + " failed; check that the secret is mounted there"
		}
		value = strings.TrimRight(string(b), "\r\n")
		if value == "" {
			return "", "file " + s.File + " is empty"
		}
	}
	if !validHeaderValue(s.Prefix + value) {
		return "", "the value (or prefix) holds a line break or another control character"
	}
	return s.Prefix + value, ""
}

// redactor removes secrets from text, in the forms a service may echo them:
// as they are, JSON-escaped and percent-encoded.
type redactor struct {
	replacer *strings.Replacer
	forms    []string // longest first
}

func newRedactor(secrets []string) *redactor {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s), jsonEscaped(s, true), jsonEscaped(s, false))
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	r := &redactor{forms: forms}
	if len(forms) > 0 {
		pairs := make([]string, 0, 2*len(forms))
		for _, f := range forms {
			pairs = append(pairs, f, redacted)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r
}

// redact replaces every secret in s.
func (r *redactor) redact(s string) string {
	if r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// trimPartial drops the end of a cut text when it is the beginning of a
// secret: a script that moves the cut could otherwise read a secret a few
// characters at a time.
func (r *redactor) trimPartial(s string) string {
	for cut := true; cut; {
		cut = false
		for _, f := range r.forms {
			for n := min(len(f)-1, len(s)); n > 0; n-- {
				if strings.HasSuffix(s, f[:n]) {
					s, cut = s[:len(s)-n], true
					break
				}
			}
		}
	}
	return s
}

// jsonEscaped is s as it appears between the quotes of a JSON string.
func jsonEscaped(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
