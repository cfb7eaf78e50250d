package telemetry

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// PgxTracer traces every Query, QueryRow and Exec of a pgx connection with
// a client span named after the SQL operation (SELECT, INSERT ...), with
// db.system.name=postgresql and the query text (never the arguments). Set
// it as pgxpool.Config.ConnConfig.Tracer.
type PgxTracer struct{}

var _ pgx.QueryTracer = PgxTracer{}

// TraceQueryStart starts the span.
func (PgxTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := sqlOperation(data.SQL)
	name := op
	if name == "" {
		name = "postgresql"
	}
	t, _ := tracer()
	ctx, _ = t.Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			semconv.DBSystemNamePostgreSQL,
			semconv.DBOperationName(op),
			semconv.DBQueryText(data.SQL),
		))
	return ctx
}

// TraceQueryEnd ends the span, recording the error if the query failed.
func (PgxTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	EndSpan(trace.SpanFromContext(ctx), data.Err)
}

// StartDB starts a client span for one call to a store that is not pgx
// (the embedded store): "<operation> <collection>" with db.system.name =
// system. End it with EndSpan.
func StartDB(ctx context.Context, system, operation, collection string) (context.Context, trace.Span) {
	t, _ := tracer()
	return t.Start(ctx, strings.TrimSpace(operation+" "+collection),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			semconv.DBSystemNameKey.String(system),
			semconv.DBOperationName(operation),
			semconv.DBCollectionName(collection),
		))
}

// EndSpan records err (if any) as the span's error and ends the span.
func EndSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// sqlOperation is the first keyword of query, upper-cased ("" if none).
func sqlOperation(query string) string {
	fields := strings.Fields(query)
	if len(fields) == 0 {
		return ""
	}
	op := strings.ToUpper(fields[0])
	for _, r := range op {
		if r < 'A' || r > 'Z' {
			return ""
		}
	}
	return op
}
