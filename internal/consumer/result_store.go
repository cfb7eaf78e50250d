package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// ErrResultExists reports that a result for the job id is already stored:
// the job ran before (a redelivery, a duplicate, or a concurrent run). It is
// not a failure: the first result wins and the job is done.
var ErrResultExists = errors.New("a result for this job is already stored")

// ResultStore writes result events to the RESULTS stream, at most one per
// job id.
type ResultStore struct {
	js     jetstream.JetStream
	stream string
	cfg    Config
}

// NewResultStore returns a store on cfg's RESULTS stream.
func NewResultStore(js jetstream.JetStream, cfg Config) *ResultStore {
	return &ResultStore{js: js, stream: cfg.ResultsStream, cfg: cfg}
}

// Store publishes r on its job's result subject with an expected last
// subject sequence of 0, so the broker stores it only when the subject holds
// no result yet. It returns ErrResultExists when one is already there.
// The trace context of headers (the job's) is copied onto the stored
// message, then replaced by ctx's when ctx holds a span; headers may be nil.
func (s *ResultStore) Store(ctx context.Context, r flowjob.Result, headers nats.Header) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding result of job %s: %w", r.JobID, err)
	}
	msg := nats.NewMsg(s.cfg.ResultSubject(r.JobID))
	msg.Data = data
	for _, k := range []string{flowjob.HeaderTraceParent, flowjob.HeaderTraceState} {
		if v := headers.Get(k); v != "" {
			msg.Header.Set(k, v)
		}
	}
	// The trace context of ctx (the result's send span) replaces the job's.
	telemetry.Inject(ctx, msg.Header)
	msg.Header.Set(flowjob.HeaderVersion, strconv.Itoa(flowjob.ContractVersion))
	_, err = s.js.PublishMsg(ctx, msg,
		jetstream.WithExpectStream(s.stream),
		jetstream.WithExpectLastSequencePerSubject(0),
	)
	if isWrongLastSequence(err) {
		return ErrResultExists
	}
	if err != nil {
		return fmt.Errorf("storing result of job %s on %s: %w", r.JobID, msg.Subject, err)
	}
	return nil
}

// Load returns the stored result of jobID, or an error wrapping
// jetstream.ErrMsgNotFound when there is none.
func (s *ResultStore) Load(ctx context.Context, jobID string) (flowjob.Result, error) {
	var r flowjob.Result
	stream, err := s.js.Stream(ctx, s.stream)
	if err != nil {
		return r, fmt.Errorf("loading result of job %s: %w", jobID, err)
	}
	raw, err := stream.GetLastMsgForSubject(ctx, s.cfg.ResultSubject(jobID))
	if err != nil {
		return r, fmt.Errorf("loading result of job %s: %w", jobID, err)
	}
	if err := json.Unmarshal(raw.Data, &r); err != nil {
		return r, fmt.Errorf("decoding stored result of job %s: %w", jobID, err)
	}
	return r, nil
}

// isWrongLastSequence reports the broker's "wrong last sequence" answer to
// an expected-last-sequence publish (10071, or 10164 on replicated streams).
func isWrongLastSequence(err error) bool {
	var jsErr jetstream.JetStreamError
	if !errors.As(err, &jsErr) || jsErr.APIError() == nil {
		return false
	}
	code := jsErr.APIError().ErrorCode
	return code == jetstream.JSErrCodeStreamWrongLastSequence || code == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}
