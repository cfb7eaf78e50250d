package consumer

import (
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// delivery is one job message as the handler sees it.
type delivery struct {
	msg       jetstream.Msg
	attempt   int // the broker's delivery count: 1 for the first delivery
	streamSeq uint64
	// published is when the broker stored the job (zero when unknown): the
	// start of the job's end-to-end latency.
	published time.Time
	// msgID is the job's Nats-Msg-Id header: the job id engines publish.
	msgID string
	// base is the executor's logger; log is base with the job id (logID),
	// made by logger on first use: most jobs log nothing.
	base, log *slog.Logger
	logID     string
	// span is the delivery's process span.
	span telemetry.Span
	// ran gives the job's sandbox slot back (Executor.handle); nil once it
	// has.
	ran func()
}

// leftSandbox gives the job's sandbox slot back, once: the handler calls it
// when the script has run, before storing the result; the executor calls it
// again when the delivery is settled, in case the handler did not get there.
func (d *delivery) leftSandbox() {
	if d.ran != nil {
		d.ran()
		d.ran = nil
	}
}

func newDelivery(msg jetstream.Msg, log *slog.Logger) *delivery {
	d := &delivery{msg: msg, attempt: 1, base: log}
	if meta, err := msg.Metadata(); err == nil {
		d.attempt = int(meta.NumDelivered)
		d.streamSeq = meta.Sequence.Stream
		d.published = meta.Timestamp
	}
	d.msgID = msg.Headers().Get(flowjob.HeaderMsgID)
	d.logID = d.msgID
	return d
}

// logger is the executor's logger with the job's id (the message id until
// the job is decoded). Only the goroutine handling the delivery calls it,
// and then the one settling it.
func (d *delivery) logger() *slog.Logger {
	if d.log == nil {
		d.log = withJobID(d.base, d.logID)
	}
	return d.log
}

// withJobID is base naming the job id, or base itself when there is none.
func withJobID(base *slog.Logger, id string) *slog.Logger {
	if id == "" {
		return base
	}
	return base.With(telemetry.LogKeyJobID, id)
}

// identify names the delivery's job once decoded, when its id is not the
// message id the span and the logger already carry.
func (d *delivery) identify(job *flowjob.Job) {
	if job == nil || !flowjob.ValidID(job.ID) || job.ID == d.msgID {
		return
	}
	d.logID, d.log = job.ID, nil
	d.span.SetMessageID(job.ID)
}
