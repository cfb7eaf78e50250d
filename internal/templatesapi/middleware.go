package templatesapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"time"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/telemetry"
)

// withUnreadBodyClosing closes the connection after any answer to a
// request whose body the handler did not read to its end, and reads what
// is left of that body for half a second at most. net/http would otherwise
// read up to 256 KB of the body before writing the answer and again after
// it: a caller trickling a body, even an anonymous one (a refusal reads
// none of it), held its 401 and a busy connection for the whole read
// timeout, and enough of them locked every caller out. The half second
// lets a client that sent its whole body see the answer instead of a reset.
// A chunked request's connection is closed after the answer too.
func withUnreadBodyClosing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Connection", "close")
		// A chunked body's connection is closed even when it is read:
		// net/http drops a Content-Length sent beside the Transfer-Encoding,
		// and RFC 9112 (§6.3) has the server close such a connection, since
		// a proxy in front may have read the body by the other header and
		// sent another request behind it.
		chunked := len(r.TransferEncoding) > 0
		body := &eofWatch{ReadCloser: r.Body, atEOF: func() {
			if !chunked {
				h.Del("Connection")
			}
		}}
		// A copy: the server's own request keeps its body, which net/http
		// inspects after the handler.
		r = r.WithContext(r.Context())
		r.Body = body
		next.ServeHTTP(w, r)
		if body.atEOF != nil { // the rest is drained after the answer
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(unreadBodyDrain))
		}
	})
}

// withHeaderLimit answers a request whose line and headers are over
// maxHeaderBytes, in JSON as every answer, and closes the connection: 414
// URI_TOO_LONG when the URL is most of them, 431 HEADERS_TOO_LARGE
// otherwise, so the message names what to shorten.
func withHeaderLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := headerBytes(r)
		switch {
		case n <= maxHeaderBytes:
			next.ServeHTTP(w, r)
			return
		case len(r.RequestURI) > n/2:
			w.Header().Set("Connection", "close")
			writeError(w, newError(http.StatusRequestURITooLong, CodeURITooLong, fmt.Sprintf(
				"the URL is %d bytes, which puts the request's line and headers over the limit of %d: send a shorter URL", len(r.RequestURI), maxHeaderBytes)))
		default:
			w.Header().Set("Connection", "close")
			writeError(w, newError(http.StatusRequestHeaderFieldsTooLarge, CodeHeadersTooLarge, fmt.Sprintf(
				"the request's headers are about %d bytes, over the limit of %d: send a shorter token or fewer headers", n, maxHeaderBytes)))
		}
	})
}

// withPathTarget answers a request whose target is not a path ("*", as
// in HTTP/2's preface "PRI * HTTP/2.0", which net/http hands to the
// handler, and "OPTIONS *", which the server does not answer itself:
// http.Server.DisableGeneralOptionsHandler) with 400 BAD_REQUEST in JSON on
// a connection that closes, where http.ServeMux answered 400 with an empty
// body and net/http "OPTIONS *" with an empty 200.
func withPathTarget(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI != "*" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		msg := "the request's target is *, not a path: send requests to a path such as /api/script-templates"
		if r.ProtoMajor == 2 {
			msg = "HTTP/2 without TLS is not spoken here (the request is HTTP/2's preface): send HTTP/1.1 requests to a path such as /api/script-templates"
		}
		writeError(w, newError(http.StatusBadRequest, CodeBadRequest, msg))
	})
}

// headerBytes is about the size of r's request line and headers as sent.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: \r\n") + len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4 // "k: v\r\n"
		}
	}
	return n
}

// unreadBodyDrain bounds the reading of an unread body after the answer.
const unreadBodyDrain = 500 * time.Millisecond

// eofWatch calls atEOF once, when the body it wraps has been read to its
// end.
type eofWatch struct {
	io.ReadCloser
	atEOF func()
}

func (b *eofWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && b.atEOF != nil {
		b.atEOF()
		b.atEOF = nil
	}
	return n, err
}

// authResult is what the request's credentials came to.
type authResult struct {
	principal Principal
	err       error // an *authError when refused
}

type authKey struct{}

func authFrom(ctx context.Context) *authResult {
	res, _ := ctx.Value(authKey{}).(*authResult)
	return res
}

// withAuthentication checks the credentials of every request but the
// probes', before tracing starts, so the tracing and the log know whether
// the caller is anyone; requireAuth then answers 401 or 403.
func (s *Server) withAuthentication(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.probes[r.URL.Path] && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		p, err := s.auth.Authenticate(r)
		res := &authResult{principal: p, err: err}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authKey{}, res)))
	})
}

// requestInfo travels in the request context so the log line written after
// the handler knows who called and under which id.
type requestInfo struct {
	id   string
	auth *authResult
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(infoKey{}).(*requestInfo)
	return info
}

// refusedLogEvery spaces the INFO lines that sum up refused credentials;
// each refused request is also logged at DEBUG.
const refusedLogEvery = time.Minute

// withRequestLog gives every request an id (X-Request-Id, echoed when the
// caller sent one that looks like a request id, a fresh one otherwise) and
// logs one line per request: never the body. Refused credentials are
// logged at DEBUG, with an INFO summary at most once per refusedLogEvery,
// so anonymous callers cannot fill the logs.
func (s *Server) withRequestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = uuid.NewString()
		}
		w.Header().Set("X-Request-Id", id)
		info := &requestInfo{id: id, auth: authFrom(r.Context())}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		rec := &telemetry.StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)

		attrs := []slog.Attr{
			slog.String("request_id", id),
			slog.String("method", r.Method),
			slog.String("route", r.Pattern),
			slog.Int("status", rec.Status()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		}
		level := slog.LevelInfo
		if rec.Status() >= 500 {
			level = slog.LevelWarn
		}
		if res := info.auth; res != nil && res.err == nil {
			attrs = append(attrs, slog.String("auth", res.principal.Method), slog.String("subject", res.principal.Subject),
				slog.String("role", res.principal.Role.String()))
		} else if rec.Status() == http.StatusUnauthorized {
			level = slog.LevelDebug
			reason := "no credentials"
			var aerr *authError
			if res != nil && errors.As(res.err, &aerr) {
				reason = aerr.reason
			}
			attrs = append(attrs, slog.String("auth_error", reason))
			s.summarizeRefused(r.Context(), reason)
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// summarizeRefused writes the rate-limited INFO line about refused
// credentials.
func (s *Server) summarizeRefused(ctx context.Context, reason string) {
	if ok, held := s.refused.allow(); ok {
		s.log.LogAttrs(ctx, slog.LevelInfo, "refusing requests without valid credentials (each is logged at debug)",
			slog.Int("refused", held+1), slog.String("interval", refusedLogEvery.String()), slog.String("last_reason", reason))
	}
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

// Request ids taken from the caller: 8 to 64 letters, digits, '-', '_'
// or '.', which covers UUIDs, ULIDs and hex trace-style ids.
const (
	minRequestID = 8
	maxRequestID = 64
)

func saneRequestID(id string) bool {
	if len(id) < minRequestID || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
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
