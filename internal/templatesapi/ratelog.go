package templatesapi

import (
	"sync"
	"time"
)

// logLimiter lets one log line through per interval and counts the ones
// it holds back, so a flood (of refused requests, of failed fetches)
// cannot flood the logs.
type logLimiter struct {
	every time.Duration

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newLogLimiter(every time.Duration) *logLimiter { return &logLimiter{every: every} }

// allow tells whether a line may be written now and, when it may, how
// many were held back since the last one.
func (l *logLimiter) allow() (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.suppressed++
		return false, 0
	}
	n := l.suppressed
	l.suppressed, l.last = 0, now
	return true, n
}
