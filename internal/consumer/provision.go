package consumer

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Streams are the handles Provision returns.
type Streams struct {
	Jobs     jetstream.Stream
	Results  jetstream.Stream
	DLQ      jetstream.Stream
	Consumer jetstream.Consumer
}

// Provision creates the JOBS, RESULTS and DLQ streams and the shared durable
// pull consumer, or updates them to cfg when they exist. Every replica calls
// it at start; calling it again with the same cfg changes nothing.
func Provision(ctx context.Context, js jetstream.JetStream, cfg Config) (*Streams, error) {
	var s Streams
	var err error
	if s.Jobs, err = js.CreateOrUpdateStream(ctx, JobsStreamConfig(cfg)); err != nil {
		return nil, fmt.Errorf("provisioning stream %s: %w", cfg.JobsStream, err)
	}
	if s.Results, err = js.CreateOrUpdateStream(ctx, ResultsStreamConfig(cfg)); err != nil {
		return nil, fmt.Errorf("provisioning stream %s: %w", cfg.ResultsStream, err)
	}
	if s.DLQ, err = js.CreateOrUpdateStream(ctx, DLQStreamConfig(cfg)); err != nil {
		return nil, fmt.Errorf("provisioning stream %s: %w", cfg.DLQStream, err)
	}
	if s.Consumer, err = s.Jobs.CreateOrUpdateConsumer(ctx, ConsumerConfig(cfg)); err != nil {
		return nil, fmt.Errorf("provisioning consumer %s on stream %s: %w", cfg.Consumer, cfg.JobsStream, err)
	}
	return &s, nil
}

// JobsStreamConfig is the JOBS stream: a work queue (a job leaves the
// stream when acked), on disk, refusing new jobs when full, deduplicating
// publishes of the same job id within DuplicateWindow.
func JobsStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        cfg.JobsStream,
		Description: "FlowScript executeScript jobs, one message per job (Nats-Msg-Id = job id)",
		Subjects:    []string{cfg.JobsSubjects()},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardNew,
		MaxMsgs:     cfg.JobsMaxMsgs,
		MaxBytes:    cfg.JobsMaxBytes,
		Duplicates:  cfg.DuplicateWindow,
		Replicas:    cfg.Replicas,
	}
}

// ResultsStreamConfig is the RESULTS stream: one subject per job, one
// message per subject (the store publishes with an expected last subject
// sequence of 0, so the first result wins).
func ResultsStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              cfg.ResultsStream,
		Description:       "FlowScript result events, one per job id on <prefix>.results.<job id>",
		Subjects:          []string{cfg.ResultsPrefix() + ".>"},
		Retention:         jetstream.LimitsPolicy,
		Storage:           jetstream.FileStorage,
		Discard:           jetstream.DiscardOld,
		MaxAge:            cfg.ResultsMaxAge,
		MaxMsgsPerSubject: 1,
		Replicas:          cfg.Replicas,
	}
}

// DLQStreamConfig is the DLQ stream: jobs that were bad input or ran out of
// deliveries, with the reason in headers.
func DLQStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        cfg.DLQStream,
		Description: "FlowScript dead letters: the original job payload with the reason in Flowscript-Dlq-* headers",
		Subjects:    []string{cfg.SubjectPrefix + ".dlq.>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      cfg.DLQMaxAge,
		Replicas:    cfg.Replicas,
	}
}

// ConsumerConfig is the durable pull consumer every replica shares.
func ConsumerConfig(cfg Config) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       cfg.Consumer,
		Description:   "FlowScript executors (shared by all replicas)",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
		FilterSubject: cfg.JobsSubjects(),
		MaxAckPending: cfg.MaxAckPending,
		// The broker keeps this many pending pull requests: each idle slot of
		// each replica holds one.
		MaxWaiting: 4096,
	}
}
