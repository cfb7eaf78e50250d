package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// delivery is one job message as the handler sees it.
type delivery struct {
	msg        jetstream.Msg
	attempt    int // 1 for the first delivery
	maxDeliver int
	streamSeq  uint64
	// published is when the broker stored the job (zero when unknown): the
	// start of the job's end-to-end latency.
	published time.Time
	// msgID is the job's Nats-Msg-Id header: the job id engines publish.
	msgID string
	// base is the executor's logger; log is base with the job id, once known.
	base, log *slog.Logger
	// span is the delivery's process span.
	span telemetry.Span
}

func newDelivery(msg jetstream.Msg, maxDeliver int, log *slog.Logger) *delivery {
	d := &delivery{msg: msg, attempt: 1, maxDeliver: maxDeliver, base: log, log: log}
	if meta, err := msg.Metadata(); err == nil {
		d.attempt = int(meta.NumDelivered)
		d.streamSeq = meta.Sequence.Stream
		d.published = meta.Timestamp
	}
	d.msgID = msg.Headers().Get(flowjob.HeaderMsgID)
	if d.msgID != "" {
		d.log = log.With(telemetry.LogKeyJobID, d.msgID)
	}
	return d
}

// identify names the delivery's job once decoded, when its id is not the
// message id the span and the logger already carry.
func (d *delivery) identify(job *flowjob.Job) {
	if job == nil || job.ID == "" || job.ID == d.msgID {
		return
	}
	d.log = d.base.With(telemetry.LogKeyJobID, job.ID)
	d.span.SetMessageID(job.ID)
}

// last reports whether the broker will not deliver the job again.
func (d *delivery) last() bool { return d.attempt >= d.maxDeliver }

// jobHandler turns one delivery into an outcome: decode, validate, run,
// decide, store the result, notify. It never acks: settle does.
type jobHandler struct {
	cfg     Config
	runner  sandbox.Runner
	policy  actions.Policy
	store   *ResultStore
	dlq     *DeadLetterer
	nc      *nats.Conn
	metrics *telemetry.Metrics // nil records nothing
	now     func() time.Time
}

// process handles d and recovers a panic on the job path, which it logs with
// the job id and stack and treats as a transient failure (bounded by
// MaxDeliver like any other). On the last delivery a transient failure
// becomes a failed result and a dead letter.
func (h *jobHandler) process(ctx context.Context, d *delivery) outcome {
	var job *flowjob.Job
	out := h.guard(ctx, d, func() outcome { return h.handle(ctx, d, &job) })
	if r, ok := out.(retryLater); ok && d.last() && ctx.Err() == nil {
		out = h.guard(ctx, d, func() outcome { return h.exhaust(ctx, d, job, r.cause) })
	}
	return out
}

func (h *jobHandler) guard(ctx context.Context, d *delivery, f func() outcome) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			d.log.ErrorContext(ctx, "recovered a panic while handling a job",
				"stream_seq", d.streamSeq, "attempt", d.attempt,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out = h.retry(d, fmt.Errorf("handling job: panic: %v", p))
		}
	}()
	return f()
}

func (h *jobHandler) handle(ctx context.Context, d *delivery, jobp **flowjob.Job) outcome {
	data := d.msg.Data()
	if len(data) > h.cfg.MaxJobBytes {
		return h.badInput(ctx, d, lenientJob(data), fmt.Errorf(
			"the job message is %d bytes, over the MAX_JOB_BYTES limit of %d: shorten the source or the variables",
			len(data), h.cfg.MaxJobBytes))
	}
	job, err := flowjob.Decode(data)
	if err != nil {
		if job == nil {
			job = lenientJob(data)
		}
		return h.badInput(ctx, d, job, fmt.Errorf("decoding job: %w", err))
	}
	*jobp = job
	d.identify(job)
	if job.Deadline != nil && !h.now().Before(*job.Deadline) {
		run := failedRun(flowjob.CodeDeadlineExceeded, fmt.Sprintf(
			"the job's deadline %s passed before it could run", job.Deadline.UTC().Format(time.RFC3339Nano)))
		return h.finish(ctx, d, h.policy.Decide(job, run, d.attempt))
	}
	run, out := h.run(ctx, d, job)
	if out != nil {
		return out
	}
	return h.finish(ctx, d, h.policy.Decide(job, run, d.attempt))
}

// run runs the job's script, rerunning it (with backoff, up to CrashRetries
// times) when the sandbox worker crashed. It returns an outcome instead of a
// result when the job must be handed back.
func (h *jobHandler) run(ctx context.Context, d *delivery, job *flowjob.Job) (sandbox.Result, outcome) {
	req := actions.Request(job, h.cfg.ScriptTimeout)
	b := backoff.WithContext(backoff.WithMaxRetries(shortBackoff(), uint64(h.cfg.CrashRetries)), ctx)
	for {
		res := h.runScript(ctx, req)
		if !res.OK() && ctx.Err() != nil {
			return res, h.interrupted()
		}
		if res.OK() || !res.Err.Retryable() {
			return res, nil
		}
		wait := b.NextBackOff()
		if wait == backoff.Stop {
			return res, h.retry(d, fmt.Errorf("running job: %w", res.Err))
		}
		d.log.WarnContext(ctx, "the sandbox crashed; running the job again", "attempt", d.attempt, "error", res.Err.Message, "wait", wait)
		if !sleep(ctx, wait) {
			return res, h.interrupted()
		}
	}
}

// runScript runs req once inside a sandbox span and records its duration.
func (h *jobHandler) runScript(ctx context.Context, req sandbox.Request) sandbox.Result {
	sctx, span := telemetry.StartSandbox(ctx)
	start := time.Now()
	res := h.runner.Run(sctx, req)
	took := res.Duration
	if took <= 0 {
		took = time.Since(start)
	}
	outcome, code := telemetry.OutcomeSucceeded, ""
	if res.Err != nil {
		outcome, code = telemetry.OutcomeFailed, string(res.Err.Code)
	}
	h.metrics.SandboxDuration(ctx, code, took)
	span.RecordOutcome(outcome, code, nil)
	span.End(nil)
	return res
}

// finish stores r, notifies the Reply-To inbox and reports the job done.
func (h *jobHandler) finish(ctx context.Context, d *delivery, r flowjob.Result) outcome {
	stored, err := h.storeAndNotify(ctx, d, r)
	if err != nil {
		return h.failure(ctx, d, err)
	}
	return stored
}

// badInput publishes a failed result when job names its ids, dead-letters
// the message and terminates it: bad input is never retried.
func (h *jobHandler) badInput(ctx context.Context, d *delivery, job *flowjob.Job, cause error) outcome {
	d.identify(job)
	d.log.WarnContext(ctx, "dead-lettering a bad job", "stream_seq", d.streamSeq, "reason", cause.Error())
	if job != nil && flowjob.ValidID(job.ID) {
		if r, ok := h.policy.InvalidJobResult(job, cause, d.attempt); ok {
			if _, err := h.storeAndNotify(ctx, d, r); err != nil {
				return h.failure(ctx, d, err)
			}
		}
	}
	return h.deadLetter(ctx, d, job, flowjob.CodeInvalidJob, cause.Error())
}

// exhaust ends a job whose last delivery failed for a transient reason: a
// failed result (DELIVERY_EXHAUSTED, with the policy's directive) and a dead
// letter.
func (h *jobHandler) exhaust(ctx context.Context, d *delivery, job *flowjob.Job, cause error) outcome {
	reason := fmt.Sprintf("delivery %d of %d failed: %v", d.attempt, d.maxDeliver, cause)
	d.log.ErrorContext(ctx, "a job ran out of deliveries", "stream_seq", d.streamSeq, "reason", reason)
	if job != nil && flowjob.ValidID(job.ID) {
		run := failedRun(flowjob.CodeDeliveryExhausted, fmt.Sprintf(
			"the job could not be run after %d attempts; last error: %v", d.attempt, cause))
		if _, err := h.storeAndNotify(ctx, d, h.policy.Decide(job, run, d.attempt)); err != nil {
			d.log.ErrorContext(ctx, "could not store the failed result of an exhausted job; it stays unacked in the stream",
				"stream", h.cfg.JobsStream, "stream_seq", d.streamSeq, "error", err)
			return h.failure(ctx, d, err)
		}
	}
	return h.deadLetter(ctx, d, job, flowjob.CodeDeliveryExhausted, reason)
}

func (h *jobHandler) deadLetter(ctx context.Context, d *delivery, job *flowjob.Job, code, reason string) outcome {
	dl := DeadLetter{
		Payload:    d.msg.Data(),
		Headers:    d.msg.Headers(),
		Subject:    d.msg.Subject(),
		StreamSeq:  d.streamSeq,
		Deliveries: uint64(d.attempt),
		JobID:      jobID(job),
		Code:       code,
		Reason:     reason,
	}
	sctx, span := telemetry.StartSend(ctx, h.cfg.DLQSubject(dl.JobID), dl.JobID)
	err := retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error { return h.dlq.Publish(sctx, dl) })
	span.End(err)
	if err != nil {
		return h.failure(ctx, d, err)
	}
	// The code is the reason's label: the reason text names one job.
	h.metrics.DeadLettered(ctx, code)
	return deadLettered{code: code, reason: reason}
}

// storeAndNotify stores r (retrying a broker that does not answer) and
// sends the stored result to the job's Reply-To inbox. When a result was
// already stored, the stored one is what the inbox gets. The publish is a
// send span whose context the result message carries, and a result stored
// now ends the job's end-to-end latency.
func (h *jobHandler) storeAndNotify(ctx context.Context, d *delivery, r flowjob.Result) (resultStored, error) {
	sctx, span := telemetry.StartSend(ctx, h.cfg.ResultSubject(r.JobID), r.JobID)
	err := retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error {
		err := h.store.Store(sctx, r, d.msg.Headers())
		if errors.Is(err, ErrResultExists) {
			return backoff.Permanent(err)
		}
		return err
	})
	out := resultStored{result: r}
	switch {
	case errors.Is(err, ErrResultExists):
		span.End(nil)
		out.duplicate = true
		first, lerr := h.store.Load(ctx, r.JobID)
		if lerr != nil {
			d.log.WarnContext(ctx, "a result was already stored but could not be loaded to notify Reply-To", "error", lerr)
			return out, nil
		}
		out.result = first
	case err != nil:
		span.End(err)
		return out, err
	default:
		span.End(nil)
		if !d.published.IsZero() {
			h.metrics.JobLatency(ctx, h.now().Sub(d.published))
		}
	}
	h.notify(sctx, d, out.result)
	return out, nil
}

// notify sends r to the job's Reply-To inbox, if it names one. It is a
// courtesy: the stored result is the record, so a failed send is logged.
// The message carries the trace context of ctx (the result's send span).
func (h *jobHandler) notify(ctx context.Context, d *delivery, r flowjob.Result) {
	inbox := d.msg.Headers().Get(flowjob.HeaderReplyTo)
	if inbox == "" {
		return
	}
	if !h.validInbox(inbox) {
		d.log.WarnContext(ctx, "ignoring a Reply-To that is not a plain inbox subject", "reply_to", inbox)
		return
	}
	data, err := json.Marshal(r)
	if err != nil {
		d.log.ErrorContext(ctx, "encoding a result for Reply-To", "error", err)
		return
	}
	msg := nats.NewMsg(inbox)
	msg.Data = data
	msg.Header.Set(flowjob.HeaderVersion, strconv.Itoa(flowjob.ContractVersion))
	telemetry.Inject(ctx, msg.Header)
	if err := h.nc.PublishMsg(msg); err != nil {
		d.log.WarnContext(ctx, "sending a result to Reply-To", "reply_to", inbox, "error", err)
	}
}

// validInbox refuses wildcards and the subjects of the streams and the
// broker's APIs: a Reply-To must never write a result where the store's
// first-writer-wins check does not run.
func (h *jobHandler) validInbox(s string) bool {
	if len(s) > 512 || strings.ContainsAny(s, "*> \t\r\n") || strings.HasPrefix(s, "$") {
		return false
	}
	if s == h.cfg.SubjectPrefix || strings.HasPrefix(s, h.cfg.SubjectPrefix+".") {
		return false
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return false
		}
	}
	return true
}

// failure is the outcome of an error on the way to settling: an interrupted
// job when the replica is stopping, a transient failure otherwise.
func (h *jobHandler) failure(ctx context.Context, d *delivery, err error) outcome {
	if ctx.Err() != nil {
		return h.interrupted()
	}
	return h.retry(d, err)
}

func (h *jobHandler) retry(d *delivery, cause error) retryLater {
	delay := h.cfg.RedeliveryDelay
	for i := 1; i < d.attempt && delay < h.cfg.MaxRedeliveryDelay; i++ {
		delay *= 2
	}
	return retryLater{cause: cause, delay: min(delay, h.cfg.MaxRedeliveryDelay)}
}

func (h *jobHandler) interrupted() interrupted {
	// Long enough for this replica's pending pull requests to expire, so the
	// job goes to a replica that is not stopping.
	return interrupted{delay: 2 * h.cfg.PullWait}
}

// failedRun is a sandbox result for a failure that is not the script's.
func failedRun(code, message string) sandbox.Result {
	return sandbox.Result{Err: &sandbox.Error{Code: sandbox.Code(code), Message: message}}
}

// lenientJob reads whatever ids a payload that failed strict decoding still
// carries, so a failed result can be addressed to its session. It returns
// nil when the payload is not a JSON object.
func lenientJob(data []byte) *flowjob.Job {
	var job flowjob.Job
	err := json.Unmarshal(data, &job)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return nil
	}
	return &job
}

func jobID(job *flowjob.Job) string {
	if job == nil {
		return ""
	}
	return job.ID
}

// retryPublish runs publish until it succeeds, returns a permanent error,
// ctx ends or maxElapsed passes, with exponential backoff between tries.
func retryPublish(ctx context.Context, maxElapsed time.Duration, publish func() error) error {
	b := shortBackoff()
	b.MaxElapsedTime = maxElapsed
	return backoff.Retry(publish, backoff.WithContext(b, ctx))
}

func shortBackoff() *backoff.ExponentialBackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = 2 * time.Second
	b.Multiplier = 2
	b.RandomizationFactor = 0.3
	b.MaxElapsedTime = 0
	return b
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
