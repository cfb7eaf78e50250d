package templates

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/internal/telemetry"
)

// The embedded store's spans: "<operation> script_templates" with
// db.system.name=bbolt. (PostgreSQL's come from pgx through
// telemetry.PgxTracer.)
const (
	dbSystemEmbedded = "bbolt"
	dbCollection     = "script_templates"
)

// startDB starts the client span of one embedded store call, a child of
// the request's span in ctx.
func startDB(ctx context.Context, operation string) trace.Span {
	_, span := telemetry.StartDB(ctx, dbSystemEmbedded, operation, dbCollection)
	return span
}

// endDB ends span, recording err unless it is an answer rather than a
// failure: a missing template or a draft the rules refuse.
func endDB(span trace.Span, err error) {
	var invalid *ValidationError
	if errors.Is(err, ErrNotFound) || errors.As(err, &invalid) {
		err = nil
	}
	telemetry.EndSpan(span, err)
}
