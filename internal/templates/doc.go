// Package templates keeps the global script templates of DESIGN.md §6:
// what a template is, the rules a template must follow to be stored, and
// the two stores that keep them — PostgreSQL (pgx, migrations embedded and
// applied at start under an advisory lock, so several replicas may start at
// once) and an embedded bbolt file for a single replica on a bare machine.
// Both pass the one contract suite in package storetest.
//
// Templates are global (no workspace). The store assigns the id (a UUIDv7)
// and the timestamps (UTC, microsecond precision, as PostgreSQL keeps them);
// List returns one page, newest createdAt first, ties broken by the newer
// id, continuing from a Position (keyset on createdAt and id, so a page
// costs the same however deep, and a walk sees each template that existed
// when it began exactly once while others are created or deleted). A page
// holds at most its limit (DefaultPageSize, MaxPageSize) and ends early once
// its text passes a budget (MaxPageBytes). Names need not be unique; the
// name filter is a case-insensitive substring.
//
// Versions: every content a template holds (name, description and source
// together) is a numbered version, 1 at creation and one more at each
// update that changes it; an update that changes nothing stores nothing.
// A version never changes and goes only with its template. On PostgreSQL
// triggers keep the versions (migration 0002), so every writer of the table
// does; the embedded file upgrades itself from the layout before versions
// when opened.
//
// The package must never run or compile a script, and never know HTTP:
// checking a source against the sandbox is the API's job. A store refuses an
// invalid draft with a *ValidationError before writing anything, reports a
// missing template with ErrNotFound and a store it cannot reach with
// ErrUnavailable, so callers can answer 404 and 503 without knowing which
// store they hold. On PostgreSQL a read whose pooled connection the server
// had ended (pg_terminate_backend, a restart, a dropped proxy connection)
// runs once more on another connection; a write is not repeated, as it may
// have been carried out, and answers ErrUnavailable.
package templates
