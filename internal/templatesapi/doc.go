// Package templatesapi is the HTTP service of DESIGN.md §6: global script
// templates (list, create, get, update, delete) and "test this script",
// under FLOW_AI_CORE_BASE_PATH (default /api). cmd/templates-api only reads
// the environment and calls Run.
//
// Decisions, documented here and in the OpenAPI document the service serves
// at GET {base}/openapi.json:
//
//   - Every route under the base path requires credentials, the OpenAPI
//     document included: Authorization: Bearer <JWT> (HS256 with
//     AUTH_JWT_SECRET, or RS256 with keys from AUTH_JWKS_URL) or X-API-Key
//     (one of AUTH_API_KEYS, compared in constant time). A request that
//     presents a credential must present only valid ones. Unknown paths
//     and wrong methods also answer 401 to an anonymous caller, so the
//     routes cannot be enumerated. The only public routes are GET /healthz
//     and GET /readyz, at the root and outside the base path, for
//     orchestrator probes; they reveal nothing but ok/ready. The service
//     refuses to start with no credential configured; there is no switch to
//     turn authentication off (for development set AUTH_API_KEYS).
//   - Tokens: exp is required and must be a number no later than the year
//     9999 (a later one is milliseconds sent as seconds); nbf and iat, when
//     present, must not be in the future (5 s leeway, as for exp); sub is
//     required and not blank; aud must name one of AUTH_JWT_AUDIENCE and iss must be
//     AUTH_JWT_ISSUER, both required whenever a JWT method is configured (a
//     token the same identity provider issued for another application is
//     refused); a crit header is refused (no extension is supported).
//     Segments are base64url decoded strictly: a token altered in the
//     unused low bits of a segment's last character is not the token the
//     issuer signed, and is refused.
//   - Roles: reading (GET: list, get, the OpenAPI document) needs the read
//     role; creating, updating, deleting and test runs need the write role,
//     which includes read (a test run executes code and may call granted
//     host functions: it is authoring). A token's role comes from the claim
//     AUTH_JWT_SCOPE_CLAIM (default scope; a space-separated string or an
//     array of strings; an array holding anything else is refused with
//     401, as the tenant claim's is) holding AUTH_JWT_WRITE_SCOPE
//     (templates:write) or AUTH_JWT_READ_SCOPE (templates:read); a token
//     with neither gets 403 everywhere. An API key's role is its entry's suffix in AUTH_API_KEYS:
//     key:read or key:write; a bare key may write, as every key could
//     before roles existed. Only a final :read or :write is a role, so keys
//     containing colons keep working. With both headers, the token's role
//     applies.
//   - Tenants: a test run with capabilities runs host functions for a
//     tenant (the body's tenantId); the replay of a job shows its session
//     variables and runs its host functions (the job's tenantId). With
//     AUTH_JWT_TENANT_CLAIM set, a token may do either only for the tenants
//     that claim names (a string or an array of strings; a token without it
//     for none), so an author of one tenant can neither read another
//     tenant's sessions nor call its connectors with their secrets. A test
//     run answers 403 otherwise; a replay answers 404 as for a job with no
//     record (failrecord.NoRecord), so the token learns neither that the
//     job exists nor whose it is.
//     A job of no tenant that asked for no capabilities is not bound.
//     API keys are operators' credentials and are not bound; unset, no
//     credential is (a single-tenant deployment).
//   - The key set (jwks.go) is fetched in the background on its own
//     context, one fetch at a time; requests whose kid is in a set younger
//     than AUTH_JWKS_MAX_AGE (default 1h) are verified against an
//     atomically swapped copy and never wait for the network. An unknown
//     kid waits for the fetch in flight, or starts one, but never sooner
//     than AUTH_JWKS_MIN_INTERVAL (default 10s) after the previous fetch
//     ended; a caller that hangs up stops only its own wait. So a token
//     signed with a newly published key is accepted at most
//     AUTH_JWKS_MIN_INTERVAL plus one fetch (at most 5 s) after
//     publication, whatever anonymous callers do, and a flood of forged
//     kids costs the issuer one fetch per interval. The set is refreshed in
//     the background once older than min(5 min, AUTH_JWKS_MAX_AGE/4), so a
//     key withdrawn from the JWKS stops being accepted at the next refresh;
//     when fetches fail, the last good set is used until AUTH_JWKS_MAX_AGE
//     (counted from the start of the fetch that got it), after which RS256
//     tokens are refused and a warning says why. Failed fetches are counted
//     (Server.JWKSStats) and logged at most once a minute with the count.
//   - 401 and 403 bodies say what the caller may know: what to fix in what
//     it sent (no credentials, not a JWT, expired, a claim missing or not
//     accepted — the last only once the signature verified), never which
//     methods are on, whether the key set is reachable or how many keys it
//     holds, and never the kid; the reason goes to the debug log. The same
//     refused credential gets the same answer whatever is configured.
//   - Configuration refuses AUTH_JWKS_URL over plain http except for a
//     loopback host (tests), an AUTH_JWT_SECRET under 32 bytes or under 128
//     bits of estimated entropy, and API keys under 16 characters or 80
//     bits. The estimate (EstimatedEntropyBits: length times the Shannon
//     entropy of the characters) catches repetition and tiny alphabets,
//     not every guessable secret: generate secrets with openssl rand.
//   - Resource caps: at most TEMPLATES_MAX_CONNS (default 1024) connections
//     are held; at the cap a new connection closes the one idle the longest
//     (so idle connections cannot lock out a caller), or is refused when
//     every connection is busy with a request. A request header must
//     arrive within 5 s, a whole request within 30 s plus the sandbox
//     timeout, and an idle keep-alive connection is closed after 30 s. /readyz pings the store
//     at most once a second, one ping at a time on its own context; other
//     callers get the cached answer.
//   - Request bodies (body_budget.go) are read whole into memory and cost
//     several times their size while decoded, so every route that reads
//     one (saves, test runs, replays) first takes the bytes it may bring
//     from one budget per process: its Content-Length, or the route's cap
//     without one, given back when the handler ends. The budget is four
//     bodies of the largest size a route accepts (a test run's:
//     6 × (SANDBOX_MAX_SOURCE_BYTES + SANDBOX_MAX_INPUT_BYTES) + 64 KiB,
//     about 30 MiB with the defaults). A body it cannot hold is answered at
//     once, unread, with 503 SERVICE_BUSY and Retry-After. A body whose
//     Content-Length is at most 64 KiB is counted but always fits the
//     budget, so large bodies never lock out small requests
//     (TEMPLATES_MAX_CONNS bounds how many are in flight). One credential
//     has at most a quarter of TEMPLATES_MAX_CONNS (rounded down) requests
//     with a body in flight, small or large; past that,
//     503 SERVICE_BUSY at once, unread, on a connection that closes, so a
//     key that trickles bodies holds at most that share of the connections.
//   - An answer to a read over 64 KiB (a page, a template, a version) is
//     written within a second budget (answer_budget.go: eight times twice
//     a page at its text budget plus one template at its caps), held
//     until the write ends, one credential at most a quarter of it:
//     clients that never read their answers hold no more than it, those of
//     one credential no more than its share; past it a read is answered
//     503 SERVICE_BUSY with Retry-After (a HEAD never is). A page's text
//     budget counts its strings as JSON (templates.JSONStringLen).
//   - Requests with no or refused credentials are logged at debug, with an
//     info summary at most once a minute; their spans (see Telemetry) never
//     continue the caller's traceparent. X-Request-Id is echoed only when it
//     is 8 to 64 letters, digits, '-', '_' or '.'; otherwise a fresh UUID
//     is used.
//   - JSON bodies are stricter than encoding/json: invalid UTF-8 (also an
//     escaped lone UTF-16 surrogate), a key given twice in one object and a
//     field name in the wrong case are refused with 400 (INVALID_UTF8,
//     DUPLICATE_FIELD, FIELD_CASE), as are unknown fields (UNKNOWN_FIELD).
//   - Errors have one shape everywhere:
//     {"error":{"code","message","fields":[{"field","code","message","line","column"}]}}.
//   - A save (POST, PUT) is validated before anything is written: field
//     rules (templates.Draft.Validate), then the source compiled by the
//     sandbox's own builder (a syntax error comes back with its line and
//     column) and the guardrails (package guardrails): findings of severity
//     error refuse the save (422), warnings are returned beside the saved
//     template in "warnings", and the capabilities and connectors the
//     source uses in "uses" (guardrails.Uses). Both run in a sandbox worker, through the
//     injected guardrails.Checker (the worker pool in production): this
//     process never parses an author's source, so no source can take it
//     down or grow it. A source that cannot be compiled within the
//     sandbox's time or memory limits is refused (422, its code
//     SCRIPT_TIMEOUT or SCRIPT_MEMORY_LIMIT on the field source); no worker
//     free within twice the sandbox timeout answers 429 SANDBOX_BUSY; a
//     worker crash is retried once, and a second in a row refuses the
//     source (SANDBOX_CRASH).
//   - POST {base}/scripts/test checks the source the same way, then runs
//     source and inputVariables through the injected sandbox.Runner (the
//     worker pool in production) and answers 200 with the output or the
//     script's error (code, message, line, column) and durationMs (an
//     output whose result event would pass a broker message of
//     NATS_MAX_PAYLOAD bytes fails with OUTPUT_TOO_LARGE, as in the
//     executor; replays too); the
//     guardrail findings and the uses come along. A source that does not compile, or
//     cannot be checked within the limits, is answered without running. At
//     most SANDBOX_MAX_PARALLEL − 1 test runs and replays at a time per
//     replica (1 when SANDBOX_MAX_PARALLEL is 1), so that saves, whose
//     checks run in a worker too, always find one: one more answers 429
//     SANDBOX_BUSY with the seed's message, naming that number, at once,
//     never queued, and before any of its body is read. The slot itself
//     is taken once the body is in (one that went meanwhile is the same
//     429), so a body that comes slowly holds no slot.
//   - Reads page (issue 19): the template list and a template's versions
//     answer a JSON array of at most limit items (default 50, at most
//     200; a page of templates also ends once its text, as JSON, passes
//     1 MiB), with
//     the next page in Link (rel="next") and X-Next-Cursor. Cursors are a
//     keyset position with a checksum (cursor.go): opaque, bound to the
//     name filter (or the template), refused with 400 INVALID_CURSOR when
//     edited or cut; they need no secret, since a position grants nothing.
//     name filters by a case-insensitive substring, both composed (NFC,
//     templates.Draft.Normalize). Query parameters a
//     route does not take, or given twice, are refused (UNKNOWN_PARAMETER,
//     INVALID_PARAMETER), as unknown JSON fields are. Reads carry an ETag
//     (a mark of the resource, and a hash of the body and the next link)
//     and answer If-None-Match with
//     304, an If-Match that names only other tags with 412; they are
//     Cache-Control private, no-cache, everything else no-store. PUT stores the next version (templates.Store.Update); a
//     version never changes. PUT and DELETE with If-Match write only while
//     the template is as the ETag it names was read (precondition in
//     etag.go; the store checks the version in the write itself), else 412
//     PRECONDITION_FAILED, saying so when every tag is of another resource,
//     and that the tag is none of this service's when it never gave any of
//     them out (only a tag of this template can be stale); a read's
//     If-Match too. A PUT answers the template's new ETag. A 405 names the
//     path's methods in Allow, HEAD included wherever GET is served. A PUT reads the template
//     before its source is checked in a worker: none is 404 at once.
//   - POST {base}/failures/{jobId}/replay is a test run of a recorded
//     failed job (replay_handler.go): the record is read from the
//     executor's failures stream over a connection opened for the request
//     (NATS_URL; unset: 503 FAILURES_UNAVAILABLE), run with its recorded
//     inputs, or with the body's source, under the same slots as test runs
//     (taken once the body is read, and held while the record is read),
//     and answered with the original error beside the new outcome
//     (failrecord.Report). Write role: it runs code and shows session
//     variables. Nothing is published.
//   - Store down: 503 STORE_UNAVAILABLE with Retry-After; the PostgreSQL
//     pool reconnects by itself, so the next request after the database is
//     back succeeds. A database or schema dropped after start is 503 too,
//     and /readyz says not ready (it reads the templates' table), until a
//     restart creates the tables again (the log says so).
//   - Credentials are checked first: while the store opens at start, a
//     caller without valid ones gets 401 at once, not the wait for it.
//   - Telemetry: every API request is a server span "<METHOD> <route>"
//     (a child of the caller's traceparent when the caller authenticated,
//     a new root otherwise), with the store's calls as
//     client spans under it (pgx queries on PostgreSQL, one span per call
//     on the embedded store); the probes are not traced. Spans go where the
//     OTEL_* variables say, nowhere when none is set (cmd/templates-api
//     calls telemetry.Setup). The service serves no /metrics: it has no
//     metric of its own (the operational metrics are the executor's, on its
//     admin port) and no admin port, and a public /metrics beside the API
//     would be its only unauthenticated route besides the probes.
//
// The package must never run a script outside the injected Runner, never
// parse one outside the injected Checker, never log a request body (sources
// and inputs are the authors') or a credential, never hold a lock across the
// network on the authentication path, and never answer with anything but
// JSON. net/http itself answers a few malformed requests before any
// handler runs (headers past 48 KiB, a bad request line or Host, an
// unknown Transfer-Encoding, an HTTP version it does not speak), in plain
// text written straight to the connection: the connection limit's
// connections rewrite those answers into the JSON error shape
// (plainerrors.go; BAD_REQUEST, HEADERS_TOO_LARGE, NOT_IMPLEMENTED,
// HTTP_VERSION_NOT_SUPPORTED), status unchanged.
package templatesapi
