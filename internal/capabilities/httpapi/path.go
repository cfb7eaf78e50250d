package httpapi

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/flowscript/flowscript/internal/textcut"
)

// The characters a path may hold as they are (RFC 3986's pchar without '@',
// and '/'); anything else must be percent-encoded.
const pathChars = "-._~!$&'()*+,;=:/"

// The characters a query may hold as they are (RFC 3986's query).
const queryChars = "-._~!$&'()*+,;=:/?@"

// target splits and checks the path a script wrote and returns the URL the
// call goes to and the path relative to the base URL (escaped). The check
// happens on the text before anything is parsed or sent; the joined URL is
// then checked again against the base.
func (c *Client) target(conn *connector, raw string, query map[string]string) (*url.URL, string, error) {
	shown, _ := textcut.Cut(raw, 200)
	deny := func(problem string) (*url.URL, string, error) {
		return nil, "", c.denied("path %q: %s", shown, problem)
	}
	for i := range len(raw) {
		if b := raw[i]; b < 0x20 || b == 0x7f {
			return deny("control characters are not allowed")
		}
	}
	switch {
	case strings.Contains(raw, "#"):
		return deny("a fragment (#) is never sent; remove it")
	case strings.Contains(raw, `\`):
		return deny(`backslashes are not allowed`)
	case strings.HasPrefix(raw, "//"):
		return deny("a path cannot name a host; give a path relative to the connector's base URL")
	case raw == "":
		raw = "/"
	case raw[0] != '/':
		head := raw
		if end := strings.IndexAny(raw, "/?"); end >= 0 {
			head = raw[:end]
		}
		if strings.Contains(head, ":") {
			return deny("absolute URLs and schemes are not allowed; give a path relative to the connector's base URL, e.g. \"/customers/42\"")
		}
		raw = "/" + raw
	}
	rel, rawQuery, _ := strings.Cut(raw, "?")
	if problem := checkPath(rel); problem != "" {
		return deny(problem)
	}
	if problem := checkQuery(rawQuery); problem != "" {
		return deny(problem)
	}
	if !conn.underPrefix(rel) {
		return deny(fmt.Sprintf("connector %q allows only %s", conn.name, strings.Join(conn.prefixes, ", ")))
	}
	if len(query) > 0 {
		values := url.Values{}
		for k, v := range query {
			values.Set(k, v)
		}
		if rawQuery != "" {
			rawQuery += "&"
		}
		rawQuery += values.Encode()
	}
	full := conn.scheme + "://" + conn.host + conn.basePath + rel
	if rawQuery != "" {
		full += "?" + rawQuery
	}
	u, err := url.Parse(full)
	if err != nil || u.Scheme != conn.scheme || u.Host != conn.host || u.User != nil || u.Fragment != "" ||
		u.EscapedPath() != conn.basePath+rel {
		return deny("it cannot be joined to the connector's base URL")
	}
	return u, rel, nil
}

// checkPath checks an escaped path that starts with "/"; it returns a
// problem or "". No '@', no backslash, no raw character outside pathChars,
// no percent-encoded '.', '/', '\', '%' or control character, no empty
// segment but the last, no "." or ".." segment (also before a ';').
func checkPath(p string) string {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch {
		case b == '@':
			return "'@' is not allowed"
		case b == '%':
			d, ok := unhex2(p[i+1:])
			if !ok {
				return "a '%' must start a percent-encoded byte such as %20"
			}
			if d == '.' || d == '/' || d == '\\' || d == '%' || d < 0x20 || d == 0x7f {
				return fmt.Sprintf("the encoded character %s (%q) is not allowed", p[i:i+3], rune(d))
			}
			i += 2
		case !isAlnum(b) && !strings.ContainsRune(pathChars, rune(b)):
			return fmt.Sprintf("the character %s must be percent-encoded (encodeURIComponent)", charAt(p, i))
		}
	}
	segments := strings.Split(p[1:], "/")
	for i, s := range segments {
		name, _, _ := strings.Cut(s, ";")
		switch {
		case s == "" && i < len(segments)-1:
			return "empty segments (//) are not allowed"
		case name == "." || name == "..":
			return "'.' and '..' segments are not allowed"
		}
	}
	return ""
}

// checkQuery checks the query part of a script's path.
func checkQuery(q string) string {
	for i := 0; i < len(q); i++ {
		b := q[i]
		switch {
		case b == '%':
			if _, ok := unhex2(q[i+1:]); !ok {
				return "a '%' in the query must start a percent-encoded byte such as %20"
			}
			i += 2
		case !isAlnum(b) && !strings.ContainsRune(queryChars, rune(b)):
			return fmt.Sprintf("the character %s in the query must be percent-encoded (encodeURIComponent)", charAt(q, i))
		}
	}
	return ""
}

// charAt quotes the character that starts at byte i of s: a whole UTF-8
// sequence ('ã', not the 'Ã' of its first byte).
func charAt(s string, i int) string {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return fmt.Sprintf("%q", r)
}

// unhex2 decodes the two hex digits that start s.
func unhex2(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	hi, ok1 := unhex(s[0])
	lo, ok2 := unhex(s[1])
	return hi<<4 | lo, ok1 && ok2
}

func unhex(b byte) (byte, bool) {
	switch {
	case '0' <= b && b <= '9':
		return b - '0', true
	case 'a' <= b && b <= 'f':
		return b - 'a' + 10, true
	case 'A' <= b && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}
