package flowclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPublishErrorSaysWhetherTheJobMayBeStored: each kind of failed
// publish, as nats.go returns it, is ErrNotAcknowledged exactly when the
// job may have been stored, and says what to do.
func TestPublishErrorSaysWhetherTheJobMayBeStored(t *testing.T) {
	apiErr := func(code jetstream.ErrorCode, desc string) error {
		return fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, ErrorCode: code, Description: desc})
	}
	for _, c := range []struct {
		name     string
		err      error
		mayStore bool
		says     string
	}{
		{"ack timeout", context.DeadlineExceeded, true, "publish it again with the same id"},
		{"nats timeout", nats.ErrTimeout, true, "DUPLICATE_WINDOW"},
		{"closed while awaited", nats.ErrConnectionClosed, true, "publish it again with the same id"},
		{"id still being stored", apiErr(10158, "duplicate message id is in process"), true, "still being stored; publish it again in a moment"},
		{"context ended before sending", &notSentError{context.Canceled}, false, "not sent"},
		{"draining", nats.ErrConnectionDraining, false, "not sent"},
		{"reconnect buffer full", nats.ErrReconnectBufExceeded, false, "not sent"},
		{"no stream", jetstream.ErrNoStreamResponse, false, "no JetStream stream takes this subject"},
		{"max payload", nats.ErrMaxPayload, false, "publishing it again cannot succeed"},
		{"stream full", apiErr(10077, "maximum messages exceeded"), false, "the JOBS stream is full"},
		{"message too large for the stream", apiErr(10054, "message size exceeds maximum allowed"), false, "the broker refused it; nothing is stored"},
	} {
		err := publishError("job-1", "flowscript.jobs.execute", 100, 1<<20, c.err)
		if got := errors.Is(err, ErrNotAcknowledged); got != c.mayStore {
			t.Errorf("%s: ErrNotAcknowledged %v, want %v: %v", c.name, got, c.mayStore, err)
		}
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "publishing job job-1 on flowscript.jobs.execute: ") {
			t.Errorf("%s: %v, want it to wrap %v and say %q", c.name, err, c.err, c.says)
		}
	}
}
