package consumer

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// ErrResultExists reports that a result for the job id is already stored:
// the job ran before (a redelivery, a duplicate, or a concurrent run). It is
// not a failure: the first result wins and the job is done.
var ErrResultExists = errors.New("a result for this job is already stored")

// ErrNoResult reports that no result is stored for the job id.
var ErrNoResult = flowclient.ErrNoResult

// ResultStore writes result events to the RESULTS stream, at most one per
// job id, and reads them back.
type ResultStore struct {
	js       jetstream.JetStream
	stream   string
	subjects flowjob.Subjects
	results  *flowclient.Results
}

// NewResultStore returns a store on cfg's RESULTS stream.
func NewResultStore(js jetstream.JetStream, cfg Config) *ResultStore {
	return &ResultStore{js: js, stream: cfg.ResultsStream, subjects: cfg.Subjects(),
		results: flowclient.NewResults(js, cfg.ResultsStream, cfg.Subjects())}
}

// EncodedResult is a result event encoded once, for the store and the
// Reply-To inbox alike.
type EncodedResult struct {
	JobID string
	Data  []byte
	// Writer, when set, is stored with the result (flowclient.HeaderStoredWriter): a
	// token of the one store attempt, so that a publish whose answer was
	// lost but which was stored after all is known for its own when the
	// retry finds a result.
	Writer string
}

// StoredResult is a result read back from the store.
type StoredResult = flowclient.StoredResult

// Encode encodes r for Store.
func Encode(r flowjob.Result) (EncodedResult, error) {
	data, err := marshalResult(&r)
	if err != nil {
		return EncodedResult{}, fmt.Errorf("encoding result of job %s: %w", r.JobID, err)
	}
	return EncodedResult{JobID: r.JobID, Data: data}, nil
}

// Store publishes r on its job's result subject with an expected last
// subject sequence of 0, so the broker stores it only when the subject holds
// no result yet. It returns ErrResultExists when one is already there.
// The trace context of headers (the job's), when well formed, is copied
// onto the stored message, then replaced by ctx's when ctx holds a span;
// headers may be nil.
func (s *ResultStore) Store(ctx context.Context, r EncodedResult, headers nats.Header) error {
	msg := nats.NewMsg(s.subjects.Result(r.JobID))
	msg.Data = r.Data
	// The job's trace context as the propagator reads it: a malformed
	// traceparent is dropped, as on the Reply-To copy, not stored as sent.
	telemetry.Inject(telemetry.Extract(context.Background(), headers), msg.Header)
	// An inbox is kept only while it could be one (notify sends to none
	// longer): a job's Reply-To of tens of KiB would put the result's
	// headers past JetStream's 64 KiB, and the store would fail on every
	// attempt.
	if inbox := replyTo(headers); inbox != "" && len(inbox) <= maxInboxBytes {
		msg.Header.Set(flowclient.HeaderStoredReplyTo, inbox)
	}
	if r.Writer != "" {
		msg.Header.Set(flowclient.HeaderStoredWriter, r.Writer)
	}
	// The trace context of ctx (the result's send span) replaces the job's.
	telemetry.Inject(ctx, msg.Header)
	msg.Header.Set(flowjob.HeaderVersion, strconv.Itoa(flowjob.ContractVersion))
	_, err := s.js.PublishMsg(ctx, msg,
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

// Load returns the stored result of jobID, or ErrNoResult when there is
// none.
func (s *ResultStore) Load(ctx context.Context, jobID string) (StoredResult, error) {
	return s.results.Lookup(ctx, jobID)
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
