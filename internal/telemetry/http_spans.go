package telemetry

import (
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// HTTPServer traces every request next serves with a server span named
// "<method> <route>", a child of the caller's traceparent if it sent one.
// routes is the mux next routes with: its pattern for the request
// ("GET /api/script-templates/{id}") gives the low-cardinality route; nil
// names the span by the method alone. A status of 500 or more marks the
// span as an error. Wrap only the API, not the probes.
func HTTPServer(routes *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Method
		var route string
		if routes != nil {
			if _, pattern := routes.Handler(r); pattern != "" {
				route = pattern
				if _, p, ok := strings.Cut(pattern, " "); ok {
					route = p
				}
				name += " " + route
			}
		}
		ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		t, _ := tracer()
		ctx, span := t.Start(ctx, name,
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				semconv.HTTPRequestMethodKey.String(r.Method),
				semconv.URLPath(r.URL.Path),
			))
		defer span.End()
		if route != "" {
			span.SetAttributes(semconv.HTTPRoute(route))
		}
		sw := &StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if status >= http.StatusInternalServerError {
			span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
			span.SetStatus(codes.Error, http.StatusText(status))
		}
	})
}

// StatusRecorder remembers the status a handler wrote (Status: 0 when it
// wrote nothing yet). Middleware that reports the status wraps the writer
// with it.
type StatusRecorder struct {
	http.ResponseWriter
	status int
}

// Status is the status written, or 0.
func (w *StatusRecorder) Status() int { return w.status }

func (w *StatusRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *StatusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (w *StatusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
