package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config configures Setup.
type Config struct {
	// ServiceName is service.name (flowscript-executor,
	// flowscript-templates-api). OTEL_SERVICE_NAME overrides it.
	ServiceName string
	// Version is service.version ("" leaves it out).
	Version string
	// Getenv reads the OTEL_* variables (default os.Getenv). It decides what
	// is exported and where, and how spans are sampled (OTEL_TRACES_SAMPLER
	// and OTEL_TRACES_SAMPLER_ARG); the OTLP exporters read their other
	// settings (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, TLS
	// files) from the process environment.
	Getenv func(string) string
	// Logger receives OpenTelemetry's own errors (an unreachable collector)
	// and one line saying what is exported (default slog.Default()).
	Logger *slog.Logger
	// SpanProcessor, when set, receives every span, and tracing is on
	// whatever the environment says: tests pass
	// sdktrace.NewSimpleSpanProcessor(tracetest.NewInMemoryExporter()).
	SpanProcessor sdktrace.SpanProcessor
	// SpanExporter, when set, receives every span in batches, through the
	// same processor as the OTLP exporter, and tracing is on whatever the
	// environment says: benchmarks pass an in-memory exporter.
	SpanExporter sdktrace.SpanExporter
}

// WithDefaults fills Getenv and Logger.
func (c Config) WithDefaults() Config {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate reports a Config Setup cannot use.
func (c Config) Validate() error {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.ServiceName == "" && getenv("OTEL_SERVICE_NAME") == "" {
		return errors.New("telemetry Config.ServiceName is empty: set it (or OTEL_SERVICE_NAME)")
	}
	return nil
}

// Provider holds the tracer and meter providers Setup built. Call Shutdown
// before the process exits so buffered spans and metrics are sent.
type Provider struct {
	tracerProvider trace.TracerProvider
	sdkTracer      *sdktrace.TracerProvider // nil when tracing is off
	recorder       *recorder                // the job path's spans; nil when tracing is off
	meterProvider  *sdkmetric.MeterProvider
	handler        http.Handler

	shutdownOnce sync.Once
	shutdownErr  error
}

// Setup builds tracing and metrics from cfg and the OTEL_* variables, and
// installs the tracer provider and the W3C propagator as OpenTelemetry's
// globals. The span helpers of this package use the provider of the last
// Setup (before any Setup, the global one).
//
// With no OTEL_* variable set nothing is exported: the tracer provider is
// a no-op one (spans still carry an incoming trace context, so logs and
// result messages keep the engine's trace id, but nothing is recorded).
// Metrics are always served to Prometheus through Handler, under the names
// in names.go.
func Setup(ctx context.Context, cfg Config) (*Provider, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	plan, err := planExport(cfg.Getenv)
	if err != nil {
		return nil, fmt.Errorf("setting up telemetry: %w", err)
	}
	res, err := buildResource(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("setting up telemetry: %w", err)
	}

	p := &Provider{}
	if p.meterProvider, p.handler, err = buildMetrics(ctx, cfg, plan, res); err != nil {
		return nil, fmt.Errorf("setting up telemetry metrics: %w", err)
	}
	if p.sdkTracer, p.recorder, err = buildTracing(ctx, cfg, plan, res); err != nil {
		_ = p.meterProvider.Shutdown(ctx)
		return nil, fmt.Errorf("setting up telemetry tracing: %w", err)
	}
	p.tracerProvider = noop.NewTracerProvider()
	if p.sdkTracer != nil {
		p.tracerProvider = p.sdkTracer
	}

	logger := cfg.Logger
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("opentelemetry could not export or record telemetry", "err", err)
	}))
	otel.SetTextMapPropagator(propagator)
	otel.SetTracerProvider(p.tracerProvider)
	useTracerProvider(p.tracerProvider, p.recorder)

	logger.Info("telemetry ready",
		"traces", describeExport(p.sdkTracer != nil, plan.traces, plan.tracesURL, cfg.SpanProcessor != nil || cfg.SpanExporter != nil),
		"metrics_otlp", describeExport(plan.metricsOTLP, plan.metricsOTLP, plan.metricsURL, false))
	return p, nil
}

func describeExport(on, otlp bool, url string, injected bool) string {
	switch {
	case !on:
		return "off"
	case otlp && url != "":
		return "otlp " + url
	case otlp:
		return "otlp (exporter default endpoint)"
	case injected:
		return "injected span processor"
	default:
		return "on"
	}
}

func buildResource(ctx context.Context, cfg Config) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{semconv.ServiceName(cfg.ServiceName)}
	if cfg.Version != "" {
		attrs = append(attrs, semconv.ServiceVersion(cfg.Version))
	}
	fromEnv, err := resourceAttrs(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	// Later attributes win: the environment overrides the code's defaults.
	attrs = append(attrs, fromEnv...)
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithAttributes(attrs...),
	)
	if err != nil {
		return nil, fmt.Errorf("building the resource: %w", err)
	}
	return res, nil
}

// buildMetrics makes the meter provider: a Prometheus reader on a registry
// of its own (never the global one), and an OTLP push reader when asked.
func buildMetrics(ctx context.Context, cfg Config, plan exportPlan, res *resource.Resource) (*sdkmetric.MeterProvider, http.Handler, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	promReader, err := otelprom.New(
		otelprom.WithRegisterer(reg),
		// Instruments are named exactly as names.go says; the exporter
		// must add no _total or unit suffix of its own.
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithoutSuffixes),
		otelprom.WithoutScopeInfo(),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the Prometheus exporter: %w", err)
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(promReader)}
	if plan.metricsOTLP {
		var expOpts []otlpmetrichttp.Option
		if plan.metricsURL != "" {
			expOpts = append(expOpts, otlpmetrichttp.WithEndpointURL(plan.metricsURL))
		}
		exp, err := otlpmetrichttp.New(ctx, expOpts...)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the OTLP metric exporter: %w", err)
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	handler := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
	return sdkmetric.NewMeterProvider(opts...), handler, nil
}

// buildTracing returns nil when nothing asks for spans.
func buildTracing(ctx context.Context, cfg Config, plan exportPlan, res *resource.Resource) (*sdktrace.TracerProvider, *recorder, error) {
	// Read first: a bad sampler stops the start even while nothing exports,
	// not only once an endpoint is set.
	sampler, err := samplerFrom(cfg.Getenv)
	if err != nil {
		return nil, nil, err
	}
	if !plan.traces && cfg.SpanProcessor == nil && cfg.SpanExporter == nil {
		return nil, nil, nil
	}
	var processors []sdktrace.SpanProcessor
	if cfg.SpanProcessor != nil {
		processors = append(processors, cfg.SpanProcessor)
	}
	batching := batcherOptionsFrom(cfg.Getenv, cfg.Logger)
	if cfg.SpanExporter != nil {
		processors = append(processors, newBatcher(cfg.SpanExporter, batching))
	}
	if plan.traces {
		var expOpts []otlptracehttp.Option
		if plan.tracesURL != "" {
			expOpts = append(expOpts, otlptracehttp.WithEndpointURL(plan.tracesURL))
		}
		exp, err := otlptracehttp.New(ctx, expOpts...)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the OTLP trace exporter: %w", err)
		}
		processors = append(processors, newBatcher(exp, batching))
	}
	// The resource the provider would make of res (merged under the
	// process's OTEL_RESOURCE_ATTRIBUTES), made once for both.
	if env, err := resource.Merge(resource.Environment(), res); err == nil {
		res = env
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sampler)}
	for _, sp := range processors {
		opts = append(opts, sdktrace.WithSpanProcessor(sp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	rec := newRecorder(tp, sampler, processors, res)
	return tp, rec, nil
}

// Tracing reports whether spans are recorded (an exporter or an injected
// span processor is configured).
func (p *Provider) Tracing() bool { return p.sdkTracer != nil }

// TracerProvider is the provider Setup installed as the global one.
func (p *Provider) TracerProvider() trace.TracerProvider { return p.tracerProvider }

// MeterProvider is what NewMetrics takes.
func (p *Provider) MeterProvider() metric.MeterProvider { return p.meterProvider }

// Handler serves the metrics in the Prometheus text format: mount it on
// the admin port's /metrics.
func (p *Provider) Handler() http.Handler { return p.handler }

// Shutdown flushes and stops the exporters. It is safe to call more than
// once; later calls return the first call's error.
func (p *Provider) Shutdown(ctx context.Context) error {
	p.shutdownOnce.Do(func() {
		var errs []error
		if p.sdkTracer != nil {
			p.recorder.stop()
			if err := p.sdkTracer.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("shutting down tracing: %w", err))
			}
		}
		if err := p.meterProvider.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shutting down metrics: %w", err))
		}
		p.shutdownErr = errors.Join(errs...)
	})
	return p.shutdownErr
}
