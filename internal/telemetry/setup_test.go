package telemetry

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace/noop"
)

func TestSetupWithoutEnvIsNoop(t *testing.T) {
	p := setupWith(t, Config{ServiceName: "flowscript-executor", Getenv: noEnv})
	if p.Tracing() {
		t.Error("Tracing() is true with no OTEL_* variable")
	}
	if _, ok := p.TracerProvider().(noop.TracerProvider); !ok {
		t.Errorf("TracerProvider() is %T, want noop.TracerProvider", p.TracerProvider())
	}
	if _, ok := otel.GetTracerProvider().(noop.TracerProvider); !ok {
		t.Errorf("the global tracer provider is %T, want noop.TracerProvider", otel.GetTracerProvider())
	}
	_, span := StartSend(context.Background(), "flowscript.jobs.execute", "job-1")
	defer span.End(nil)
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("a span without parent under no OTEL_* variable records or has an id")
	}
}

func TestSetupValidatesServiceName(t *testing.T) {
	_, err := Setup(context.Background(), Config{Getenv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "ServiceName") {
		t.Fatalf("Setup without a service name: err %v, want one naming ServiceName", err)
	}
	p := setupWith(t, Config{Getenv: envOf(map[string]string{"OTEL_SERVICE_NAME": "from-env"})})
	if p == nil {
		t.Fatal("OTEL_SERVICE_NAME should stand in for ServiceName")
	}
}

func TestSetupRejectsBadEnvironment(t *testing.T) {
	_, err := Setup(context.Background(), Config{ServiceName: "x", Getenv: envOf(map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"})})
	if err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_EXPORTER") {
		t.Fatalf("err %v, want one naming OTEL_TRACES_EXPORTER", err)
	}
}

func TestPlanExport(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    exportPlan
		wantErr string
	}{
		{name: "nothing set", env: nil, want: exportPlan{}},
		{name: "base endpoint turns both on",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"},
			want: exportPlan{traces: true, tracesURL: "http://collector:4318/v1/traces", metricsOTLP: true, metricsURL: "http://collector:4318/v1/metrics"}},
		{name: "traces endpoint is used as is",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://tempo:4318/otlp/traces"},
			want: exportPlan{traces: true, tracesURL: "https://tempo:4318/otlp/traces"}},
		{name: "otlp exporter with no endpoint uses the default",
			env:  map[string]string{"OTEL_TRACES_EXPORTER": "otlp"},
			want: exportPlan{traces: true}},
		{name: "traces none wins over an endpoint",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"},
			want: exportPlan{metricsOTLP: true, metricsURL: "http://c:4318/v1/metrics"}},
		{name: "metrics prometheus only",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "prometheus"},
			want: exportPlan{traces: true, tracesURL: "http://c:4318/v1/traces"}},
		{name: "sdk disabled",
			env:  map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "otlp"},
			want: exportPlan{}},
		{name: "http/protobuf accepted",
			env:  map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: exportPlan{traces: true}},
		{name: "grpc refused",
			env:     map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\""},
		{name: "unknown exporter refused",
			env:     map[string]string{"OTEL_TRACES_EXPORTER": "otlp,console"},
			wantErr: "OTEL_TRACES_EXPORTER"},
		{name: "endpoint without scheme refused",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
			wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "bad traces endpoint refused",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://x"},
			wantErr: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := planExport(envOf(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("planExport = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestResourceAttrs(t *testing.T) {
	got, err := resourceAttrs(envOf(map[string]string{
		"OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored, deployment.environment.name=prod,team=bots%20%26%20flows",
		"OTEL_SERVICE_NAME":        "executor-eu",
	}))
	if err != nil {
		t.Fatalf("resourceAttrs: %v", err)
	}
	set := attribute.NewSet(got...) // the last service.name wins, as in the resource
	for k, want := range map[attribute.Key]string{
		"service.name": "executor-eu", "deployment.environment.name": "prod", "team": "bots & flows",
	} {
		if v, ok := set.Value(k); !ok || v.AsString() != want {
			t.Errorf("%s = %q, want %q", k, v.AsString(), want)
		}
	}
	for _, bad := range []string{"novalue", "=x", "k=%zz"} {
		if _, err := resourceAttrs(envOf(map[string]string{"OTEL_RESOURCE_ATTRIBUTES": bad})); err == nil || !strings.Contains(err.Error(), "OTEL_RESOURCE_ATTRIBUTES") {
			t.Errorf("OTEL_RESOURCE_ATTRIBUTES=%q: err %v, want one naming the variable", bad, err)
		}
	}
}

// otlpCollector is a stand-in OTLP/HTTP receiver on loopback that records
// which paths were posted to.
type otlpCollector struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *otlpCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Method == http.MethodPost && r.Header.Get("Content-Type") == "application/x-protobuf" && len(body) > 0 {
		c.paths[r.URL.Path]++
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (c *otlpCollector) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paths[path]
}

func TestSetupExportsOverOTLPWhenTheEndpointIsSet(t *testing.T) {
	col := &otlpCollector{paths: map[string]int{}}
	srv := httptest.NewServer(col)
	defer srv.Close()

	var logs bytes.Buffer
	p, err := Setup(context.Background(), Config{
		ServiceName: "flowscript-executor",
		Getenv:      envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}),
		Logger:      slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if !p.Tracing() {
		t.Fatal("Tracing() is false with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	m, err := NewMetrics(p.MeterProvider())
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	m.JobFinished(context.Background(), OutcomeSucceeded, "")
	_, span := StartSend(context.Background(), "flowscript.jobs.execute", "job-1")
	span.End(nil)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (logs: %s)", err, logs.String())
	}
	if col.count("/v1/traces") == 0 || col.count("/v1/metrics") == 0 {
		t.Errorf("the collector got %v, want posts to /v1/traces and /v1/metrics", col.paths)
	}
	if !strings.Contains(logs.String(), "otlp "+srv.URL+"/v1/traces") {
		t.Errorf("the ready line does not say where traces go: %s", logs.String())
	}
	if err := p.Shutdown(ctx); err != nil {
		t.Errorf("a second Shutdown: %v", err)
	}
}
