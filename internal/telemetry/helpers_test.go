package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/flowscript/flowscript/internal/testenv"
)

// noEnv is an environment with no variable set.
func noEnv(string) string { return "" }

// envOf returns a Getenv over vars.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// setupRecording sets telemetry up with an in-memory exporter fed
// synchronously, and shuts it down at the end of the test.
func setupRecording(t *testing.T) (*Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	p := setupWith(t, Config{
		ServiceName:   "flowscript-test",
		Getenv:        noEnv,
		SpanProcessor: sdktrace.NewSimpleSpanProcessor(exp),
	})
	return p, exp
}

func setupWith(t testing.TB, cfg Config) *Provider {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	}
	p, err := Setup(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return p
}

// connect starts an embedded NATS server and connects to it.
func connect(t testing.TB) *nats.Conn {
	t.Helper()
	srv := testenv.EmbeddedNATS(t)
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("connecting to embedded NATS: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// spanNamed finds the one span called name.
func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("want exactly one span %q, found %d among %q", name, len(found), names)
	}
	return found[0]
}
