package templatesapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"time"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/telemetry"
)

// requestInfo travels in the request context so the log line written after
// the handler knows who called and under which id.
type requestInfo struct {
	id        string
	principal Principal
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(infoKey{}).(*requestInfo)
	return info
}

// withRequestLog gives every request an id (X-Request-Id, echoed when the
// caller sent a sane one) and logs one line per request: never the body.
func (s *Server) withRequestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = uuid.NewString()
		}
		w.Header().Set("X-Request-Id", id)
		info := &requestInfo{id: id}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		rec := &telemetry.StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		level := slog.LevelInfo
		if rec.Status() >= 500 {
			level = slog.LevelWarn
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("request_id", id),
			slog.String("method", r.Method),
			slog.String("route", r.Pattern),
			slog.Int("status", rec.Status()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("auth", info.principal.Method),
			slog.String("subject", info.principal.Subject),
		)
	})
}

func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	c := path.Clean(p)
	if p[len(p)-1] == '/' && c != "/" {
		c += "/"
	}
	return c
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if r < '!' || r > '~' {
			return false
		}
	}
	return true
}

// withRecover turns a panic into a logged 500 with the request id.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v) // net/http aborts the response without logging
			}
			id := ""
			if info := infoFrom(r.Context()); info != nil {
				id = info.id
			}
			s.log.ErrorContext(r.Context(), "handler panicked", "request_id", id, "panic", v, "stack", string(debug.Stack()))
			writeError(w, newError(http.StatusInternalServerError, CodeInternal,
				"internal error; report request id "+id))
		}()
		next.ServeHTTP(w, r)
	})
}
