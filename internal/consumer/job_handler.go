package consumer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/pause"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/textcut"
)

// jobHandler turns one delivery into one outcome, top-down: one report
// (attempt), one verdict (actions.Policy.Decide), one commit (store the
// result, notify the Reply-To inbox, dead-letter). It never acks: the
// executor settles the outcome.
type jobHandler struct {
	cfg    Config
	runner sandbox.Runner
	policy actions.Policy
	hosts  HostProvider
	// signer and journals keep suspended jobs (DESIGN.md §10); signer nil:
	// approval is never granted.
	signer   *continuation.Signer
	journals *continuation.Journals
	store    *ResultStore
	dlq      *DeadLetterer
	failures failureRecorder // the failure records of failed scripts (failure_records.go)
	budget   *deliveryBudget
	nc       *nats.Conn
	metrics  *telemetry.Metrics // nil records nothing
	now      func() time.Time
	// writer makes the token of one store attempt (writerToken).
	writer func() string
}

// attempt is what one delivery came to before the policy decides.
type attempt struct {
	job    *flowjob.Job
	report actions.Report
	// opts tell the policy how far a bad job can be trusted.
	opts []actions.Option
	// found is the result an earlier delivery stored: the job is done.
	found *StoredResult
	// transient is a failure that is not the job's (the store was
	// unreachable, the replica is stopping): another delivery may succeed.
	transient error
}

// errStopping is the transient failure of a job the replica's shutdown cut
// short.
var errStopping = errors.New("the replica is stopping")

// process handles d: one report, one verdict, one commit. A panic while
// committing is logged with the job id and stack and hands the job back
// (see attempt for one before).
func (h *jobHandler) process(ctx context.Context, d *delivery) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			d.logger().ErrorContext(ctx, "recovered a panic while handling a job",
				"stream_seq", d.streamSeq, "delivery", d.attempt,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out = h.failure(ctx, d, "", fmt.Errorf("handling job: panic: %v", p))
		}
	}()
	tries := h.budget.tries(ctx, d)
	a := h.attempt(ctx, d, tries)
	d.leftSandbox() // the commit needs the broker, not the slot's worker
	switch {
	case a.found != nil:
		h.notifyRepeat(ctx, d, *a.found)
		return stored(a.found.Result, true)
	case a.transient != nil && ctx.Err() != nil:
		return h.interrupt(ctx, d)
	case a.transient != nil && tries < h.cfg.MaxDeliver:
		return h.retry(d, codeOf(a.transient), a.transient)
	case a.transient != nil:
		a.report = h.exhausted(ctx, d, tries, tries, a.transient)
	}
	v := h.policy.Decide(a.job, a.report, a.opts...)
	if size, limit := h.resultSize(v); size > limit {
		v = h.tooLargeForBroker(ctx, d, a, size, limit)
	}
	out = h.commit(ctx, d, v)
	if out.kind == kindRetry && tries == h.cfg.MaxDeliver {
		h.budget.noteFailure(ctx, d, out.cause) // for the delivery past the attempts
	}
	return out
}

// resultHeaderRoom is what a result message's headers may take of the
// broker's max_payload: the trace context carried on from the job (a
// tracestate of up to 32 members, about 16 KiB, and baggage up to 8 KiB,
// as OpenTelemetry's parsers keep them), the Reply-To (512 bytes at
// most), the writer, the version and the store's expectations.
const resultHeaderRoom = 32 << 10

// resultSize returns the size of v's result event once encoded, when it
// could be over limit, the most a result message's body may take: the
// broker's max_payload less resultHeaderRoom. The output cap bounds the
// script's serialized result, but JSON escaping can make it up to six
// times larger (each control character is \u00XX). A result
// that cannot be over limit, even escaped, is not encoded here.
func (h *jobHandler) resultSize(v actions.Verdict) (size, limit int) {
	if !v.Answer || h.nc == nil {
		return 0, 0
	}
	maxPayload := h.nc.MaxPayload() // 0 before the first connection
	if maxPayload <= 0 {
		return 0, 0
	}
	return ResultEventSize(&v.Result, maxPayload)
}

// DefaultMaxPayload is nats-server's default max_payload, 1 MiB.
const DefaultMaxPayload = 1 << 20

// ResultEventSize is the size of r encoded as a result event, and the
// most a broker message of maxPayload bytes carries beside the event's
// headers: the executor fails a result over it with OUTPUT_TOO_LARGE
// (OutputTooLargeMessage). size is 0 when r is certainly within limit.
func ResultEventSize(r *flowjob.Result, maxPayload int64) (size, limit int) {
	limit = int(maxPayload) - resultHeaderRoom
	if 6*rawResultBytes(r) < limit {
		return 0, limit
	}
	enc, err := Encode(*r)
	if err != nil {
		return 0, limit // storing it reports the error
	}
	return len(enc.Data), limit
}

// OutputTooLargeMessage is the error message of a result event of size
// bytes over limit, with the next step for its author; logs are the run's
// console lines.
func OutputTooLargeMessage(size, limit int, logs []flowjob.LogEntry) string {
	next := "return less data"
	if len(logs) > 0 { // they may be what tipped it over
		logged := 0
		for _, l := range logs {
			logged += len(l.Message)
		}
		next = fmt.Sprintf("return less data, or log less (its %d console lines hold %d bytes of it before escaping)", len(logs), logged)
	}
	return fmt.Sprintf("the result is %d bytes once encoded as a result event (JSON writes a quote or a backslash as 2 bytes and a control character as 6), "+
		"over the %d bytes a broker message can carry (max_payload): %s", size, limit, next)
}

// rawResultBytes bounds the bytes of r's text before JSON escaping: its
// strings, plus 8 KB for the ids, names and numbers around them.
func rawResultBytes(r *flowjob.Result) int {
	n := 8<<10 + len(r.Directive.Message) + len(r.Directive.Request) + len(r.Continuation)
	for k, v := range r.Variables {
		n += len(k) + len(v)
	}
	if r.Error != nil {
		n += len(r.Error.Message) + len(r.Error.Reason)
	}
	for _, l := range r.Logs {
		n += len(l.Message) + 64
	}
	return n
}

// tooLargeForBroker is the verdict of a job whose result event would not
// fit a broker message: the script's failure with OUTPUT_TOO_LARGE, under
// the job's error policy like any output over the cap. Storing it would
// fail the same way on every delivery until the job ran out of them.
func (h *jobHandler) tooLargeForBroker(ctx context.Context, d *delivery, a attempt, size, limit int) actions.Verdict {
	d.logger().WarnContext(ctx, "a result is too large for a broker message; failing the job with OUTPUT_TOO_LARGE",
		"stream_seq", d.streamSeq, "result_bytes", size, "limit_bytes", limit)
	r := a.report
	r.Output, r.Suspend = "", nil
	r.Err = &flowjob.Error{Code: flowjob.CodeOutputTooLarge, Message: OutputTooLargeMessage(size, limit, r.Logs)}
	v := h.policy.Decide(a.job, r, a.opts...)
	if size, _ := h.resultSize(v); size > limit {
		r.Logs, r.LogsTruncated = nil, true // the console lines alone are too many
		v = h.policy.Decide(a.job, r, a.opts...)
	}
	return v
}

// attempt reads the job and, unless it is bad input, already answered, out
// of attempts or past its deadline, runs it. tries is this delivery's
// attempt number (deliveries interrupted at shutdown left out). A panic on
// the way is logged with the job id and stack and is a transient failure.
func (h *jobHandler) attempt(ctx context.Context, d *delivery, tries int) (a attempt) {
	var job *flowjob.Job
	defer func() {
		if p := recover(); p != nil {
			d.logger().ErrorContext(ctx, "recovered a panic while handling a job",
				"stream_seq", d.streamSeq, "attempt", tries,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			a = attempt{job: job, transient: fmt.Errorf("handling job: panic: %v", p)}
		}
	}()
	data := d.msg.Data()
	job, err := flowjob.Decode(data)
	if len(data) > h.cfg.MaxJobBytes {
		// Never run, but decoded all the same (it is within the contract's
		// flowjob.MaxJobBytes, or Decode salvages its ids): the action's
		// error policy still decides the directive as far as its fields are
		// valid, as for any bad job (a continue job continues).
		cause := fmt.Errorf("the job message is %d bytes, over the MAX_JOB_BYTES limit of %d: shorten the source or the variables",
			len(data), h.cfg.MaxJobBytes)
		if err != nil {
			cause = fmt.Errorf("%w; %w", cause, err) // the fields Decode refused stay unused
		}
		return h.badInput(d, job, tries, cause)
	}
	if err != nil {
		return h.badInput(d, job, tries, err)
	}
	d.identify(job)
	if d.attempt > 1 || h.cfg.LooksUpEveryDelivery() || mayAct(job) {
		// A redelivery: an earlier delivery may have stored the result and
		// lost its ack; on a cluster, a first delivery may be a finished job
		// too (see ResultLookup); a job that may act on the world may be
		// published again after the duplicate window (an engine retrying a
		// resume, as it should, with the same id). Answer from the store
		// instead of running again.
		r, err := h.store.Load(ctx, job.ID)
		switch {
		case err == nil:
			return attempt{job: job, found: &r}
		case !errors.Is(err, ErrNoResult):
			return attempt{job: job, transient: err}
		}
	}
	switch {
	case tries > h.cfg.MaxDeliver:
		// The last attempt left no result: its replica died, or it could
		// not store its result (it noted why).
		cause := errors.New("the last attempt ended without a stored result: its replica stopped, or the result could not be stored (see that replica's log)")
		if why := h.budget.lastFailure(ctx, d); why != "" {
			cause = fmt.Errorf("the last attempt could not store its result: %s", why)
		}
		return attempt{job: job, report: h.exhausted(ctx, d, tries, tries-1, cause)}
	case job.Deadline != nil && !h.now().Before(*job.Deadline):
		return attempt{job: job, report: deadlinePassed(job, tries, "before it could run")}
	}
	return h.run(ctx, d, job, tries)
}

// mayAct reports whether a job may act on the world when it runs: it asks
// for host functions (api, kv, approval), or it resumes a continuation. Its
// first delivery looks its result up too, so that running it again (a host
// call's side effect, a continuation claimed by this very job) never
// follows a publish of the same job after the duplicate window: one round
// trip, paid only by jobs that make host calls anyway.
func mayAct(job *flowjob.Job) bool {
	return len(job.Capabilities) > 0 || job.Resume != nil
}

// badInput is the report of a job that broke the contract: never run,
// answered under its id (or its message id) and dead-lettered.
func (h *jobHandler) badInput(d *delivery, job *flowjob.Job, tries int, cause error) attempt {
	d.identify(job)
	fallback := d.msgID
	var ve *flowjob.ValidationError
	if errors.As(cause, &ve) && ve.Has("id") {
		// An id the body repeats with one value is the job's own, and
		// comes before the message id.
		if id := soleID(d.msg.Data()); flowjob.ValidID(id) {
			fallback = id
		}
	}
	return attempt{
		job:    job,
		report: actions.Failed(flowjob.CodeInvalidJob, cause.Error(), tries),
		opts:   []actions.Option{actions.BadInput(cause), actions.FallbackID(fallback)},
	}
}

// soleID is the id of a job body whose top-level "id" members all hold one
// string (a body that repeats "id" with the same value): that id is not in
// question, so the job is answered under it. It is "" when the body is not
// a JSON object, names no id, or names two different ones (which one the
// engine waits on cannot be known).
func soleID(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	id := ""
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		if t != "id" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil || s == "" || id != "" && s != id {
			return ""
		}
		id = s
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return ""
	}
	return id
}

// exhausted is the report of a job out of attempts after made of them
// (more than MAX_DELIVER when deliveries were taken by another consumer,
// or made before MAX_DELIVER was lowered).
func (h *jobHandler) exhausted(ctx context.Context, d *delivery, tries, made int, cause error) actions.Report {
	d.logger().ErrorContext(ctx, "a job ran out of attempts", "stream_seq", d.streamSeq,
		"attempt", tries, "max_deliver", h.cfg.MaxDeliver, "deliveries", d.attempt, "error", cause.Error())
	attempts := fmt.Sprintf("%d attempts", made)
	if made == 1 {
		attempts = "1 attempt"
	}
	return actions.Failed(flowjob.CodeDeliveryExhausted, fmt.Sprintf(
		"the job got no stored result in %s (MAX_DELIVER is %d); last error: %v", attempts, h.cfg.MaxDeliver, cause), tries)
}

// run runs the job's script. A worker crash is the platform's: the script
// runs again (with backoff, up to CrashRetries times); a job that still
// crashes its worker is failed with SANDBOX_CRASH and dead-lettered, never
// run until its attempts run out.
func (h *jobHandler) run(ctx context.Context, d *delivery, job *flowjob.Job, tries int) attempt {
	req := actions.Request(job, h.cfg.ScriptTimeout)
	if h.hosts != nil {
		req.Capabilities, req.Host = h.hosts.HostFor(job)
	}
	if h.signer == nil && slices.Contains(req.Capabilities, flowjob.CapabilityApproval) {
		// Without a key a suspended job could never resume.
		req.Capabilities = slices.DeleteFunc(slices.Clone(req.Capabilities), func(c string) bool { return c == flowjob.CapabilityApproval })
	}
	if job.Resume != nil {
		journal, err := h.resumable(ctx, job, inputsSum(req), req.Capabilities)
		if ce := continuation.AsError(err); ce != nil {
			return attempt{job: job, report: actions.Failed(ce.Code, ce.Message, tries)}
		} else if err != nil {
			return attempt{job: job, transient: err}
		}
		req.Journal, req.Resolution = journal, job.Resume.Resolution
	}
	b := backoff.WithContext(backoff.WithMaxRetries(shortBackoff(), uint64(h.cfg.CrashRetries)), ctx)
	ctx = sandbox.WithJobID(ctx, job.ID) // the runner's logs about the run name the job
	limit := req.Timeout
	for crashes := 0; ; crashes++ {
		// A deadline closer than the time limit shortens it: after it the
		// engine no longer wants the job run, nor its result.
		byDeadline := false
		if job.Deadline != nil {
			left := job.Deadline.Sub(h.now())
			if left <= 0 {
				return attempt{job: job, report: deadlinePassed(job, tries, "before it could run again after its sandbox worker crashed")}
			}
			req.Timeout, byDeadline = min(limit, left), left < limit
		}
		res := h.runScript(ctx, req)
		switch {
		case !res.OK() && ctx.Err() != nil:
			return attempt{job: job, transient: errStopping}
		case byDeadline && res.Err != nil && res.Err.Code == sandbox.CodeTimeout:
			r := actions.Ran(res, tries)
			r.Err = &flowjob.Error{Code: flowjob.CodeDeadlineExceeded, Message: fmt.Sprintf(
				"the job's deadline %s passed while its script ran, %s after it started: the engine no longer wants its result",
				job.Deadline.UTC().Format(time.RFC3339Nano), req.Timeout.Round(time.Millisecond))}
			return attempt{job: job, report: r}
		case res.Suspended != nil:
			return h.suspend(ctx, job, req, res, tries)
		case res.OK() || !res.Err.Retryable():
			return attempt{job: job, report: actions.Ran(res, tries)}
		}
		wait := b.NextBackOff()
		if wait == backoff.Stop {
			d.logger().ErrorContext(ctx, "the job crashed its sandbox worker every time it ran; failing it",
				"runs", crashes+1, "error", res.Err.Message)
			r := actions.Ran(res, tries)
			r.Err.Message = crashedEveryRun(r.Err.Message, crashes+1)
			return attempt{job: job, report: r}
		}
		d.logger().WarnContext(ctx, "the sandbox crashed; running the job again", "error", res.Err.Message, "wait", wait.String())
		if !pause.For(ctx, wait) {
			return attempt{job: job, transient: errStopping}
		}
	}
}

// deadlinePassed is the report of a job whose deadline passed when (before
// it could run, or before it could run again).
func deadlinePassed(job *flowjob.Job, tries int, when string) actions.Report {
	return actions.Failed(flowjob.CodeDeadlineExceeded, fmt.Sprintf(
		"the job's deadline %s passed %s", job.Deadline.UTC().Format(time.RFC3339Nano), when), tries)
}

// crashedEveryRun is the message of a job failed because its worker ended
// on each of its runs: the worker's "retry the script" no longer holds.
func crashedEveryRun(msg string, runs int) string {
	for _, tail := range []string{": retry the script", "; retry the script"} {
		msg = strings.TrimSuffix(msg, tail)
	}
	return fmt.Sprintf("%s, on each of the job's %d runs: it is not run again (the executor's log has each worker's end)", msg, runs)
}

// inputsSum is continuation.InputsSum of a run's inputs.
func inputsSum(req sandbox.Request) string {
	names, values := make([]string, len(req.Inputs)), make([]string, len(req.Inputs))
	for i, in := range req.Inputs {
		names[i], values[i] = in.Name, in.Value
	}
	return continuation.InputsSum(names, values)
}

// resumable checks a resume job's continuation — its signature and
// expiry, that the job is the suspended one's step with its source — and
// claims it for the job, returning the journal to replay. A continuation
// that cannot be used is a *continuation.Error; any other error is the
// bucket's, transient.
//
// What would fail the resumed run whatever the script does — approval not
// granted, other grants than the suspended run's, a resolution nested
// deeper than JSON.parse reads — is refused after the token is checked and
// before the continuation is claimed, so that it can still be used once
// the job is mended.
func (h *jobHandler) resumable(ctx context.Context, job *flowjob.Job, inputs string, granted []string) (json.RawMessage, error) {
	if h.signer == nil {
		return nil, &continuation.Error{Code: flowjob.CodeInvalidContinuation,
			Message: "this executor cannot resume jobs: CONTINUATION_KEY is not set on it (set the same key on every replica)"}
	}
	claims, err := h.signer.Verify(job.Resume.Token, h.now())
	if err != nil {
		return nil, err
	}
	if claims.JobID == job.ID {
		return nil, &continuation.Error{Code: flowjob.CodeInvalidContinuation,
			Message: "a resume job needs an id of its own, not the suspended job's " + job.ID}
	}
	if err := claims.Check(job, inputs); err != nil {
		return nil, err
	}
	if err := claims.CheckGrants(granted); err != nil {
		return nil, err
	}
	switch {
	case !slices.Contains(granted, flowjob.CapabilityApproval):
		return nil, &continuation.Error{Code: flowjob.CodeCapabilityDenied,
			Message: "a resume job must be granted approval (its capabilities, and the policy for its tenant): the continuation was not used; resume again once it is granted"}
	case flowjob.JSONNesting(job.Resume.Resolution) > sandbox.MaxJSONNesting:
		return nil, &continuation.Error{Code: flowjob.CodeInvalidJob, Message: fmt.Sprintf(
			"resume.resolution nests arrays and objects more than %d levels deep: the continuation was not used; resume again with a flatter resolution", sandbox.MaxJSONNesting)}
	}
	var journal []byte
	err = retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error {
		var err error
		if journal, err = h.journals.Load(ctx, claims); continuation.AsError(err) != nil {
			return backoff.Permanent(err)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	err = retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error {
		if err := h.journals.Claim(ctx, claims, job.ID); continuation.AsError(err) != nil {
			return backoff.Permanent(err)
		} else {
			return err
		}
	})
	return journal, err
}

// suspend keeps the journal of a run that asked for approval and signs
// its continuation: the report of a suspended job. A journal that cannot
// be stored is a transient failure (the job runs again).
func (h *jobHandler) suspend(ctx context.Context, job *flowjob.Job, req sandbox.Request, res sandbox.Result, tries int) attempt {
	if h.signer == nil { // approval is not granted without a key: a bug
		return attempt{job: job, transient: errors.New("a run suspended on an executor without CONTINUATION_KEY")}
	}
	var key string
	err := retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error {
		var err error
		key, err = h.journals.Save(ctx, job.ID, res.Suspended.Journal)
		return err
	})
	if err != nil {
		return attempt{job: job, transient: err}
	}
	claims := continuation.ClaimsFor(job, inputsSum(req), key, h.now().Add(h.cfg.ContinuationTTL))
	claims.Grants = slices.Sorted(slices.Values(req.Capabilities))
	token := h.signer.Sign(claims)
	r := actions.Ran(res, tries)
	r.Suspend = &actions.Suspend{Request: res.Suspended.Request, Continuation: token}
	return attempt{job: job, report: r}
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

// commit carries out the verdict: the result stored (first writer wins)
// and sent to the Reply-To inbox, then the dead letter when the verdict
// asks for one. It is the only place a result is stored.
func (h *jobHandler) commit(ctx context.Context, d *delivery, v actions.Verdict) outcome {
	repeat := false
	if v.Answer {
		var err error
		if repeat, err = h.storeResult(ctx, d, v.Result); err != nil {
			return h.failure(ctx, d, "", err)
		}
		h.recordFailure(ctx, d, v, repeat)
	} else if replyTo(d.msg.Headers()) != "" {
		// A job whose id cannot name a result subject (a '.', a space, too
		// long) has no stored result, but an engine that gave an inbox
		// still hears why instead of waiting out its own timeout: the
		// INVALID_JOB result, jobId "", to the inbox alone.
		if enc, err := Encode(v.Result); err == nil {
			h.notify(ctx, d, enc.Data)
		}
	}
	if !v.DeadLetter {
		return stored(v.Result, repeat)
	}
	code, reason := v.Result.Error.Code, v.Result.Error.Message
	d.logger().WarnContext(ctx, "dead-lettering a job", "stream_seq", d.streamSeq, "code", code, "reason", reason)
	if err := h.deadLetter(ctx, d, v.Result.JobID, code, reason); err != nil {
		return h.failure(ctx, d, "", err)
	}
	return outcome{kind: kindDeadLettered, code: code, cause: errors.New(reason), repeat: repeat}
}

// storeResult encodes r once, stores it (retrying a broker that does not
// answer) and sends it to the job's Reply-To inbox. A result an earlier run
// stored first wins: repeat is true, and the stored result goes to the
// inbox unless that run told the same one (notifyRepeat). A store whose
// answer was lost but which stored the result after all (a leader change,
// a broker restart) finds its own result when it retries: that is this
// delivery's result, not a repeat. The publish is a send span whose
// context the result message carries.
func (h *jobHandler) storeResult(ctx context.Context, d *delivery, r flowjob.Result) (repeat bool, err error) {
	enc, err := Encode(r)
	if err != nil {
		return false, err
	}
	enc.Writer = h.writer()
	sctx, span := telemetry.StartSend(ctx, h.cfg.Subjects().Result(r.JobID), r.JobID)
	err = retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error {
		err := h.store.Store(sctx, enc, d.msg.Headers())
		if errors.Is(err, ErrResultExists) {
			return backoff.Permanent(err)
		}
		return err
	})
	if errors.Is(err, ErrResultExists) {
		first, lerr := h.store.Load(ctx, r.JobID)
		switch {
		case lerr != nil:
			d.logger().WarnContext(ctx, "a result was already stored but could not be read back", "error", lerr)
		case first.Writer == enc.Writer:
			err = nil // ours: an earlier try was stored after all
		default:
			span.End(nil)
			d.logger().InfoContext(ctx, "the job was handled although its result was already stored; the stored result stands",
				"stream_seq", d.streamSeq, "delivery", d.attempt)
			h.notifyRepeat(sctx, d, first)
			return true, nil
		}
	}
	switch {
	case errors.Is(err, ErrResultExists):
		span.End(nil)
		return true, nil
	case err != nil:
		span.End(err)
		return false, err
	}
	span.End(nil)
	if !d.published.IsZero() {
		h.metrics.JobLatency(ctx, h.now().Sub(d.published))
	}
	h.notify(sctx, d, enc.Data)
	return false, nil
}

// writerToken is a token of one store attempt (EncodedResult.Writer),
// unique across replicas: a random prefix drawn once per process, then a
// count (a random read per job cost about a microsecond of its path).
func writerToken() string {
	var b [24]byte
	n := copy(b[:], writerPrefix)
	return string(strconv.AppendUint(b[:n], writerCount.Add(1), 16))
}

var (
	writerPrefix = func() string {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand never fails on supported systems
		return hex.EncodeToString(b[:]) + "-"
	}()
	writerCount atomic.Uint64
)

func (h *jobHandler) deadLetter(ctx context.Context, d *delivery, jobID, code, reason string) error {
	dl := DeadLetter{
		Payload:    d.msg.Data(),
		Headers:    d.msg.Headers(),
		Subject:    d.msg.Subject(),
		StreamSeq:  d.streamSeq,
		Stored:     d.published,
		Deliveries: uint64(d.attempt),
		JobID:      jobID,
		Code:       code,
		Reason:     reason,
	}
	sctx, span := telemetry.StartSend(ctx, h.cfg.Subjects().DeadLetter(jobID), jobID)
	err := retryPublish(ctx, h.cfg.StoreRetryMaxElapsed, func() error { return h.dlq.Publish(sctx, dl) })
	span.End(err)
	if err == nil {
		// The code is the reason's label: the reason text names one job.
		h.metrics.DeadLettered(ctx, code)
	}
	return err
}

// notify sends a stored result to the job's Reply-To inbox, if it names
// one. It is a courtesy: the stored result is the record, so a failed send
// is logged. The message carries the trace context of ctx (the result's
// send span).
func (h *jobHandler) notify(ctx context.Context, d *delivery, data []byte) {
	inbox := replyTo(d.msg.Headers())
	if inbox == "" {
		return
	}
	if !h.validInbox(inbox) {
		shown, _ := textcut.Cut(inbox, 256) // a Reply-To may be tens of KiB
		d.logger().WarnContext(ctx, "ignoring a Reply-To that is not a plain inbox subject", "reply_to", shown)
		return
	}
	msg := nats.NewMsg(inbox)
	msg.Data = data
	msg.Header.Set(flowjob.HeaderVersion, strconv.Itoa(flowjob.ContractVersion))
	telemetry.Inject(ctx, msg.Header)
	if err := h.nc.PublishMsg(msg); err != nil {
		d.logger().WarnContext(ctx, "sending a result to Reply-To", "reply_to", inbox, "error", err)
	}
}

// notifyRepeat sends a result an earlier delivery stored to this
// delivery's Reply-To inbox, unless the earlier one already told that
// inbox: an engine that re-publishes a job with a new inbox gets its
// answer, and an inbox is never told twice.
func (h *jobHandler) notifyRepeat(ctx context.Context, d *delivery, first StoredResult) {
	if inbox := replyTo(d.msg.Headers()); inbox != "" && inbox != first.ReplyTo {
		h.notify(ctx, d, first.Data)
	}
}

// replyTo is the job's Reply-To header. NATS header names are
// case-sensitive; an engine that spells it reply-to or REPLY-TO (as HTTP
// lets it) is still answered.
func replyTo(h nats.Header) string {
	if v := h.Get(flowjob.HeaderReplyTo); v != "" {
		return v
	}
	for k, vs := range h {
		if len(vs) > 0 && strings.EqualFold(k, flowjob.HeaderReplyTo) {
			return vs[0]
		}
	}
	return ""
}

// maxInboxBytes is the longest Reply-To subject a result is sent to.
const maxInboxBytes = 512

// validInbox refuses wildcards and the subjects of the streams and the
// broker's APIs: a Reply-To must never write a result where the store's
// first-writer-wins check does not run.
func (h *jobHandler) validInbox(s string) bool {
	if len(s) > maxInboxBytes || strings.ContainsAny(s, "*> \t\r\n") || strings.HasPrefix(s, "$") {
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

// failure is the outcome of an error on the way to a verdict or while
// committing it: an interrupted job when the replica is stopping, a
// transient failure otherwise. A transient failure on the last attempt is
// handed back too: the next delivery is past MaxDeliver and ends the job
// (failed result and dead letter), so no failure ever loses it.
func (h *jobHandler) failure(ctx context.Context, d *delivery, code string, err error) outcome {
	if ctx.Err() != nil {
		return h.interrupt(ctx, d)
	}
	return h.retry(d, code, err)
}

func (h *jobHandler) retry(d *delivery, code string, cause error) outcome {
	delay := h.cfg.RedeliveryDelay
	for i := 1; i < d.attempt && delay < h.cfg.MaxRedeliveryDelay; i++ {
		delay *= 2
	}
	return outcome{kind: kindRetry, code: code, cause: cause, delay: min(delay, h.cfg.MaxRedeliveryDelay)}
}

// interrupt hands a job back at shutdown: the interruption is noted so it
// does not count as an attempt, and the redelivery waits long enough for
// this replica's pending pull requests to expire, so another replica (or
// this one after a restart) runs it.
func (h *jobHandler) interrupt(ctx context.Context, d *delivery) outcome {
	h.budget.noteInterruption(ctx, d)
	return outcome{kind: kindInterrupted, delay: 2 * h.cfg.PullWait}
}

// codeOf is the sandbox code in err's chain, "" when none.
func codeOf(err error) string {
	if se := sandbox.AsError(err); se != nil {
		return string(se.Code)
	}
	return ""
}

// retryPublish runs publish until it succeeds, returns a permanent error,
// ctx ends or maxElapsed passes (counted from the first failure), with
// exponential backoff between tries. The first try runs before any backoff
// is made: it is the only one almost every job needs.
func retryPublish(ctx context.Context, maxElapsed time.Duration, publish func() error) error {
	return retryAfterFirst(ctx, maxElapsed, publish(), publish)
}

// retryAfterFirst goes on from a first try that returned err, as
// backoff.Retry would have: nil is done, a permanent error is returned
// unwrapped, anything else is retried under a shortBackoff.
func retryAfterFirst(ctx context.Context, maxElapsed time.Duration, err error, try func() error) error {
	if err == nil {
		return nil
	}
	b := shortBackoff()
	b.MaxElapsedTime = maxElapsed
	first := true
	return backoff.Retry(func() error {
		if first { // the answer of the try already made
			first = false
			return err
		}
		return try()
	}, backoff.WithContext(b, ctx))
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
