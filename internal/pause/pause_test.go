package pause

import (
	"context"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	if !For(context.Background(), time.Millisecond) {
		t.Error("a wait that passed reports false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if For(ctx, time.Hour) {
		t.Error("a wait cut by its context reports true")
	}
	if time.Since(start) > time.Second {
		t.Error("a cancelled wait did not return at once")
	}
	if For(ctx, 0) || !For(context.Background(), -time.Second) {
		t.Error("a wait of nothing must report whether ctx is alive")
	}
	if !Until(context.Background(), time.Now().Add(-time.Second)) {
		t.Error("waiting until a past instant reports false")
	}
}
