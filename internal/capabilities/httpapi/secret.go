package httpapi

import (
	"net/http"
	"strings"
)

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
