package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/internal/pause"
)

// Streams are the handles Provision returns.
type Streams struct {
	Jobs          jetstream.Stream
	Results       jetstream.Stream
	DLQ           jetstream.Stream
	Failures      jetstream.Stream // nil with NoFailureRecords
	Consumer      jetstream.Consumer
	Interruptions jetstream.KeyValue
	Journals      jetstream.KeyValue
}

// ProvisionMode says what Provision may change.
type ProvisionMode int

const (
	// ApplyConfig creates what is missing and updates what exists to cfg.
	// A replica provisions so once, when it starts: in a rollout the newest
	// replica's settings win, which is what the rollout is for.
	ApplyConfig ProvisionMode = iota + 1
	// CreateMissing only creates what is missing and leaves what exists as
	// it is. A running replica re-provisions so (after its pulls failed:
	// a stream or the consumer may have been deleted), so that replicas of
	// an older version still running during a rollout never revert the
	// newer settings back and forth.
	CreateMissing
)

// provisionCallTimeout bounds one JetStream API call of provisioning; a
// clustered broker in an election may not answer it, and the call is then
// retried.
const provisionCallTimeout = 5 * time.Second

// Provision creates the JOBS, RESULTS, DLQ and failures streams (not the
// last with NoFailureRecords), the interruptions and journals buckets and
// the shared durable pull consumer, and, with ApplyConfig, updates those
// that exist to cfg. It is idempotent and safe to run from
// many replicas at once: a stream or consumer another replica created
// meanwhile is used, not an error. It makes one pass; see
// ProvisionWithRetry.
func Provision(ctx context.Context, js jetstream.JetStream, cfg Config, mode ProvisionMode) (*Streams, error) {
	var s Streams
	var err error
	type stream struct {
		dst  *jetstream.Stream
		conf jetstream.StreamConfig
	}
	streams := []stream{
		{&s.Jobs, JobsStreamConfig(cfg)},
		{&s.Results, ResultsStreamConfig(cfg)},
		{&s.DLQ, DLQStreamConfig(cfg)},
	}
	if !cfg.NoFailureRecords {
		streams = append(streams, stream{&s.Failures, FailuresStreamConfig(cfg)})
	}
	for _, st := range streams {
		if *st.dst, err = provisionStream(ctx, js, st.conf, mode); err != nil {
			if conflicts(err) {
				return nil, fmt.Errorf("provisioning stream %s: %w: %s, which a replica never forces; "+
					"remove that stream if what it holds may go, or give this executor other streams (JOBS_STREAM, RESULTS_STREAM, DLQ_STREAM, SUBJECT_PREFIX)",
					st.conf.Name, err, conflictingStream(ctx, js, st.conf))
			}
			return nil, fmt.Errorf("provisioning stream %s: %w", st.conf.Name, err)
		}
	}
	if s.Interruptions, err = provisionBucket(ctx, js, InterruptionsBucketConfig(cfg), mode); err != nil {
		return nil, fmt.Errorf("provisioning key-value bucket %s: %w", cfg.InterruptionsBucket(), err)
	}
	if s.Journals, err = provisionBucket(ctx, js, JournalsBucketConfig(cfg), mode); err != nil {
		return nil, fmt.Errorf("provisioning key-value bucket %s: %w", cfg.JournalsBucket(), err)
	}
	if s.Consumer, err = provisionConsumer(ctx, s.Jobs, ConsumerConfig(cfg), mode); err != nil {
		return nil, fmt.Errorf("provisioning consumer %s on stream %s: %w", cfg.Consumer, cfg.JobsStream, err)
	}
	return &s, nil
}

// conflicts reports the broker's refusal of a stream's settings that no
// wait mends: a change it does not allow (retention, storage: 10052) or
// subjects another stream holds (10065).
func conflicts(err error) bool {
	var jsErr jetstream.JetStreamError
	if !errors.As(err, &jsErr) || jsErr.APIError() == nil {
		return false
	}
	switch jsErr.APIError().ErrorCode {
	case 10052, 10065:
		return true
	}
	return false
}

// conflictingStream names what refused want: the stream that holds one of
// its subjects (a create answers 10065 without naming it), or its own
// settings.
func conflictingStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig) string {
	for _, subject := range want.Subjects {
		cctx, cancel := context.WithTimeout(ctx, provisionCallTimeout)
		name, err := js.StreamNameBySubject(cctx, subject)
		cancel()
		if err == nil && name != want.Name {
			return fmt.Sprintf("stream %s already takes its subjects (%s)", name, subject)
		}
	}
	return "a stream on the broker conflicts with this one's settings"
}

// ProvisionWithRetry runs Provision until it succeeds or ctx ends, backing
// off between passes (a broker that is down, restarting or electing a
// leader is a state to wait out, not an error to exit on). A failed pass
// is logged when its error is new, and every tenth pass; onFail, when set,
// gets each pass's error (a readiness probe shows it: a stream that exists
// with settings no replica may change waits on the operator). The error is
// ctx's.
func ProvisionWithRetry(ctx context.Context, js jetstream.JetStream, cfg Config, mode ProvisionMode, log *slog.Logger, onFail func(error)) (*Streams, error) {
	b := shortBackoff()
	b.MaxInterval = 5 * time.Second
	last := ""
	for pass := 1; ; pass++ {
		s, err := Provision(ctx, js, cfg, mode)
		if err == nil {
			if pass > 1 {
				log.Info("provisioned the streams and the consumer", "passes", pass)
			}
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("provisioning: %w (last error: %w)", ctx.Err(), err)
		}
		wait := b.NextBackOff()
		if onFail != nil {
			onFail(err)
		}
		if msg := err.Error(); msg != last || pass%10 == 0 {
			last = msg
			log.Warn("provisioning the streams failed; retrying", "error", err, "pass", pass, "retry_in", wait.String())
		}
		if !pause.For(ctx, wait) {
			return nil, fmt.Errorf("provisioning: %w (last error: %w)", ctx.Err(), err)
		}
	}
}

// Provisioning creates first and looks up only when that fails: a create
// of a stream (or bucket, or consumer) that exists with these very settings
// is answered like a lookup, so replicas starting together on a cluster
// all get their answer at once. A lookup first would not do: on a cluster
// a stream or consumer another replica has just created answers no lookup
// until its leader is elected (nats-server 2.9 answers nothing at all and
// the call times out), which made replicas started together wait out call
// timeouts on every stream in turn.

func provisionStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, mode ProvisionMode) (jetstream.Stream, error) {
	cctx, cancel := context.WithTimeout(ctx, provisionCallTimeout)
	defer cancel()
	s, err := js.CreateStream(cctx, want)
	if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return s, err
	}
	// It exists with other settings: keep them, or apply ours.
	lctx, lcancel := context.WithTimeout(ctx, provisionCallTimeout)
	defer lcancel()
	if s, err = js.Stream(lctx, want.Name); err != nil {
		return nil, err
	}
	if mode == CreateMissing || sameStream(s.CachedInfo().Config, want) {
		return s, nil
	}
	return js.UpdateStream(lctx, want)
}

func provisionConsumer(ctx context.Context, stream jetstream.Stream, want jetstream.ConsumerConfig, mode ProvisionMode) (jetstream.Consumer, error) {
	if mode == ApplyConfig {
		cctx, cancel := context.WithTimeout(ctx, provisionCallTimeout)
		defer cancel()
		// A nats-server before 2.10 reads a create of a durable that
		// exists as an update: the settings are applied either way.
		c, err := stream.CreateConsumer(cctx, want)
		if !errors.Is(err, jetstream.ErrConsumerExists) {
			return c, err
		}
	}
	// CreateMissing looks up first: a create would update the consumer on a
	// nats-server before 2.10, which an older replica must never do.
	for {
		cctx, cancel := context.WithTimeout(ctx, provisionCallTimeout)
		c, err := stream.Consumer(cctx, want.Durable)
		switch {
		case errors.Is(err, jetstream.ErrConsumerNotFound):
			c, err = stream.CreateConsumer(cctx, want)
			cancel()
			if errors.Is(err, jetstream.ErrConsumerExists) {
				continue
			}
			return c, err
		case err != nil:
			cancel()
			return nil, err
		}
		defer cancel()
		if mode == CreateMissing || sameConsumer(c.CachedInfo().Config, want) {
			return c, nil
		}
		return stream.UpdateConsumer(cctx, want)
	}
}

func provisionBucket(ctx context.Context, js jetstream.JetStream, want jetstream.KeyValueConfig, mode ProvisionMode) (jetstream.KeyValue, error) {
	cctx, cancel := context.WithTimeout(ctx, provisionCallTimeout)
	defer cancel()
	kv, err := js.CreateKeyValue(cctx, want)
	if !errors.Is(err, jetstream.ErrBucketExists) && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return kv, err
	}
	lctx, lcancel := context.WithTimeout(ctx, provisionCallTimeout)
	defer lcancel()
	if kv, err = js.KeyValue(lctx, want.Bucket); err != nil || mode == CreateMissing {
		return kv, err
	}
	status, err := kv.Status(lctx)
	if err != nil {
		return nil, err
	}
	if st, ok := status.(*jetstream.KeyValueBucketStatus); ok && st.TTL() == want.TTL && st.StreamInfo().Config.Replicas == want.Replicas {
		return kv, nil
	}
	return js.UpdateKeyValue(lctx, want)
}

// sameStream reports whether the settings Provision owns are already what
// want says (the broker fills in the rest), so that a replica starting
// against streams as they should be sends no update.
func sameStream(have, want jetstream.StreamConfig) bool {
	return have.Description == want.Description && reflect.DeepEqual(have.Subjects, want.Subjects) &&
		have.Retention == want.Retention && have.Storage == want.Storage && have.Discard == want.Discard &&
		have.MaxMsgs == want.MaxMsgs && have.MaxBytes == want.MaxBytes && have.MaxAge == want.MaxAge &&
		have.MaxMsgsPerSubject == want.MaxMsgsPerSubject && have.Duplicates == want.Duplicates &&
		have.Replicas == want.Replicas
}

func sameConsumer(have, want jetstream.ConsumerConfig) bool {
	return have.Description == want.Description && have.AckWait == want.AckWait &&
		have.MaxDeliver == want.MaxDeliver && have.FilterSubject == want.FilterSubject &&
		have.MaxAckPending == want.MaxAckPending && have.MaxWaiting == want.MaxWaiting
}

// JobsStreamConfig is the JOBS stream: a work queue (a job leaves the
// stream when acked), on disk, refusing new jobs when full, deduplicating
// publishes of the same job id within DuplicateWindow.
func JobsStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        cfg.JobsStream,
		Description: "FlowScript executeScript jobs, one message per job (Nats-Msg-Id = job id)",
		Subjects:    []string{cfg.Subjects().JobsFilter()},
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
// sequence of 0, so the first result wins), bounded in age, bytes and
// messages (the oldest results go first).
func ResultsStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              cfg.ResultsStream,
		Description:       "FlowScript result events, one per job id on <prefix>.results.<job id>",
		Subjects:          []string{cfg.Subjects().ResultsFilter()},
		Retention:         jetstream.LimitsPolicy,
		Storage:           jetstream.FileStorage,
		Discard:           jetstream.DiscardOld,
		MaxAge:            cfg.ResultsMaxAge,
		MaxBytes:          cfg.ResultsMaxBytes,
		MaxMsgs:           cfg.ResultsMaxMsgs,
		MaxMsgsPerSubject: 1,
		Replicas:          cfg.Replicas,
	}
}

// DLQStreamConfig is the DLQ stream: jobs that were bad input or ran out of
// deliveries, with the reason in headers, deduplicated on the job's stream
// sequence for longer than AckWait, bounded like RESULTS.
func DLQStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        cfg.DLQStream,
		Description: "FlowScript dead letters: the original job payload with the reason in Flowscript-Dlq-* headers",
		Subjects:    []string{cfg.Subjects().DeadLettersFilter()},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      cfg.DLQMaxAge,
		MaxBytes:    cfg.DLQMaxBytes,
		MaxMsgs:     cfg.DLQMaxMsgs,
		Duplicates:  cfg.DLQDuplicateWindow(),
		Replicas:    cfg.Replicas,
	}
}

// FailuresStreamConfig is the failures stream: the record of each job whose
// script failed (failrecord.Record), one per job on
// <prefix>.failures.<job id>, kept for replay apart from the DLQ of bad
// input, bounded in age, bytes and messages (the oldest go first).
func FailuresStreamConfig(cfg Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              cfg.FailuresStream(),
		Description:       "FlowScript failure records: jobs whose script failed, without secrets, for flowscript replay",
		Subjects:          []string{cfg.Subjects().FailuresFilter()},
		Retention:         jetstream.LimitsPolicy,
		Storage:           jetstream.FileStorage,
		Discard:           jetstream.DiscardOld,
		MaxAge:            cfg.FailuresMaxAge,
		MaxBytes:          cfg.FailuresMaxBytes,
		MaxMsgs:           cfg.FailuresMaxMsgs,
		MaxMsgsPerSubject: 1,
		Duplicates:        cfg.FailuresDuplicateWindow(),
		Replicas:          cfg.Replicas,
	}
}

// InterruptionsBucketConfig is the bucket where interrupted deliveries are
// noted, by JOBS stream sequence, with why a job's last attempt could not
// store its result ("<sequence>.failure"). A note outlives any redelivery
// of its job; one that expires only makes an interruption count as an
// attempt, or the job's end give the generic reason.
func InterruptionsBucketConfig(cfg Config) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:      cfg.InterruptionsBucket(),
		Description: "FlowScript: deliveries handed back at a replica's shutdown, by JOBS stream sequence",
		TTL:         cfg.ResultsMaxAge,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	}
}

// JournalsBucketConfig is the bucket of suspended jobs' journals: an entry
// lives as long as a continuation may be resumed.
func JournalsBucketConfig(cfg Config) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:      cfg.JournalsBucket(),
		Description: "FlowScript: journals of suspended jobs (j.<job id>.<run>) and the claims on their continuations (c.<job id>)",
		TTL:         cfg.ContinuationTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	}
}

// ConsumerConfig is the durable pull consumer every replica shares. It
// redelivers without limit: the executor keeps the delivery budget
// (Config.MaxDeliver), so that no delivery, however it ends, leaves a job
// in JOBS that the broker will never deliver again.
func ConsumerConfig(cfg Config) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       cfg.Consumer,
		Description:   "FlowScript executors (shared by all replicas)",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    -1,
		FilterSubject: cfg.Subjects().JobsFilter(),
		MaxAckPending: cfg.MaxAckPending,
		// The broker keeps this many pending pull requests: each idle slot of
		// each replica holds one.
		MaxWaiting: 4096,
	}
}
