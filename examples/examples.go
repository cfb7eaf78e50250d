// Package examples holds sample executeScript jobs, one per outcome of the
// error policy (DESIGN.md §4), as the JSON an engine publishes. The
// executor's demo (`go run ./cmd/executor`) publishes them and prints their
// result events; they are also a starting point for engine authors.
//
// Each file is a job; the demo replaces its "id" with a unique one per run.
// 10-invalid-onerror.json breaks the contract on purpose (onError
// "sometimes"): it is dead-lettered and answered with a failed INVALID_JOB
// result.
package examples

import "embed"

// Jobs are the sample job files, by name.
//
//go:embed *.json
var Jobs embed.FS

// CPF is the seed's cpf script (cpf.js): the full-file format, with one
// input, cpf, and helpers beside execute. Tests and benchmarks run it as
// the ordinary script it is.
//
//go:embed cpf.js
var CPF string
