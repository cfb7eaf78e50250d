package flowclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
)

// ErrNoResult reports that no result is stored for a job yet.
var ErrNoResult = errors.New("no result is stored for this job yet")

// ErrIDReused reports a job whose id another job (another session, flow or
// block) already used: the result stored under the id is not this job's.
// Give every job its own id (a UUID).
var ErrIDReused = errors.New("the job id was already used by another job")

// ErrInvalidJobID reports a job id no job can have (flowjob.ValidID): it
// could only name a subject pattern, never one job's result.
var ErrInvalidJobID = errors.New("not a job id: 1 to 128 letters A-Z a-z, digits, '-' and '_'")

// ErrNotAcknowledged reports a publish the broker did not acknowledge
// after the job was sent: the acknowledgement timed out, ctx ended or the
// connection was lost while it was awaited, or the broker was still
// storing an earlier publish of the same id. The job may or may not be
// stored. Publishing it again with the same id is safe: within the JOBS
// stream's duplicate window (DUPLICATE_WINDOW, 5 minutes by default) it is
// stored once, and Run, given the same job, returns its one result.
// Publish errors without it (an invalid job, nothing sent, no stream, a
// full stream, a job over max_payload, any other refusal the broker
// answered with) mean this publish stored nothing.
var ErrNotAcknowledged = errors.New("the broker did not acknowledge the job: it may or may not be stored")

// HeaderStoredReplyTo is the header of a stored result that names the
// Reply-To inbox of the delivery that stored it (the executor tells an
// inbox once).
const HeaderStoredReplyTo = "Flowscript-Reply-To"

// HeaderStoredWriter is the header of a stored result that carries the
// token of the executor's store attempt that wrote it: a delivery whose
// store answer was lost recognises its own write.
const HeaderStoredWriter = "Flowscript-Writer"

// HeaderInjector adds headers to a job message before it is published: the
// hook for trace context (an OpenTelemetry propagator's Inject over a
// carrier of h writes traceparent and tracestate). It must only add headers.
type HeaderInjector func(ctx context.Context, h nats.Header)

// PublishHook wraps the publish of one job: it is called with the job's
// subject, id and headers before the publish, may add headers (trace
// context) and return a context for the publish, and its done is called
// with the publish's error (nil on success) once the broker answered. It
// is how an engine starts a producer span around the publish without this
// package importing a tracing library. done may be nil.
type PublishHook func(ctx context.Context, subject, jobID string, h nats.Header) (context.Context, func(err error))

// Client publishes jobs and awaits their results. It is safe for concurrent
// use. Create it with NewClient.
type Client struct {
	nc            *nats.Conn
	js            jetstream.JetStream
	subjects      flowjob.Subjects
	resultsStream string
	inject        HeaderInjector
	hook          PublishHook
	pollFirst     time.Duration
	pollMax       time.Duration

	results *Results
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithSubjectPrefix sets the prefix of the deployment's subjects, the
// executors' SUBJECT_PREFIX (default flowjob.DefaultSubjectPrefix): jobs go
// to <prefix>.jobs.execute, the result of job X is on <prefix>.results.X.
func WithSubjectPrefix(prefix string) ClientOption {
	return func(c *Client) { c.subjects = flowjob.Subjects{Prefix: prefix} }
}

// WithResultsStream sets the name of the RESULTS stream (default
// flowjob.DefaultResultsStream).
func WithResultsStream(name string) ClientOption {
	return func(c *Client) { c.resultsStream = name }
}

// WithHeaderInjector sets the hook that adds trace headers to every job the
// client publishes.
func WithHeaderInjector(inject HeaderInjector) ClientOption {
	return func(c *Client) { c.inject = inject }
}

// WithPublishHook sets the hook around every job publish (see
// PublishHook). With WithHeaderInjector as well, the injector runs after
// the hook, with the hook's context.
func WithPublishHook(hook PublishHook) ClientOption {
	return func(c *Client) { c.hook = hook }
}

// WithResultPolling sets how often Run and Await look the result up in the
// RESULTS stream: first after first, then doubling up to max. Defaults:
// 500ms and 5s. Run looks sooner when the job was already published (its
// Reply-To inbox will not be told).
func WithResultPolling(first, max time.Duration) ClientOption {
	return func(c *Client) { c.pollFirst, c.pollMax = first, max }
}

// NewClient returns a client over nc.
func NewClient(nc *nats.Conn, opts ...ClientOption) (*Client, error) {
	if nc == nil {
		return nil, errors.New("creating flowclient client: the NATS connection is nil")
	}
	c := &Client{
		nc:            nc,
		resultsStream: flowjob.DefaultResultsStream,
		pollFirst:     500 * time.Millisecond,
		pollMax:       5 * time.Second,
	}
	for _, opt := range opts {
		opt(c)
	}
	if p := c.subjects.Prefix; p != "" && !flowjob.ValidSubjectPrefix(p) {
		return nil, fmt.Errorf("creating flowclient client: subject prefix must be dot-separated tokens without wildcards or spaces, as the executors' SUBJECT_PREFIX, got %q", p)
	}
	if !flowjob.ValidStreamName(c.resultsStream) {
		return nil, fmt.Errorf("creating flowclient client: results stream name must be 1 to 64 letters, digits, '-' or '_', as the executors' RESULTS_STREAM, got %q", c.resultsStream)
	}
	if c.pollFirst <= 0 || c.pollMax < c.pollFirst {
		return nil, fmt.Errorf("creating flowclient client: result polling needs 0 < first <= max, got %s and %s", c.pollFirst, c.pollMax)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("creating flowclient client: %w", err)
	}
	c.js = js
	c.results = NewResults(js, c.resultsStream, c.subjects)
	return c, nil
}

// Published is what the broker said about a published job.
type Published struct {
	// Sequence is the job's sequence in the JOBS stream.
	Sequence uint64
	// Duplicate is true when a job with the same id was already published
	// within the stream's duplicate window: this publish was dropped.
	Duplicate bool
}

// Publish validates job and publishes it, with Nats-Msg-Id = job id (so a
// retried publish is stored once) and, when replyTo is not "", a Reply-To
// header naming the inbox the executor also sends the result to.
func (c *Client) Publish(ctx context.Context, job *flowjob.Job, replyTo string) (Published, error) {
	if err := job.Validate(); err != nil {
		return Published{}, fmt.Errorf("validating job: %w", err)
	}
	data, err := flowjob.Marshal(job)
	if err != nil {
		return Published{}, fmt.Errorf("encoding job %s: %w", job.ID, err)
	}
	if err := flowjob.CheckSize(data); err != nil {
		return Published{}, fmt.Errorf("validating job %s: %w", job.ID, err)
	}
	subject := c.subjects.Jobs()
	msg := nats.NewMsg(subject)
	msg.Data = data
	var done func(error)
	if c.hook != nil {
		ctx, done = c.hook(ctx, subject, job.ID, msg.Header)
	}
	if c.inject != nil {
		c.inject(ctx, msg.Header)
	}
	msg.Header.Set(flowjob.HeaderMsgID, job.ID)
	msg.Header.Set(flowjob.HeaderVersion, strconv.Itoa(flowjob.ContractVersion))
	if replyTo != "" {
		msg.Header.Set(flowjob.HeaderReplyTo, replyTo)
	}
	// Nothing is sent past an ended context or on a closed connection.
	var ack *jetstream.PubAck
	err = ctx.Err()
	if err == nil && c.nc.IsClosed() {
		err = nats.ErrConnectionClosed
	}
	if err != nil {
		err = &notSentError{err}
	} else {
		ack, err = c.send(ctx, msg)
	}
	if done != nil {
		done(err)
	}
	if err != nil {
		return Published{}, publishError(job.ID, subject, len(data), c.nc.MaxPayload(), err)
	}
	return Published{Sequence: ack.Sequence, Duplicate: ack.Duplicate}, nil
}

// publishError says what err, a failed publish of a job of size bytes,
// means for the job: nothing stored, or ErrNotAcknowledged (it may be).
func publishError(jobID, subject string, size int, maxPayload int64, err error) error {
	var unsent *notSentError
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse):
		return fmt.Errorf("publishing job %s on %s: no JetStream stream takes this subject "+
			"(an executor creates the JOBS stream when it starts: start one, or check that this client's "+
			"subject prefix is the executors' SUBJECT_PREFIX): %w", jobID, subject, err)
	case errors.Is(err, nats.ErrMaxPayload):
		return fmt.Errorf("publishing job %s on %s: the job is %d bytes and, with its headers, over the %d bytes a broker message can carry (max_payload): "+
			"move large data out of its variables; publishing it again cannot succeed: %w", jobID, subject, size, maxPayload, err)
	case apiErrorCode(err) == jsErrStreamFull:
		return fmt.Errorf("publishing job %s on %s: the JOBS stream is full (JOBS_MAX_MSGS or JOBS_MAX_BYTES on the executors): "+
			"the executors are behind or stopped; retry later, add executors, or raise the limit: %w", jobID, subject, err)
	case apiErrorCode(err) == jsErrMsgIDInProcess:
		// An earlier publish of this id is still being stored (a replicated
		// stream between proposing it and applying it).
		return fmt.Errorf("publishing job %s on %s: %w: a publish with this id is still being stored; "+
			"publish it again in a moment: %w", jobID, subject, ErrNotAcknowledged, err)
	case errors.As(err, &unsent), errors.Is(err, nats.ErrConnectionDraining), errors.Is(err, nats.ErrReconnectBufExceeded),
		errors.Is(err, nats.ErrHeadersNotSupported), errors.Is(err, nats.ErrBadSubject):
		return fmt.Errorf("publishing job %s on %s: not sent: %w", jobID, subject, err)
	case apiErrorCode(err) != 0:
		return fmt.Errorf("publishing job %s on %s: the broker refused it; nothing is stored: %w", jobID, subject, err)
	}
	return fmt.Errorf("publishing job %s on %s: %w; publish it again with the same id "+
		"(within the JOBS stream's duplicate window, DUPLICATE_WINDOW, it is stored once), or await its result: %w", jobID, subject, ErrNotAcknowledged, err)
}

// The publish is retried while no stream answers, as nats.go does.
const (
	noStreamRetries   = jetstream.DefaultPubRetryAttempts
	noStreamRetryWait = jetstream.DefaultPubRetryWait
)

// send publishes msg and, while no stream answers (a stream's leader being
// elected), sends it again up to noStreamRetries times, as nats.go's own
// retry does; unlike it, a context that ends between two attempts leaves
// the answer "no stream" (nothing was stored), not the context's error.
func (c *Client) send(ctx context.Context, msg *nats.Msg) (*jetstream.PubAck, error) {
	ack, err := c.js.PublishMsg(ctx, msg, jetstream.WithRetryAttempts(0))
	for range noStreamRetries {
		if !errors.Is(err, jetstream.ErrNoStreamResponse) {
			break
		}
		wait := time.NewTimer(noStreamRetryWait)
		select {
		case <-ctx.Done():
		case <-wait.C:
		}
		wait.Stop()
		if ctx.Err() != nil {
			return nil, err
		}
		ack, err = c.js.PublishMsg(ctx, msg, jetstream.WithRetryAttempts(0))
	}
	return ack, err
}

// JetStream API error codes the client tells apart.
const (
	jsErrStreamFull     = 10077 // maximum messages or bytes exceeded (discard new)
	jsErrMsgIDInProcess = 10158 // duplicate message id is in process
)

// apiErrorCode is the code of the JetStream API error the broker answered
// the publish with, 0 when it did not answer with one.
func apiErrorCode(err error) jetstream.ErrorCode {
	var jsErr jetstream.JetStreamError
	if errors.As(err, &jsErr) && jsErr.APIError() != nil {
		return jsErr.APIError().ErrorCode
	}
	return 0
}

// notSentError is a publish given up before anything was sent.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// Run publishes job and waits until its result is stored or ctx ends. The
// result comes from the job's Reply-To inbox first; the RESULTS stream is
// looked up as a fallback (the job was already published, the executor
// that stored the result died before telling the inbox, the connection
// dropped), so Run returns the stored result in every case. A result that
// comes before the broker's acknowledgement of the publish is returned at
// once, even if that acknowledgement is lost or late. A result
// stored under job.ID for another session, flow or block (the id was
// another job's) is not returned: the error is ErrIDReused. A publish the
// broker did not acknowledge is ErrNotAcknowledged: the job may be stored,
// and Run with the same job again is safe.
func (c *Client) Run(ctx context.Context, job *flowjob.Job) (*flowjob.Result, error) {
	if job == nil {
		return nil, errors.New("running job: the job is nil")
	}
	inbox := c.nc.NewInbox()
	replies := make(chan *nats.Msg, 4)
	sub, err := c.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		return nil, fmt.Errorf("subscribing to the Reply-To inbox of job %s: %w", job.ID, err)
	}
	defer sub.Unsubscribe() //nolint:errcheck // the subscription dies with the connection anyway

	// The result can come before the broker's acknowledgement, or without
	// it (an acknowledgement lost in a reconnection, or later than the
	// publish's timeout): the job was stored and ran, so its result is the
	// answer. The publish then ends on its own, by its timeout or ctx.
	type publishOutcome struct {
		pub Published
		err error
	}
	published := make(chan publishOutcome, 1)
	go func() {
		pub, err := c.Publish(ctx, job, inbox)
		published <- publishOutcome{pub, err}
	}()
	var out publishOutcome
	for waiting := true; waiting; {
		select {
		case out = <-published:
			waiting = false
		case msg := <-replies:
			if r := resultFor(msg, job.ID); r != nil {
				return ownResult(job, r)
			}
		}
	}
	if out.err != nil {
		return nil, out.err
	}
	first := c.pollFirst
	if out.pub.Duplicate {
		first = min(first, 100*time.Millisecond)
	}
	res, err := c.await(ctx, job.ID, replies, first)
	if err != nil {
		return nil, err
	}
	return ownResult(job, res)
}

// ownResult is res, unless it is another job's result stored under job's
// id: ErrIDReused. A result names each of the session, flow and block its
// job had usable (an INVALID_JOB result may lack some): each it names must
// be job's.
func ownResult(job *flowjob.Job, res *flowjob.Result) (*flowjob.Result, error) {
	differs := func(stored, own string) bool { return stored != "" && stored != own }
	if differs(res.SessionID, job.SessionID) || differs(res.FlowID, job.FlowID) || differs(res.BlockID, job.BlockID) {
		return nil, fmt.Errorf("running job %s: %w: the result stored under it is for session %q, flow %q, block %q",
			job.ID, ErrIDReused, res.SessionID, res.FlowID, res.BlockID)
	}
	return res, nil
}

// resultFor decodes a reply: the result of jobID, or nil.
func resultFor(msg *nats.Msg, jobID string) *flowjob.Result {
	var r flowjob.Result
	if err := json.Unmarshal(msg.Data, &r); err != nil || r.JobID != jobID {
		return nil
	}
	return &r
}

// Resume publishes the resume job of suspended — a job whose result was
// suspended (DESIGN.md §10) — under resumeID, with the result's
// continuation and resolution (encoded as JSON: what approval.request
// returns), and waits for its result like Run. A continuation resumes
// once: use the same resumeID to retry, never a new one.
func (c *Client) Resume(ctx context.Context, suspended *flowjob.Job, resumeID, continuation string, resolution any) (*flowjob.Result, error) {
	if suspended == nil {
		return nil, errors.New("resuming: the suspended job is nil")
	}
	data, err := flowjob.Marshal(resolution)
	if err != nil {
		return nil, fmt.Errorf("resuming job %s: encoding the resolution: %w", suspended.ID, err)
	}
	return c.Run(ctx, suspended.ResumeWith(resumeID, continuation, data))
}

// Await waits until the result of jobID is stored or ctx ends, looking it
// up in the RESULTS stream with backoff. A connection closed for good ends
// it at the next lookup with an error wrapping nats.ErrConnectionClosed
// (Run's wait too): the job may have run, so look its result up on a new
// connection before publishing it again.
func (c *Client) Await(ctx context.Context, jobID string) (*flowjob.Result, error) {
	return c.await(ctx, jobID, nil, 0)
}

// Result returns the stored result of jobID, or ErrNoResult.
func (c *Client) Result(ctx context.Context, jobID string) (*flowjob.Result, error) {
	r, err := c.results.Lookup(ctx, jobID)
	if err != nil {
		return nil, err
	}
	return &r.Result, nil
}

// StoredResult is a result event as the RESULTS stream holds it.
type StoredResult struct {
	flowjob.Result
	// Data is the result as stored, ready to send on.
	Data []byte
	// ReplyTo is the inbox the delivery that stored it was to tell ("" for
	// none).
	ReplyTo string
	// Writer is the token of the store attempt that wrote it ("" for
	// none).
	Writer string
}

// Results looks results up in a deployment's RESULTS stream: the one
// look-up of engines (Client.Result) and of executors (answering a
// redelivered job). It is safe for concurrent use.
type Results struct {
	js       jetstream.JetStream
	name     string
	subjects flowjob.Subjects

	mu     sync.Mutex
	stream jetstream.Stream // opened on the first Lookup
}

// NewResults returns a look-up of the RESULTS stream name of the
// deployment whose subjects are subjects.
func NewResults(js jetstream.JetStream, name string, subjects flowjob.Subjects) *Results {
	return &Results{js: js, name: name, subjects: subjects}
}

// Lookup returns the stored result of jobID, or ErrNoResult when there is
// none. An id no job can have is ErrInvalidJobID: "*" or ">" would name
// every job's result.
func (r *Results) Lookup(ctx context.Context, jobID string) (StoredResult, error) {
	var res StoredResult
	if !flowjob.ValidID(jobID) {
		return res, fmt.Errorf("looking up the result of job %q: %w", jobID, ErrInvalidJobID)
	}
	stream, err := r.open(ctx)
	if err != nil {
		return res, err
	}
	raw, err := stream.GetLastMsgForSubject(ctx, r.subjects.Result(jobID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return res, ErrNoResult
	}
	if err != nil {
		return res, fmt.Errorf("looking up the result of job %s: %w", jobID, err)
	}
	if err := json.Unmarshal(raw.Data, &res.Result); err != nil {
		return res, fmt.Errorf("decoding the stored result of job %s: %w", jobID, err)
	}
	if res.JobID != jobID {
		return StoredResult{}, fmt.Errorf("the result stored for job %s names job %q: the RESULTS stream holds a message no executor wrote", jobID, res.JobID)
	}
	res.Data, res.ReplyTo, res.Writer = raw.Data, raw.Header.Get(HeaderStoredReplyTo), raw.Header.Get(HeaderStoredWriter)
	return res, nil
}

func (r *Results) open(ctx context.Context) (jetstream.Stream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stream != nil {
		return r.stream, nil
	}
	s, err := r.js.Stream(ctx, r.name)
	if err != nil {
		return nil, fmt.Errorf("opening results stream %s: %w", r.name, err)
	}
	r.stream = s
	return s, nil
}

// await takes the first of: a result for jobID on replies, or one found in
// the stream by a lookup at first (0: at once), then after each doubling
// interval up to pollMax.
func (c *Client) await(ctx context.Context, jobID string, replies <-chan *nats.Msg, first time.Duration) (*flowjob.Result, error) {
	if !flowjob.ValidID(jobID) {
		return nil, fmt.Errorf("awaiting the result of job %q: %w", jobID, ErrInvalidJobID)
	}
	wait := first
	var lastErr error
	for {
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			if lastErr != nil {
				return nil, fmt.Errorf("awaiting the result of job %s: %w (last lookup: %w)", jobID, ctx.Err(), lastErr)
			}
			return nil, fmt.Errorf("awaiting the result of job %s: %w", jobID, ctx.Err())
		case msg := <-replies:
			timer.Stop()
			if r := resultFor(msg, jobID); r != nil {
				return r, nil
			}
			continue // not this job's result: keep waiting
		case <-timer.C:
		}
		r, err := c.Result(ctx, jobID)
		if err == nil {
			return r, nil
		}
		if errors.Is(err, nats.ErrConnectionClosed) {
			// No lookup can succeed now: say so instead of waiting out ctx.
			return nil, fmt.Errorf("awaiting the result of job %s: the NATS connection is closed: the job may have run; look its result up with Result on a new connection before publishing it again: %w", jobID, err)
		}
		if !errors.Is(err, ErrNoResult) {
			lastErr = err
		}
		if wait == 0 {
			wait = c.pollFirst
		} else {
			wait = min(2*wait, c.pollMax)
		}
	}
}
