package telemetry

import (
	"context"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowclient"
)

var _ flowclient.PublishHook = ClientHook

// ClientHook is the flowclient.PublishHook engines and the CLI pass to
// flowclient.WithPublishHook: it starts the producer span "send <subject>"
// (a child of ctx's span), writes its traceparent into the job's headers so
// the executor's process span is its child, and ends the span when the
// broker answered, recording a failed publish.
func ClientHook(ctx context.Context, subject, jobID string, h nats.Header) (context.Context, func(error)) {
	ctx, span := StartSend(ctx, subject, jobID)
	Inject(ctx, h)
	return ctx, span.End
}
