package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// HeaderFailureCode is the error code of a failure record's job, so that
// a reader can filter records without decoding them.
const HeaderFailureCode = "Flowscript-Failure-Code"

// Bounds of the failure records' asynchronous publishes: at most
// failureRecordMaxPending unacknowledged at once per replica; a record
// that finds them all taken waits at most failureRecordStall and is then
// dropped (counted and logged); an ack not back within
// failureRecordAckTimeout counts as a failure.
const (
	failureRecordMaxPending = 256
	failureRecordStall      = 10 * time.Millisecond
	failureRecordAckTimeout = 10 * time.Second
	// failureRecordHeadroom is left under the broker's payload limit for
	// the record's headers.
	failureRecordHeadroom = 1 << 10
)

// failureRecorder keeps the failure record (failrecord.Record) of each job
// whose script failed in the failures stream (Config.FailuresStream), once
// the job's result is stored. It is best effort and never in the result's
// way: the record is published asynchronously, after the result, and a
// record that cannot be kept is logged and counted
// (flowscript_failure_records_total{outcome!="stored"}), never retried
// and never a reason to redeliver the job. Its zero value is ready: the
// JetStream context of the publishes is made on first use.
type failureRecorder struct {
	once sync.Once
	js   jetstream.JetStream
	err  error
}

// publisher returns the recorder's JetStream context, made once with the
// bounds above and callbacks that count and log each record's outcome.
func (f *failureRecorder) publisher(nc *nats.Conn, metrics *telemetry.Metrics, log *slog.Logger) (jetstream.JetStream, error) {
	f.once.Do(func() {
		f.js, f.err = jetstream.New(nc,
			jetstream.WithPublishAsyncMaxPending(failureRecordMaxPending),
			jetstream.WithPublishAsyncTimeout(failureRecordAckTimeout),
			jetstream.WithPublishAsyncAckHandler(func(_ jetstream.JetStream, _ *nats.Msg, _ *jetstream.PubAck) {
				metrics.FailureRecord(context.Background(), "stored")
			}),
			jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, msg *nats.Msg, err error) {
				metrics.FailureRecord(context.Background(), "failed")
				log.Warn("a failure record was not stored; the job's result was", "subject", msg.Subject, "error", err.Error())
			}))
	})
	return f.js, f.err
}

// recordFailure keeps the failure record of the job of d when v, whose
// result this delivery has just stored (repeat false), is a failure of the
// script itself (failrecord.ScriptFailure): not bad input, not a crash
// (both dead-lettered), not a passed deadline; never with NoFailureRecords.
func (h *jobHandler) recordFailure(ctx context.Context, d *delivery, v actions.Verdict, repeat bool) {
	r := v.Result
	if h.cfg.NoFailureRecords || repeat || !v.Answer || v.DeadLetter || r.Status != flowjob.StatusFailed || r.Error == nil || !failrecord.ScriptFailure(r.Error.Code) {
		return
	}
	job, err := flowjob.Decode(d.msg.Data())
	if err != nil || job.ID != r.JobID { // a script runs only for a valid job: not reached
		return
	}
	rec, err := failrecord.New(job, r, scriptTimeout(job, h.cfg.ScriptTimeout))
	var data []byte
	if err == nil {
		data, err = rec.Encode()
	}
	if err != nil {
		h.metrics.FailureRecord(ctx, "failed")
		d.logger().WarnContext(ctx, "a failure record could not be made; the job's result is stored", "error", err.Error())
		return
	}
	if limit := h.nc.MaxPayload() - failureRecordHeadroom; int64(len(data)) > limit {
		h.metrics.FailureRecord(ctx, "too_large")
		d.logger().WarnContext(ctx, "a failure record is over the broker's payload limit and is not kept; the job's result is stored",
			"bytes", len(data), "limit", limit)
		return
	}
	js, err := h.failures.publisher(h.nc, h.metrics, d.base)
	if err == nil {
		msg := nats.NewMsg(h.cfg.Subjects().Failure(job.ID))
		msg.Header.Set(HeaderFailureCode, r.Error.Code)
		telemetry.Inject(ctx, msg.Header)
		msg.Data = data
		_, err = js.PublishMsgAsync(msg, jetstream.WithMsgID(job.ID),
			jetstream.WithExpectStream(h.cfg.FailuresStream()), jetstream.WithStallWait(failureRecordStall))
	}
	if err != nil {
		h.metrics.FailureRecord(ctx, "failed")
		d.logger().WarnContext(ctx, "a failure record was not stored; the job's result is", "error", fmt.Errorf("publishing to %s: %w", h.cfg.FailuresStream(), err).Error())
	}
}

// scriptTimeout is the time limit a job's run had: the executor's, or the
// job's shorter timeoutMs (as actions.Request sets it).
func scriptTimeout(job *flowjob.Job, limit time.Duration) time.Duration {
	if job.TimeoutMs > 0 && int64(job.TimeoutMs) < limit.Milliseconds() {
		return time.Duration(job.TimeoutMs) * time.Millisecond
	}
	return limit
}
