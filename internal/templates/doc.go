// Package templates keeps the global script templates of DESIGN.md §6:
// what a template is, the rules a template must follow to be stored, and
// the two stores that keep them — PostgreSQL (pgx, migrations embedded and
// applied at start under an advisory lock, so several replicas may start at
// once) and an embedded bbolt file for a single replica on a bare machine.
// Both pass the one contract suite in package storetest.
//
// Templates are global (no workspace). The store assigns the id (a UUIDv7)
// and the timestamps (UTC, microsecond precision, as PostgreSQL keeps them);
// List returns every template, newest createdAt first, ties broken by the
// newer id. Names need not be unique.
//
// The package must never run or compile a script, and never know HTTP:
// checking a source against the sandbox is the API's job. A store refuses an
// invalid draft with a *ValidationError before writing anything, reports a
// missing template with ErrNotFound and a store it cannot reach with
// ErrUnavailable, so callers can answer 404 and 503 without knowing which
// store they hold.
package templates
