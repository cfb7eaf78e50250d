package templatesapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Codes of the answers net/http gives by itself, rewritten as JSON
// (jsonServerError).
const (
	CodeBadRequest              = "BAD_REQUEST"
	CodeNotImplemented          = "NOT_IMPLEMENTED"
	CodeHTTPVersionNotSupported = "HTTP_VERSION_NOT_SUPPORTED"
	CodeExpectationFailed       = "EXPECTATION_FAILED"
)

// netHTTPErrorHeaders is what net/http writes between the status line and
// the text of the answers it gives by itself, before any handler runs (a
// bad request line or Host, headers past MaxHeaderBytes, an unknown
// Transfer-Encoding, an HTTP version it does not speak): one write
// straight to the connection, the text being the status line again
// ("400 Bad Request: missing required Host header"), or "Unsupported
// transfer encoding" for a 501. A handler's answer carries them so only
// when it drops the Date header net/http adds and writes plain text: none
// of this package's does (every answer is JSON), and jsonServerError also
// wants the text to be net/http's own.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonServerError turns p, when it is one of net/http's own plain-text
// error answers, into the same answer in the API's JSON error shape, so
// that every answer a client reads is JSON; ok is false for anything else.
func jsonServerError(p []byte) (answer []byte, ok bool) {
	if isNetHTTPExpectationFailed(p) {
		return jsonAnswer(http.StatusExpectationFailed, CodeExpectationFailed,
			"the request's Expect header asks for something other than 100-continue, which this API does not do: send the request without it")
	}
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !found {
		return nil, false
	}
	end := bytes.IndexByte(rest, '\r')
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(netHTTPErrorHeaders)) {
		return nil, false
	}
	line, text := string(rest[:end]), string(rest[end+len(netHTTPErrorHeaders):])
	if len(line) < 4 || line[3] != ' ' {
		return nil, false
	}
	status, err := strconv.Atoi(line[:3])
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	if text != line && (status != http.StatusNotImplemented || text != "Unsupported transfer encoding") {
		return nil, false // not net/http's text
	}
	// net/http's detail follows the status text after ": " on the line
	// ("400 Bad Request: missing required Host header").
	_, detail, _ := strings.Cut(line, ": ")
	code, message := CodeBadRequest, ""
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		code = CodeHeadersTooLarge
		message = fmt.Sprintf("the request's line and headers are over %d bytes, past the limit of %d: send a shorter URL, a shorter token or fewer headers", maxHeaderReadBytes, maxHeaderBytes)
	case http.StatusNotImplemented:
		code = CodeNotImplemented
		message = "the request's Transfer-Encoding is not supported: send the body with Content-Length, or chunked"
	case http.StatusHTTPVersionNotSupported:
		code = CodeHTTPVersionNotSupported
		message = "the request's HTTP version is not supported: send HTTP/1.1 (or HTTP/1.0)"
	default:
		message = "the request is not valid HTTP"
		if detail != "" {
			message += " (" + detail + ")"
		}
		message += ": check its request line and headers"
	}
	return jsonAnswer(status, code, message)
}

// netHTTPExpectationFailed is the status line of the answer net/http gives
// by itself, before any handler, to a request whose Expect is not
// 100-continue: headers only (Connection: close, Date, Content-Length: 0),
// in one write. No handler of this package answers 417.
const netHTTPExpectationFailed = "HTTP/1.1 417 Expectation Failed\r\n"

// isNetHTTPExpectationFailed says whether p is that answer.
func isNetHTTPExpectationFailed(p []byte) bool {
	end := bytes.Index(p, []byte("\r\n\r\n"))
	return bytes.HasPrefix(p, []byte(netHTTPExpectationFailed)) && end == len(p)-4 &&
		bytes.Contains(p, []byte("\r\nContent-Length: 0\r\n"))
}

// jsonAnswer is a whole HTTP/1.1 answer of status in the API's JSON error
// shape, on a connection that closes.
func jsonAnswer(status int, code, message string) (answer []byte, ok bool) {
	body, err := encodeJSON(errorBody{Error: apiError{Code: code, Message: message}})
	if err != nil {
		return nil, false
	}
	statusLine := strconv.Itoa(status) + " " + http.StatusText(status)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %s\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n\r\n", statusLine, len(body))
	b.Write(body)
	return b.Bytes(), true
}
