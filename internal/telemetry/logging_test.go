package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"", slog.LevelInfo, false},
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{" warn ", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{"Error", slog.LevelError, false},
		{"verbose", 0, true},
		{"3", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), "LOG_LEVEL") || !strings.Contains(err.Error(), tt.in)) {
			t.Errorf("ParseLevel(%q) error %q should name LOG_LEVEL and the value", tt.in, err)
		}
	}
	if _, err := NewLogger(&bytes.Buffer{}, "loud"); err == nil {
		t.Error("NewLogger accepted level loud")
	}
}

func TestLogLinesCarryTraceAndJobIDs(t *testing.T) {
	_, exp := setupRecording(t)
	var buf bytes.Buffer
	logger, err := NewLogger(&buf, "info")
	if err != nil {
		t.Fatalf("NewLogger: %v", err)
	}
	ctx, span := StartSandbox(context.Background())
	jobLog := logger.With(LogKeyJobID, "job-7")
	jobLog.InfoContext(ctx, "script finished", "duration_ms", 12)
	jobLog.With("attempt", 2).WithGroup("script").InfoContext(ctx, "grouped", "line", 3)
	jobLog.DebugContext(ctx, "below the level")
	logger.Info("no context")
	span.End(nil)

	lines := decodeLines(t, &buf)
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3 (debug is below info): %s", len(lines), buf.String())
	}
	s := spanNamed(t, exp.GetSpans(), SpanSandbox)
	want := map[string]any{
		"msg": "script finished", "level": "INFO", LogKeyJobID: "job-7",
		LogKeyTraceID: s.SpanContext.TraceID().String(), LogKeySpanID: s.SpanContext.SpanID().String(),
	}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("line 1 %s = %v, want %v (line %v)", k, lines[0][k], v, lines[0])
		}
	}
	group, _ := lines[1]["script"].(map[string]any)
	if lines[1][LogKeyJobID] != "job-7" || group[LogKeyTraceID] != s.SpanContext.TraceID().String() {
		t.Errorf("grouped line %v: want job_id at the top and trace_id in the group", lines[1])
	}
	if _, ok := lines[2][LogKeyTraceID]; ok {
		t.Errorf("a line logged without a span has a trace_id: %v", lines[2])
	}
}

func decodeLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, raw := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", raw, err)
		}
		lines = append(lines, m)
	}
	return lines
}
