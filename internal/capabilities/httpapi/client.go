package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/flowscript/flowscript/internal/textcut"
)

// Request is one call from a script: api.get(connector, path, options?) /
// api.post(connector, path, body, options?) ... after JSON decoding on the host.
type Request struct {
	Connector string
	Method    string            // GET POST PUT PATCH DELETE (any case)
	Path      string            // as the script wrote it, e.g. "/customers/42?x=1"
	Query     map[string]string // options.query, added after the path's own query
	Headers   map[string]string // options.headers; see the package doc for the refused ones
	Body      json.RawMessage   // JSON value from the script (nil: no body); a JSON string is sent as text, anything else as JSON
}

// Client calls connectors. Safe for concurrent use.
type Client struct {
	connectors  map[string]*connector
	names       []string
	secrets     *redactor // bodies, header values, messages
	headerNames *redactor // header names: lower-case, so matched in either case
	http        *http.Client
	transport   *http.Transport
	dialer      *net.Dialer
	// resolve maps a host name to addresses; tests replace it to make a name
	// resolve to loopback.
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// New validates every connector (errors name the connector and the field,
// all of them at once, never a secret's value) and resolves the secrets:
// getenv reads an executor's environment variable, readFile a file (nil
// means os.Getenv and os.ReadFile). Secrets are read once; a rotated secret
// takes a new Client.
func New(connectors map[string]Connector, getenv func(string) string, readFile func(string) ([]byte, error)) (*Client, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if readFile == nil {
		readFile = os.ReadFile
	}
	c := &Client{connectors: make(map[string]*connector, len(connectors))}
	var errs []error
	var values []string
	maxTimeout := DefaultTimeout
	for _, name := range sortedKeys(connectors) {
		conn, s, problems := compile(name, connectors[name], getenv, readFile)
		errs = append(errs, problems...)
		values = append(values, s...)
		c.connectors[name] = conn
		c.names = append(c.names, name)
		maxTimeout = max(maxTimeout, conn.timeout)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("validating api connectors: %w", err)
	}
	c.secrets = newRedactor(values, false)
	c.headerNames = newRedactor(values, true)
	c.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	c.dialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, ControlContext: control}
	c.transport = &http.Transport{
		Proxy:                  nil, // the executor's proxy variables never route connector traffic
		DialContext:            c.dial,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  maxTimeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c.http = &http.Client{Transport: c.transport, CheckRedirect: checkRedirect}
	return c, nil
}

// Connectors returns the names the tenant may use, sorted.
func (c *Client) Connectors(tenant string) []string {
	var out []string
	for _, name := range c.names {
		if c.connectors[name].allowsTenant(tenant) {
			out = append(out, name)
		}
	}
	return out
}

// Redact removes every secret value from s: as it is, and in any form that
// decodes to it by JSON string unescaping, percent-decoding (either case,
// any mix of encoded and plain bytes) or both (see redactor). Use it on
// anything that goes back to a script.
func (c *Client) Redact(s string) string { return c.secrets.redact(s) }

// Close closes the idle connections. The Client stays usable.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Do makes one call for a tenant. A *DeniedError means the policy refused
// it and nothing was sent; a *NetworkError is a failure the script may
// catch. A response of any status is a Response, not an error. Do waits for
// Connector.Timeout or ctx's end, whichever is first, and never retries.
func (c *Client) Do(ctx context.Context, tenant string, req Request) (Response, error) {
	conn, err := c.authorize(tenant, req)
	if err != nil {
		return Response{}, err
	}
	method := strings.ToUpper(req.Method)
	u, rel, err := c.target(conn, req.Path, req.Query)
	if err != nil {
		return Response{}, err
	}
	header, err := c.scriptHeaders(conn, req.Headers)
	if err != nil {
		return Response{}, err
	}
	body, contentType, err := c.body(method, req.Body)
	if err != nil {
		return Response{}, err
	}
	if contentType != "" && header.Get("Content-Type") == "" {
		header.Set("Content-Type", contentType)
	}
	for name, values := range conn.headers {
		header[name] = values
	}

	callCtx, cancel := context.WithTimeout(context.WithValue(ctx, connKey{}, conn), conn.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(callCtx, method, u.String(), body)
	if err != nil {
		return Response{}, c.denied("path %q cannot be requested", rel)
	}
	hreq.URL = u
	hreq.Header = header
	resp, err := c.http.Do(hreq)
	if err != nil {
		return Response{}, c.failure(ctx, conn, method, rel, err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, err := c.response(conn, resp)
	if err != nil {
		return Response{}, c.failure(ctx, conn, method, rel, err)
	}
	return out, nil
}

// authorize finds the connector and checks the tenant and the method.
func (c *Client) authorize(tenant string, req Request) (*connector, error) {
	conn, ok := c.connectors[req.Connector]
	if !ok || !conn.allowsTenant(tenant) {
		// One message whether the connector is unknown or another tenant's:
		// a tenant learns nothing of the others.
		names := c.Connectors(tenant)
		avail := "none"
		if len(names) > 0 {
			avail = `"` + strings.Join(names, `", "`) + `"`
		}
		return nil, c.denied("connector %q is not available; this tenant may use: %s", req.Connector, avail)
	}
	method := strings.ToUpper(req.Method)
	if !slices.Contains(supportedMethods, method) {
		return nil, c.denied("method %q is not supported; use %s", req.Method, strings.Join(supportedMethods, ", "))
	}
	if !conn.allowsMethod(method) {
		return nil, c.denied("connector %q does not allow %s; it allows %s", conn.name, method, strings.Join(conn.methods, ", "))
	}
	return conn, nil
}

// body returns the request body and its default Content-Type: a JSON
// string is sent as its text (text/plain), any other JSON value as JSON.
func (c *Client) body(method string, raw json.RawMessage) (io.Reader, string, error) {
	if raw == nil {
		return nil, "", nil
	}
	if method == http.MethodGet {
		return nil, "", c.denied("GET takes no body")
	}
	if !json.Valid(raw) {
		return nil, "", c.denied("the body is not a JSON value")
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, "", c.denied("the body is not a JSON value")
		}
		return strings.NewReader(s), "text/plain; charset=utf-8", nil
	}
	return bytes.NewReader(trimmed), "application/json", nil
}

// denied builds a DeniedError whose message holds no secret.
func (c *Client) denied(format string, args ...any) *DeniedError {
	return &DeniedError{Message: c.Redact(fmt.Sprintf(format, args...))}
}

// failure maps the HTTP client's error to a DeniedError (a refused address:
// nothing was sent) or a NetworkError whose message holds no secret.
func (c *Client) failure(parent context.Context, conn *connector, method, rel string, err error) error {
	if errors.As(err, new(addressDeniedError)) {
		return c.denied("connector %q: %s; its base URL must name such an address for it to be reachable", conn.name, addressDeniedError{})
	}
	what, timeout := describe(err)
	if parent.Err() != nil {
		what, timeout = "the job's deadline passed before the response", true
		if errors.Is(parent.Err(), context.Canceled) {
			what = "the call was canceled"
		}
		err = fmt.Errorf("%w: %w", parent.Err(), err)
	} else if timeout {
		// Not wrapped: errors.Is(err, context.DeadlineExceeded) means the
		// caller's context ended, never the connector's own timeout.
		what, err = fmt.Sprintf("timed out after %s", conn.timeout), errors.New(err.Error())
	}
	shown, _ := textcut.Cut(rel, 200)
	return &NetworkError{
		Message: c.Redact(fmt.Sprintf("connector %q: %s %s: %s", conn.name, method, shown, what)),
		Timeout: timeout,
		Err:     fmt.Errorf("calling connector %q: %w", conn.name, err),
	}
}
