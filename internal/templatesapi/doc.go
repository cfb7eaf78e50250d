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
//     AUTH_JWT_SECRET, or RS256 with keys from AUTH_JWKS_URL; exp is
//     required) or X-API-Key (one of AUTH_API_KEYS, compared in constant
//     time). A request that presents a credential must present only valid
//     ones. Unknown paths and wrong methods also answer 401 to an anonymous
//     caller, so the routes cannot be enumerated. The only public routes are
//     GET /healthz and GET /readyz, at the root and outside the base path,
//     for orchestrator probes; they reveal nothing but ok/ready. The service
//     refuses to start with no credential configured; there is no switch to
//     turn authentication off (for development set AUTH_API_KEYS).
//   - Errors have one shape everywhere:
//     {"error":{"code","message","fields":[{"field","code","message","line","column"}]}}.
//   - A save (POST, PUT) is validated before anything is written: field
//     rules (templates.Draft.Validate), then the source compiled by the
//     sandbox's own builder (a syntax error comes back with its line and
//     column) and the guardrails (package guardrails): findings of severity
//     error refuse the save (422), warnings are returned beside the saved
//     template in "warnings". Both run in a sandbox worker, through the
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
//     script's error (code, message, line, column) and durationMs; the
//     guardrail findings come along. A source that does not compile, or
//     cannot be checked within the limits, is answered without running. At
//     most SANDBOX_MAX_PARALLEL test runs at a time per replica: one more
//     answers 429 SANDBOX_BUSY with the seed's message at once, never
//     queued.
//   - Store down: 503 STORE_UNAVAILABLE with Retry-After; the PostgreSQL
//     pool reconnects by itself, so the next request after the database is
//     back succeeds.
//   - Telemetry: every API request is a server span "<METHOD> <route>"
//     (a child of the caller's traceparent), with the store's calls as
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
// and inputs are the authors'), and never answer with anything but JSON.
package templatesapi
