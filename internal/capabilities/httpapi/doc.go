// Package httpapi is the api host function: scripts call HTTP services that
// the operator approved, by name (api.get("crm", "/customers/42")), and the
// executor makes the call in trusted Go code with credentials the script
// never sees (DESIGN §9, seed 001's connectors, seed 002's host functions).
// It knows HTTP and the connector policy; it knows nothing of goja, workers,
// grants files or NATS: the integrator decodes the script's arguments into a
// Request, calls Client.Do with the job's context and tenant, and hands the
// Response (or the error's message) back to the script.
//
// # What it must never do
//
//   - Send anything the policy refuses. Every check (connector, tenant,
//     method, path, query, headers, body) runs before any I/O and fails with
//     a *DeniedError; the only check that runs later, at dial time, refuses
//     an address before a byte is written.
//   - Let a secret reach a script: header values from secrets are added by
//     the host after the script's headers are checked; they are never in a
//     Response (bodies and headers pass through Redact, a cut body loses a
//     trailing piece of a secret), in an error's message, or in a log (the
//     package does not log).
//   - Let a path leave its base URL, follow a redirect off the connector's
//     host, dial a private address the connector did not name, use the
//     executor's proxy variables, read more of a body than the cap, outlive
//     its context, or retry (retries are the author's business).
//
// # Decisions
//
// Paths. A script's path is relative to the base URL; a missing leading
// "/" is added ("customers/42" = "/customers/42"). Refused before anything
// is parsed: control characters, '#', '\', a leading "//", a scheme (a ':'
// before the first '/' when the path does not start with '/'), '@' in the
// path, any character outside RFC 3986's pchar (so spaces and non-ASCII
// must be encoded with encodeURIComponent), a malformed '%', a
// percent-encoded '.', '/', '\', '%' (so no double encoding) or control
// character, empty segments ("a//b"), and "." or ".." segments, also in
// front of a ';' ("..;"). '%40' (an encoded '@') and other encoded bytes
// are ordinary data. The query part may hold '@', '/', '?' and any valid
// percent-encoding; options.query is encoded and added after it. The joined
// URL is parsed again and must keep the base's scheme, host, port and path.
// Path prefixes match whole segments: "/customers" allows "/customers" and
// "/customers/42", never "/customers-admin"; "/" allows everything under
// the base path. Matching is on the path as sent (escaped), so "%63ustomers"
// is not "/customers" (refused, never wrongly allowed).
//
// Headers. A script may not set a header that a connector sets from a
// secret (refused, not ignored: the author learns why), nor the headers the
// host manages: Host, Content-Length, Transfer-Encoding, Connection,
// Keep-Alive, Proxy-*, TE, Trailer, Upgrade, Expect, Accept-Encoding.
// Authorization and Cookie are the script's own when the connector does not
// set them. Names must be HTTP tokens; values must hold no control
// character but tab. User-Agent defaults to "FlowScript-api/1".
//
// Bodies. nil means no body; GET refuses one. A JSON string is sent as its
// text with Content-Type text/plain; charset=utf-8; any other JSON value
// (null included) as JSON with application/json. A Content-Type header from
// the script wins.
//
// Responses. Every status is a Response, not an error. Headers: lower-case
// names, first value. Body: at most MaxResponseBytes read (one more byte
// tells it was cut: Truncated), an incomplete UTF-8 sequence at the cut
// dropped, invalid UTF-8 replaced by U+FFFD, secrets replaced by
// "[REDACTED]" (so a body may exceed the cap by that marker's length).
// JSON: the body when it is complete and valid JSON, whatever the
// Content-Type; null otherwise. Content coding (gzip) is undone by the
// client and the cap counts decoded bytes. Response headers are capped at
// 64 KiB.
//
// Tenants. "*" allows any tenant, the empty one included. An unknown
// connector and another tenant's connector give the same message, which
// lists the connectors the tenant may use.
//
// Addresses. A connector whose base URL host is a literal IP (any, private
// or not) or "localhost" may reach private and loopback addresses; any
// other name is resolved by the dialer, refused when any of its addresses
// is internal (loopback, private, link-local, multicast, unspecified,
// carrier-grade NAT, 0/8, 192.0.0/24, 198.18/15, 240/4, site-local,
// IPv4-compatible, Teredo; IPv4-mapped, NAT64 and 6to4 addresses are judged
// by their IPv4 address), and the dialer's ControlContext checks the address
// each socket connects to again. Only the connector's own host is dialed.
//
// Redirects. At most MaxRedirects; each must keep the scheme, host and port,
// stay under the base path and a path prefix with a path that passes the
// same checks, and use a method the connector allows (a 303 turns POST into
// GET). Otherwise the call ends with a NetworkError; the other host gets
// nothing.
//
// Secrets. Exactly one of env and file; a file's trailing line breaks are
// dropped; an empty value is an error at New. Read once by New: rotating a
// secret takes a new Client. Redact replaces each secret (without its
// Prefix) as it is, JSON-escaped and percent-encoded. A service that echoes
// credentials in another form (base64 of them, HTML entities) defeats
// redaction: do not approve such a service as a connector.
//
// Timeouts and transport. A call ends at Connector.Timeout (default 5s) or
// when the caller's context ends, whichever is first; a NetworkError then
// has Timeout set and, when the caller's context ended, wraps its error.
// One http.Transport per Client: no proxy, TLS 1.2 or later, a 10s dial and
// TLS handshake bound, a response-header timeout of the longest connector
// timeout, idle connections kept 90s (8 per host). Errors' messages name
// the connector, the method and the path, and a cause without addresses.
package httpapi
