package telemetry

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// StartDBQuery starts a client span for one query of an SQL database:
// named after its operation (SELECT, INSERT ...), with db.system.name =
// system, the operation and the query text (never its arguments). End it
// with EndSpan. The templates store's pgx tracer calls it.
func StartDBQuery(ctx context.Context, system, query string) (context.Context, trace.Span) {
	op := sqlOperation(query)
	name := op
	if name == "" {
		name = system
	}
	t, _ := tracer()
	return t.Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			semconv.DBSystemNameKey.String(system),
			semconv.DBOperationName(op),
			semconv.DBQueryText(query),
		))
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
