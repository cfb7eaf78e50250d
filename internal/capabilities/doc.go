// Package capabilities is the executor's side of the host functions of
// DESIGN.md §9: the operator's policy (which capabilities and connectors
// each tenant may use, read from the file CAPABILITIES_POLICY_FILE names),
// the grants of a job (what it asks for that its tenant may use), and the
// host that answers a job's host calls — api through the operator's
// connectors (package httpapi), kv through the session store (package
// sessionkv). It is trusted code: it runs in the executor, never in a
// sandbox worker, and it never trusts what crosses from the sandbox —
// arguments arrive as JSON text and are decoded and checked here again.
//
// With no policy file nothing is granted: every job runs as DESIGN.md §3
// says, and its host calls throw CAPABILITY_DENIED.
//
// It must never hand a secret, a Go value or an unchecked host answer to
// a script, and never run a host call past the job's deadline.
package capabilities
