package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/natsurl"
)

// Defaults of the broker flags.
const defaultNATSURL = "nats://127.0.0.1:4222"

// brokerFlags are the flags of the commands that talk to NATS. The
// defaults come from the executor's own variables, so a shell set up for
// an executor reaches it.
type brokerFlags struct {
	url           string
	creds         string
	subjectPrefix string
	resultsStream string
}

func (b *brokerFlags) register(fs *flag.FlagSet, env Env) {
	fs.StringVar(&b.url, "nats", envOr(env, "NATS_URL", defaultNATSURL), "")
	fs.StringVar(&b.creds, "creds", env.Getenv("NATS_CREDS"), "")
	fs.StringVar(&b.subjectPrefix, "subject-prefix", envOr(env, "SUBJECT_PREFIX", consumer.DefaultSubjectPrefix), "")
	fs.StringVar(&b.resultsStream, "results-stream", envOr(env, "RESULTS_STREAM", flowjob.DefaultResultsStream), "")
}

// check reports the first broker flag a broker would refuse.
func (b brokerFlags) check() error {
	if _, err := natsurl.Parse(b.url); err != nil {
		return fmt.Errorf("--nats must be a URL or a comma-separated list of them, such as nats://127.0.0.1:4222: %w", err)
	}
	if !flowjob.ValidSubjectPrefix(b.subjectPrefix) {
		return fmt.Errorf("--subject-prefix must be dot-separated tokens without wildcards or spaces, got %q", b.subjectPrefix)
	}
	if !flowjob.ValidStreamName(b.resultsStream) {
		return fmt.Errorf("--results-stream must be a name of letters, digits, '-' or '_', got %q", b.resultsStream)
	}
	return nil
}

// names are the executor's subjects and streams for these flags.
func (b brokerFlags) names() consumer.Config {
	return consumer.Config{SubjectPrefix: b.subjectPrefix, ResultsStream: b.resultsStream}.WithDefaults()
}

// connect opens a connection for one command, bounded by ctx's deadline
// (at most 10s).
func (b brokerFlags) connect(ctx context.Context, command string) (*nats.Conn, error) {
	wait := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		wait = max(min(time.Until(d), wait), 10*time.Millisecond)
	}
	opts := []nats.Option{nats.Name("flowscript " + command), nats.Timeout(wait)}
	if b.creds != "" {
		opts = append(opts, nats.UserCredentials(b.creds))
	}
	urls, err := natsurl.Parse(b.url)
	if err != nil { // check ran first
		return nil, fmt.Errorf("--nats: %w", err)
	}
	nc, err := nats.Connect(natsurl.Join(urls), opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w: is NATS running there? Set --nats or NATS_URL", natsurl.Redact(b.url), err)
	}
	return nc, nil
}

// client returns a flowclient client for the flags' subjects and streams.
func (b brokerFlags) client(nc *nats.Conn, opts ...flowclient.ClientOption) (*flowclient.Client, error) {
	names := b.names()
	return flowclient.NewClient(nc, append([]flowclient.ClientOption{
		flowclient.WithSubjectPrefix(names.SubjectPrefix),
		flowclient.WithResultsStream(names.ResultsStream),
		flowclient.WithResultPolling(250*time.Millisecond, 2*time.Second),
	}, opts...)...)
}

// checkJobsStream fails when no stream stores the jobs the client
// publishes: then no executor ever ran on this broker with these names, and
// a publish would only time out.
func (b brokerFlags) checkJobsStream(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("opening JetStream: %w", err)
	}
	subject := b.names().Subjects().Jobs()
	_, err = js.StreamNameBySubject(ctx, subject)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return fmt.Errorf("no stream stores jobs published on %s at %s: start an executor on that NATS (it creates the streams), "+
			"or set --subject-prefix to the executor's SUBJECT_PREFIX", subject, natsurl.Redact(b.url))
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("JetStream is not enabled on the NATS at %s: run nats-server with -js", natsurl.Redact(b.url))
	}
	return fmt.Errorf("looking up the stream of %s at %s: %w", subject, natsurl.Redact(b.url), err)
}

func envOr(env Env, name, fallback string) string {
	if v := strings.TrimSpace(env.Getenv(name)); v != "" {
		return v
	}
	return fallback
}
