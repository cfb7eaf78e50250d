package templates

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestPgxTracerSpans: every query of the PostgreSQL store is a client span
// under the caller's, named after its operation, with the query text and
// the error of a query that failed.
func TestPgxTracerSpans(t *testing.T) {
	url := testenv.PostgresURL(t)
	exp := tracetest.NewInMemoryExporter()
	ctx := testenv.Context(t, 20*time.Second)
	p, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName:   "flowscript-test",
		Getenv:        func(string) string { return "" },
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		SpanProcessor: sdktrace.NewSimpleSpanProcessor(exp),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	cfg.Tracer = pgxTracer{}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()

	parent, root := p.TracerProvider().Tracer("test").Start(ctx, "list templates")
	var n int
	if err := conn.QueryRow(parent, "SELECT $1::int + 1", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("query: %d, %v", n, err)
	}
	_, qerr := conn.Exec(parent, "delete from telemetry_no_such_table")
	root.End()
	if qerr == nil {
		t.Fatal("querying a missing table succeeded")
	}
	byName := map[string]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		byName[s.Name] = s
	}
	sel, ok := byName["SELECT"]
	if !ok || sel.Parent.SpanID() != root.SpanContext().SpanID() || sel.SpanKind != trace.SpanKindClient {
		t.Fatalf("SELECT span %+v: want a client span under the caller's", sel)
	}
	attrs := map[string]string{}
	for _, a := range sel.Attributes {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["db.system.name"] != "postgresql" || attrs["db.operation.name"] != "SELECT" || attrs["db.query.text"] != "SELECT $1::int + 1" {
		t.Errorf("SELECT span attributes %v", attrs)
	}
	if del := byName["DELETE"]; del.Status.Code != codes.Error || len(del.Events) != 1 {
		t.Errorf("the DELETE on a missing table has status %v and %d events, want Error and the exception", del.Status, len(del.Events))
	}
}
