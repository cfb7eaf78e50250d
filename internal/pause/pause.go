// Package pause waits for a while unless a context ends first: the one
// context-aware sleep of the code base. It must never hold a timer past
// its return.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends. It reports whether the whole wait passed
// (false: ctx ended first).
func For(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Until waits until t, or until ctx ends; see For.
func Until(ctx context.Context, t time.Time) bool { return For(ctx, time.Until(t)) }
