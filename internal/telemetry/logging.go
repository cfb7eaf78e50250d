package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// LogLevelVar is the environment variable NewLogger's level comes from.
const LogLevelVar = "LOG_LEVEL"

// ParseLevel reads a LOG_LEVEL value: debug, info, warn or error, in any
// case; "" is info.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%s=%q is not a log level: use debug, info, warn or error", LogLevelVar, s)
}

// NewLogger returns a JSON logger writing to w at level (the value of
// LOG_LEVEL) whose lines carry trace_id and span_id when the context
// passed to InfoContext and the like holds a span. Callers add the job id
// with logger.With(LogKeyJobID, id).
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	lvl, err := ParseLevel(level)
	if err != nil {
		return nil, err
	}
	return slog.New(NewTraceHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl}))), nil
}

// TraceHandler adds trace_id and span_id to every record whose context
// holds a valid span context (a recording span, or only an engine's
// trace context when tracing is off), then hands it to the wrapped handler.
// Inside a WithGroup the ids are written in that group.
type TraceHandler struct {
	next slog.Handler
}

// NewTraceHandler wraps next.
func NewTraceHandler(next slog.Handler) *TraceHandler { return &TraceHandler{next: next} }

// Enabled reports whether next handles level.
func (h *TraceHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the ids and passes r on.
func (h *TraceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(
			slog.String(LogKeyTraceID, sc.TraceID().String()),
			slog.String(LogKeySpanID, sc.SpanID().String()),
		)
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a TraceHandler over next.WithAttrs(attrs).
func (h *TraceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &TraceHandler{next: h.next.WithAttrs(attrs)}
}

// WithGroup returns a TraceHandler over next.WithGroup(name).
func (h *TraceHandler) WithGroup(name string) slog.Handler {
	return &TraceHandler{next: h.next.WithGroup(name)}
}
