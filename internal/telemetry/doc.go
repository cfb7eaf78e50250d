// Package telemetry wires OpenTelemetry for FlowScript: trace propagation
// over NATS headers, the spans of the messaging conventions, the metrics
// operators scale and alert on, and slog handlers that stamp trace and span
// ids on every log line. It never decides anything about a job.
//
// Setup reads the standard OTEL_* variables once; with none set it exports
// nothing and the span helpers cost next to nothing, while an engine's
// trace context still flows from the job's headers to the result's and
// into log lines. Metrics are always served to Prometheus through
// Provider.Handler under the names in names.go, from a registry of their
// own: the package never touches Prometheus's global registry, never logs
// a job's data, and never puts a script's inputs or outputs on a span.
//
// The job path's spans (StartSend, StartProcess, StartSandbox) are
// recorded by this package's recorder (jobspan.go) rather than the SDK's
// tracer, whose per-span allocations were most of what tracing cost the
// executor; they go through the same sampler, span limits, processors and
// exporters, and a test plays every span call on both and compares what
// the exporter got. Other spans (HTTP, database) use the SDK's tracer.
package telemetry
