package templatesapi

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connLimiter holds at most max connections open. At the cap, a new
// connection closes the one that has been idle the longest (a keep-alive
// connection between requests, or one that has not finished sending its
// first request's header): idle connections cost a file descriptor each
// and serve nobody, so a crowd of them cannot lock out a caller who has
// something to ask. When every connection is busy with a request, the new
// one is closed at once instead. Idle means what http.Server reports
// through ConnState (connState must be its hook).
type connLimiter struct {
	net.Listener
	max int
	log *slog.Logger

	mu    sync.Mutex
	conns map[*limitedConn]struct{}

	evicted, refused atomic.Uint64
	warn             *logLimiter
}

// limitedConn is a connection the limiter counts.
type limitedConn struct {
	net.Conn
	l    *connLimiter
	once sync.Once
	// guarded by l.mu
	idle      bool
	idleSince time.Time
}

func newConnLimiter(ln net.Listener, max int, log *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, log: log, conns: map[*limitedConn]struct{}{}, warn: newLogLimiter(time.Minute)}
}

// Accept returns the next connection admitted under the cap.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, l: l, idle: true, idleSince: time.Now()}
		victim, ok := l.admit(lc)
		if victim != nil {
			l.evicted.Add(1)
			_ = victim.Conn.Close() // it was idle: nobody is waiting for an answer on it
			l.note("connection limit reached: closed the longest-idle connection")
		}
		if ok {
			return lc, nil
		}
		l.refused.Add(1)
		_ = c.Close() // refusing: every admitted connection is busy
		l.note("connection limit reached and every connection is busy: refused a new connection")
	}
}

// admit adds lc, making room by evicting the longest-idle connection when
// at the cap; ok is false when no connection could make room.
func (l *connLimiter) admit(lc *limitedConn) (victim *limitedConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		for c := range l.conns {
			if c.idle && (victim == nil || c.idleSince.Before(victim.idleSince)) {
				victim = c
			}
		}
		if victim == nil {
			return nil, false
		}
		delete(l.conns, victim)
	}
	l.conns[lc] = struct{}{}
	return victim, true
}

func (l *connLimiter) note(msg string) {
	if ok, held := l.warn.allow(); ok {
		l.log.Warn(msg, "max_conns", l.max, "evicted_total", l.evicted.Load(), "refused_total", l.refused.Load(), "held_back", held)
	}
}

// open is the number of connections held.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// connState is the http.Server's ConnState hook.
func (l *connLimiter) connState(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateNew, http.StateIdle:
		l.mu.Lock()
		lc.idle, lc.idleSince = true, time.Now()
		l.mu.Unlock()
	case http.StateActive:
		l.mu.Lock()
		lc.idle = false
		l.mu.Unlock()
	case http.StateHijacked, http.StateClosed:
		lc.release()
	}
}

func (c *limitedConn) release() {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
}

// Write writes p, or, when p is one of the plain-text answers net/http
// gives by itself, the same answer as JSON (jsonServerError).
func (c *limitedConn) Write(p []byte) (int, error) {
	if answer, ok := jsonServerError(p); ok {
		if _, err := c.Conn.Write(answer); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite half-closes a TCP connection, as net/http does so that a
// client reads an error answer before the connection goes.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close releases the connection's place.
func (c *limitedConn) Close() error {
	c.release()
	return c.Conn.Close()
}
