package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Why a redirect was not followed; the call ends with a NetworkError.
var (
	errRedirectHost   = errors.New("a redirect to another host was refused")
	errRedirectPath   = errors.New("a redirect to a path the connector does not allow was refused")
	errRedirectMethod = errors.New("a redirect to a method the connector does not allow was refused")
	errRedirects      = fmt.Errorf("stopped after %d redirects", MaxRedirects)
)

// checkRedirect is the client's CheckRedirect: a redirect stays on the
// connector's scheme, host and port, under its base path and path prefixes,
// with a method it allows, at most MaxRedirects times.
func checkRedirect(req *http.Request, via []*http.Request) error {
	conn := connectorOf(req.Context())
	if conn == nil {
		return errRedirectHost
	}
	if len(via) > MaxRedirects {
		return errRedirects
	}
	u := req.URL
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if u.Scheme != conn.scheme || u.User != nil || net.JoinHostPort(strings.ToLower(u.Hostname()), port) != conn.hostPort {
		return errRedirectHost
	}
	p := u.EscapedPath()
	rel, ok := strings.CutPrefix(p, conn.basePath)
	if !ok || !strings.HasPrefix(rel, "/") || checkPath(rel) != "" || checkQuery(u.RawQuery) != "" || !conn.underPrefix(rel) {
		return errRedirectPath
	}
	if !conn.allowsMethod(req.Method) {
		return errRedirectMethod
	}
	return nil
}

// describe names a failure for the script's author, without addresses or
// secrets, and reports a timeout.
func describe(err error) (string, bool) {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unkAuth x509.UnknownAuthorityError
		recErr  tls.RecordHeaderError
	)
	for _, known := range []error{errRedirectHost, errRedirectPath, errRedirectMethod, errRedirects} {
		if errors.Is(err, known) {
			return known.Error(), false
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out", true
	case errors.As(err, &dnsErr):
		return "the connector's host name does not resolve", false
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused", false
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &recErr):
		return "the TLS handshake failed (certificate or protocol)", false
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection", false
	}
	return "the request failed", false
}
