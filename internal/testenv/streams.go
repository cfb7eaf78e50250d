package testenv

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// JetStream connects to the broker at url with opts and returns the
// connection, closed when the test ends, and its JetStream client.
func JetStream(t testing.TB, url string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(fmt.Errorf("connecting to %s: %w", url, err))
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// DeleteStreamsAtCleanup deletes the named JetStream streams of the broker
// at url when the test ends, so tests on the machine's shared NATS leave
// nothing behind. A broker that is already gone (an embedded server stopped
// first) takes its streams with it; a stream already deleted is fine; any
// other failure fails the test.
func DeleteStreamsAtCleanup(t testing.TB, url string, streams ...string) {
	t.Helper()
	t.Cleanup(func() {
		nc, err := nats.Connect(url)
		if err != nil {
			return // the broker is gone, and its streams with it
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Errorf("deleting streams: %v", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, s := range streams {
			if err := js.DeleteStream(ctx, s); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
				t.Errorf("deleting stream %s: %v", s, err)
			}
		}
	})
}
