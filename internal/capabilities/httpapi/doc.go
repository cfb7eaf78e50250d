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
//     Response (body, json, header names and values are redacted in every
//     form listed under Redaction, and a cut body loses a trailing piece of
//     a secret), in an error's message, or in a log (the package does not
//     log).
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
// names, first value (when two names redact to the same one, the first in
// sorted order wins). Body: at most MaxResponseBytes read (one more byte
// tells it was cut: Truncated), an incomplete UTF-8 sequence at the cut
// dropped, invalid UTF-8 replaced by U+FFFD, secrets replaced by
// "[REDACTED]" (so a body may exceed the cap when a secret is shorter than
// that marker). JSON: the redacted body when it is complete and valid JSON,
// whatever the Content-Type; null otherwise. Content coding (gzip) is
// undone by the client and the cap counts decoded bytes. Response headers
// are capped at 64 KiB.
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
// secret takes a new Client.
//
// Redaction. Each secret value (without its Prefix) is replaced by
// "[REDACTED]" in the body (so in json, which is the redacted body), in
// header values, in header names (matched in either case: the client
// changes their case) and in error messages (Redact), in any form that
// decodes to it:
//   - as it is (and with invalid UTF-8 as U+FFFD, as the body has it);
//   - JSON-unescaped: \" \\ \/ \b \f \n \r \t and \uXXXX with hex digits
//     in either case, a surrogate pair read as one character and a lone
//     one as U+FFFD, as a JSON parser reads them; any mix of escaped and
//     plain characters ("AbC\/dEf", "\u0041\u0062C/d\u0045f");
//   - percent-decoded: %XX with hex digits in either case, any mix of
//     encoded and plain bytes ("AbC%2fdEf", "AbC/d%45f"); '+' for a space
//     is also matched;
//   - both, in either order: a percent-encoded secret in a JSON string,
//     its '%' maybe written \u0025, or percent-encoded JSON escapes
//     ("%5C%2F").
//
// The text is decoded everywhere, not only inside JSON strings (valid JSON
// has no '\' outside them, so every string and key of json is covered as a
// parser reads it), and each match is mapped back to the bytes it came
// from: those bytes, whole escapes, become one marker, and the rest of the
// text keeps its bytes, so a JSON body stays the same JSON with
// "[REDACTED]" in its strings (a secret that spans a string's quotes
// makes the body invalid JSON, and json null). A form is decoded only when
// the text holds its escape byte; the work grows linearly with the text.
// A body cut at the cap first loses, at its end, an escape cut short and
// the beginning of a secret in any of these forms, so moving the cut
// reveals no piece of one. Not found: a secret encoded twice by one scheme
// ("%252F"), decoded by three layers (JSON, percent, JSON), split across
// JSON strings, or in another encoding (base64, HTML entities, hex): do
// not approve a service that echoes credentials so as a connector.
//
// Timeouts and transport. A call ends at Connector.Timeout (default 5s) or
// when the caller's context ends, whichever is first; a NetworkError then
// has Timeout set and, when the caller's context ended, wraps its error.
// One http.Transport per Client: no proxy, TLS 1.2 or later, a 10s dial and
// TLS handshake bound, a response-header timeout of the longest connector
// timeout, idle connections kept 90s (8 per host). Errors' messages name
// the connector, the method and the path, and a cause without addresses.
package httpapi
