package telemetry

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exportPlan is what the OTEL_* variables ask for.
type exportPlan struct {
	// traces: export spans over OTLP/HTTP to tracesURL ("" = the
	// exporter's default, http://localhost:4318/v1/traces).
	traces    bool
	tracesURL string
	// metricsOTLP: push metrics over OTLP/HTTP to metricsURL as well as
	// serving them to Prometheus.
	metricsOTLP bool
	metricsURL  string
}

// planExport reads the standard variables:
//
//	OTEL_SDK_DISABLED=true                   no traces, no OTLP metrics
//	OTEL_TRACES_EXPORTER=otlp|none           default: otlp when an endpoint is set
//	OTEL_METRICS_EXPORTER=otlp|prometheus|none  (a comma list) default: otlp when an endpoint is set
//	OTEL_EXPORTER_OTLP_ENDPOINT              base URL; /v1/traces and /v1/metrics are appended
//	OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT  full URLs, used as they are
//	OTEL_EXPORTER_OTLP_{,TRACES_,METRICS_}PROTOCOL  only http/protobuf
//
// Prometheus on the admin port is always on: it is not an OTLP export.
func planExport(getenv func(string) string) (exportPlan, error) {
	var plan exportPlan
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return plan, nil
	}
	base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if base != "" {
		if err := checkEndpoint("OTEL_EXPORTER_OTLP_ENDPOINT", base); err != nil {
			return plan, err
		}
	}

	tracesExp, err := exporterList(getenv, "OTEL_TRACES_EXPORTER", "otlp", "none")
	if err != nil {
		return plan, err
	}
	plan.traces, plan.tracesURL, err = signalPlan(getenv, tracesExp, base, "TRACES", "/v1/traces")
	if err != nil {
		return plan, err
	}

	metricsExp, err := exporterList(getenv, "OTEL_METRICS_EXPORTER", "otlp", "prometheus", "none")
	if err != nil {
		return plan, err
	}
	plan.metricsOTLP, plan.metricsURL, err = signalPlan(getenv, metricsExp, base, "METRICS", "/v1/metrics")
	if err != nil {
		return plan, err
	}
	return plan, nil
}

// signalPlan decides whether one signal goes to OTLP and where.
func signalPlan(getenv func(string) string, exporters []string, base, signal, path string) (bool, string, error) {
	endpointVar := "OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"
	endpoint := strings.TrimSpace(getenv(endpointVar))
	on := slices.Contains(exporters, "otlp") ||
		(len(exporters) == 0 && (endpoint != "" || base != ""))
	if !on {
		return false, "", nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" && p != "http/protobuf" {
			return false, "", fmt.Errorf("%s=%q is not supported: FlowScript exports OTLP over HTTP; set it to http/protobuf (collector port 4318) or unset it", name, p)
		}
	}
	switch {
	case endpoint != "":
		if err := checkEndpoint(endpointVar, endpoint); err != nil {
			return false, "", err
		}
		return true, endpoint, nil
	case base != "":
		return true, strings.TrimRight(base, "/") + path, nil
	default:
		return true, "", nil
	}
}

// exporterList parses a comma list of exporter names, allowing only the
// given ones. "none" alone (or with others) means none; an empty variable
// returns nil.
func exporterList(getenv func(string) string, name string, allowed ...string) ([]string, error) {
	raw := strings.TrimSpace(getenv(name))
	if raw == "" {
		return nil, nil
	}
	var list []string
	for _, part := range strings.Split(raw, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		if part == "" {
			continue
		}
		if !slices.Contains(allowed, part) {
			return nil, fmt.Errorf("%s=%q names exporter %q, which FlowScript does not support: use %s", name, raw, part, strings.Join(allowed, ", "))
		}
		if part == "none" {
			return []string{"none"}, nil
		}
		list = append(list, part)
	}
	return list, nil
}

func checkEndpoint(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s=%q is not an http(s) URL: set it like http://otel-collector:4318", name, raw)
	}
	return nil
}

// resourceAttrs parses OTEL_RESOURCE_ATTRIBUTES ("k1=v1,k2=v2", values
// percent-encoded) and then OTEL_SERVICE_NAME, which wins over a
// service.name in the list.
func resourceAttrs(getenv func(string) string) ([]attribute.KeyValue, error) {
	const name = "OTEL_RESOURCE_ATTRIBUTES"
	var attrs []attribute.KeyValue
	if raw := strings.TrimSpace(getenv(name)); raw != "" {
		for _, pair := range strings.Split(raw, ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("%s: %q is not key=value: write it like service.namespace=chatbot,deployment.environment.name=prod", name, pair)
			}
			value, err := url.PathUnescape(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("%s: the value of %s is badly percent-encoded: %w", name, k, err)
			}
			attrs = append(attrs, attribute.String(k, value))
		}
	}
	if svc := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); svc != "" {
		attrs = append(attrs, attribute.String("service.name", svc))
	}
	return attrs, nil
}

// samplerFrom reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the
// OpenTelemetry specification defines them:
//
//	always_on, always_off, traceidratio (ARG: the ratio, 0 to 1, default 1)
//	parentbased_always_on (the default), parentbased_always_off,
//	parentbased_traceidratio (ARG as above)
//
// A parent-based sampler follows the engine's decision (the sampled flag
// of the job's traceparent) and applies its root sampler only to jobs
// without one. Unlike the SDK, which logs a bad value and samples
// everything, Setup refuses it, naming the variable.
func samplerFrom(getenv func(string) string) (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 || math.IsNaN(r) {
			return 0, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q is not a ratio: set a number from 0 to 1, such as 0.1 for one trace in ten", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		if name == "traceidratio" {
			return sdktrace.TraceIDRatioBased(r), nil
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q is not a sampler FlowScript knows: use always_on, always_off, traceidratio, "+
		"parentbased_always_on (the default), parentbased_always_off or parentbased_traceidratio", name)
}
