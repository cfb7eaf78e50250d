package templates

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/internal/telemetry"
)

// The embedded store's spans: "<operation> script_templates" with
// db.system.name=bbolt. PostgreSQL's come from pgx through pgxTracer.
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
// failure: a missing template, one at another version than a conditional
// write named, or a draft the rules refuse.
func endDB(span trace.Span, err error) {
	var invalid *ValidationError
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrVersionConflict) || errors.As(err, &invalid) {
		err = nil
	}
	telemetry.EndSpan(span, err)
}

// pgxTracer traces every Query, QueryRow and Exec of the PostgreSQL store
// with a client span named after the SQL operation (SELECT, INSERT ...),
// with db.system.name=postgresql and the query text (never the
// arguments).
type pgxTracer struct{}

var _ pgx.QueryTracer = pgxTracer{}

// TraceQueryStart starts the span.
func (pgxTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx, _ = telemetry.StartDBQuery(ctx, "postgresql", data.SQL)
	return ctx
}

// TraceQueryEnd ends the span, recording the error if the query failed.
func (pgxTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	telemetry.EndSpan(trace.SpanFromContext(ctx), data.Err)
}
