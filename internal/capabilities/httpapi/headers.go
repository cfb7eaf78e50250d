package httpapi

import (
	"net/http"
	"strings"
)

// hostHeaders are the headers the host and its HTTP client manage: the
// target and framing of the request, hop-by-hop headers, proxy
// credentials and content coding. Neither a connector nor a script sets them.
var hostHeaders = map[string]bool{
	"Host":                true,
	"Content-Length":      true,
	"Transfer-Encoding":   true,
	"Connection":          true,
	"Keep-Alive":          true,
	"Proxy-Connection":    true,
	"Proxy-Authorization": true,
	"Proxy-Authenticate":  true,
	"Te":                  true,
	"Trailer":             true,
	"Upgrade":             true,
	"Expect":              true,
	"Accept-Encoding":     true,
}

// userAgent is sent unless the script sets User-Agent.
const userAgent = "FlowScript-api/1"

// scriptHeaders checks the script's headers and returns them canonical.
func (c *Client) scriptHeaders(conn *connector, in map[string]string) (http.Header, error) {
	h := make(http.Header, len(in)+len(conn.headers)+2)
	for _, name := range sortedKeys(in) {
		value := in[name]
		canon := http.CanonicalHeaderKey(name)
		switch {
		case !validToken(name):
			return nil, c.denied("header name %q is not valid; use letters, digits and '-'", name)
		case !validHeaderValue(value):
			return nil, c.denied("header %q holds a line break or another control character", name)
		case hostHeaders[canon]:
			return nil, c.denied("header %q is managed by the host; remove it", name)
		case conn.headers.Get(canon) != "":
			return nil, c.denied("connector %q sets header %q itself; a script can neither set nor read it", conn.name, canon)
		case len(h.Values(canon)) > 0:
			return nil, c.denied("header %q is given twice (names ignore case)", name)
		}
		h.Set(canon, value)
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", userAgent)
	}
	return h, nil
}

// validToken reports whether s is an HTTP token (RFC 9110, 5.6.2).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		b := s[i]
		if !isAlnum(b) && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(b)) {
			return false
		}
	}
	return true
}

// validHeaderValue refuses control characters except horizontal tab.
func validHeaderValue(s string) bool {
	for i := range len(s) {
		if b := s[i]; b < 0x20 && b != '\t' || b == 0x7f {
			return false
		}
	}
	return true
}
