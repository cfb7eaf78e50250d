package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Response is what the script gets: {status, headers, body, json}.
type Response struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"` // lower-case names, first value
	Body      string            `json:"body"`    // at most MaxResponseBytes (cut on a UTF-8 boundary)
	JSON      json.RawMessage   `json:"json"`    // the body parsed when it is JSON and complete, else null
	Truncated bool              `json:"truncated,omitempty"`
}

// readBuffer is the first buffer of a body of unknown length.
const readBuffer = 32 << 10

// response reads at most conn.maxBytes of the body (one byte more to know
// it was cut) and builds what the script gets, secrets removed: a cut body
// first loses a trailing piece of a secret, then the body, header values
// and header names are redacted (names in either case), and json is the
// redacted body, so it holds no string (or key) that decodes to a secret.
func (c *Client) response(conn *connector, resp *http.Response) (Response, error) {
	body, truncated, err := readCapped(resp.Body, conn.maxBytes, resp.ContentLength)
	if err != nil {
		return Response{}, err
	}
	text := string(body)
	if truncated {
		text = c.secrets.trimPartial(cutRune(text))
	}
	text = c.secrets.redact(strings.ToValidUTF8(text, "\uFFFD"))
	out := Response{
		Status:    resp.StatusCode,
		Headers:   make(map[string]string, len(resp.Header)),
		Body:      text,
		Truncated: truncated,
	}
	// Names in order: when two names redact to the same one, the first wins.
	for _, name := range sortedKeys(resp.Header) {
		values := resp.Header[name]
		if len(values) == 0 {
			continue
		}
		key := c.headerNames.redact(strings.ToValidUTF8(strings.ToLower(name), "\uFFFD"))
		if _, dup := out.Headers[key]; !dup {
			out.Headers[key] = c.secrets.redact(strings.ToValidUTF8(values[0], "\uFFFD"))
		}
	}
	if !truncated && json.Valid([]byte(text)) {
		out.JSON = json.RawMessage(text)
	}
	return out, nil
}

// readCapped reads r up to limit bytes and reports whether more followed.
// It allocates about what it keeps: the buffer grows by doubling up to
// limit+1, starting from the announced length when there is one.
func readCapped(r io.Reader, limit, announced int64) ([]byte, bool, error) {
	size := int64(readBuffer)
	if announced >= 0 {
		size = announced + 1 // room to see EOF without growing
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf[:limit], true, nil
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf))+1, limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return buf[:limit], true, nil
			}
			return buf, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// cutRune drops an incomplete UTF-8 sequence at the end of a cut text.
func cutRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
