package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/textcut"
)

// Headers of a dead letter. The message body is the original job payload
// (cut to fit the broker's payload limit, with HeaderDLQTruncated set, when
// the original was too large to carry with its headers).
const (
	// HeaderDLQReason says why the job was dead-lettered, for a human.
	HeaderDLQReason = "Flowscript-Dlq-Reason"
	// HeaderDLQCode is INVALID_JOB (bad input), DELIVERY_EXHAUSTED or
	// SANDBOX_CRASH (a job that kept crashing its sandbox worker).
	HeaderDLQCode = "Flowscript-Dlq-Code"
	// HeaderDLQDeliveries is how many times the job was delivered.
	HeaderDLQDeliveries = "Flowscript-Dlq-Deliveries"
	// HeaderDLQSubject and HeaderDLQStreamSeq locate the original message.
	HeaderDLQSubject   = "Flowscript-Dlq-Subject"
	HeaderDLQStreamSeq = "Flowscript-Dlq-Stream-Sequence"
	// HeaderDLQJobID is the job id when the payload named a usable one.
	HeaderDLQJobID = "Flowscript-Dlq-Job-Id"
	// HeaderDLQHeaders holds the original message's headers as a JSON object
	// of string arrays.
	HeaderDLQHeaders = "Flowscript-Dlq-Headers"
	// HeaderDLQTruncated is "true" when the body holds only the start of the
	// original payload.
	HeaderDLQTruncated = "Flowscript-Dlq-Truncated"
	// HeaderDLQHeadersTruncated is "true" when HeaderDLQHeaders holds only
	// part of the original headers (see maxCopiedHeadersBytes).
	HeaderDLQHeadersTruncated = "Flowscript-Dlq-Headers-Truncated"
)

// Bounds of what a dead letter copies from its job into its own headers.
// JetStream refuses a message whose headers pass 64 KiB, and a job's own
// headers may come close to that: copied whole, they made a dead letter
// the broker refused on every attempt, so the job was never terminated.
// With these bounds, and the job's subject cut at maxSubjectBytes, a dead
// letter's headers stay under about 28 KiB, and under about 52 KiB with the
// largest trace context the job may carry on (a tracestate of about
// 16 KiB and 8 KiB of baggage, as OpenTelemetry's parsers keep them).
const (
	// maxCopiedHeadersBytes bounds HeaderDLQHeaders: past it, each value is
	// cut to maxCopiedValueBytes and entries that do not fit are left out.
	maxCopiedHeadersBytes = 16 << 10
	maxCopiedValueBytes   = 1 << 10
	// maxReasonBytes bounds HeaderDLQReason (a reason quotes field names
	// the job chose).
	maxReasonBytes = 8 << 10
	// maxTraceHeaderBytes bounds the traceparent and tracestate copied as
	// they came: W3C's traceparent is 55 bytes, a tracestate 512 at most.
	maxTraceHeaderBytes = 512
	// maxSubjectBytes bounds HeaderDLQSubject (the subject the job came
	// on, which its publisher chose under the jobs' prefix).
	maxSubjectBytes = 1 << 10
)

// DeadLetter is one job that will not be run again.
type DeadLetter struct {
	Payload    []byte
	Headers    nats.Header
	Subject    string
	StreamSeq  uint64
	Stored     time.Time // when JOBS stored the job: with StreamSeq, the dead letter's Nats-Msg-Id
	Deliveries uint64
	JobID      string // "" when the payload named no usable id
	Code       string // flowjob.CodeInvalidJob, CodeDeliveryExhausted or CodeSandboxCrash
	Reason     string
}

// DeadLetterer publishes dead letters to the DLQ stream.
type DeadLetterer struct {
	js         jetstream.JetStream
	cfg        Config
	maxPayload int64
}

// NewDeadLetterer returns a dead-letter publisher for cfg's DLQ stream;
// maxPayload is the broker's payload limit (nats.Conn.MaxPayload).
func NewDeadLetterer(js jetstream.JetStream, cfg Config, maxPayload int64) *DeadLetterer {
	return &DeadLetterer{js: js, cfg: cfg, maxPayload: maxPayload}
}

// Publish stores d in the DLQ stream and waits for the broker's ack. The
// message id is the original stream sequence, so retrying the publish of
// the same dead letter, or a redelivery of a job whose term was lost,
// stores it once (within Config.DLQDuplicateWindow).
func (d *DeadLetterer) Publish(ctx context.Context, dl DeadLetter) error {
	msg := nats.NewMsg(d.cfg.Subjects().DeadLetter(dl.JobID))
	reason, _ := textcut.Cut(dl.Reason, maxReasonBytes)
	msg.Header.Set(HeaderDLQReason, reason)
	msg.Header.Set(HeaderDLQCode, dl.Code)
	msg.Header.Set(HeaderDLQDeliveries, strconv.FormatUint(dl.Deliveries, 10))
	subject, _ := textcut.Cut(dl.Subject, maxSubjectBytes)
	msg.Header.Set(HeaderDLQSubject, subject)
	msg.Header.Set(HeaderDLQStreamSeq, strconv.FormatUint(dl.StreamSeq, 10))
	if flowjob.ValidID(dl.JobID) {
		msg.Header.Set(HeaderDLQJobID, dl.JobID)
	}
	if len(dl.Headers) > 0 {
		orig, cut := copiedHeaders(dl.Headers)
		msg.Header.Set(HeaderDLQHeaders, orig)
		if cut {
			msg.Header.Set(HeaderDLQHeadersTruncated, "true")
		}
	}
	for _, k := range []string{flowjob.HeaderTraceParent, flowjob.HeaderTraceState} {
		if v := dl.Headers.Get(k); v != "" && len(v) <= maxTraceHeaderBytes {
			msg.Header.Set(k, v)
		}
	}
	// The trace context of ctx (the dead letter's send span) replaces the job's.
	telemetry.Inject(ctx, msg.Header)
	msg.Data = dl.Payload
	if room := d.room(msg); int64(len(msg.Data)) > room {
		msg.Data = msg.Data[:max(room, 0)]
		msg.Header.Set(HeaderDLQTruncated, "true")
	}
	// The id dedups the dead letters of one stored job (a retried publish,
	// a redelivery): its sequence and store time, since a JOBS stream
	// deleted and made again numbers its jobs from 1 again, and the DLQ
	// dropped a new job's dead letter as a repeat of an old one's (a
	// black-box probe).
	msgID := fmt.Sprintf("%s:%d:%d", d.cfg.JobsStream, dl.StreamSeq, dl.Stored.UnixNano())
	_, err := d.js.PublishMsg(ctx, msg, jetstream.WithMsgID(msgID), jetstream.WithExpectStream(d.cfg.DLQStream))
	if err != nil {
		return fmt.Errorf("publishing dead letter of %s sequence %d to %s: %w", d.cfg.JobsStream, dl.StreamSeq, d.cfg.DLQStream, err)
	}
	return nil
}

// room is how many payload bytes fit beside msg's headers under the
// broker's payload limit (with a margin for the headers the client adds).
func (d *DeadLetterer) room(msg *nats.Msg) int64 {
	if d.maxPayload <= 0 {
		return int64(len(msg.Data))
	}
	size := 512 // NATS/1.0 line, Nats-Msg-Id, Nats-Expected-Stream
	for k, vs := range msg.Header {
		for _, v := range vs {
			size += len(k) + len(v) + 4
		}
	}
	return d.maxPayload - int64(size)
}

// copiedHeaders is h as a JSON object of string arrays, for
// HeaderDLQHeaders. Past maxCopiedHeadersBytes it holds, in the order of
// their names, the headers that fit, each value cut to maxCopiedValueBytes
// (a name longer than that is left out), and cut is true.
func copiedHeaders(h nats.Header) (text string, cut bool) {
	if all, err := json.Marshal(h); err == nil && len(all) <= maxCopiedHeadersBytes {
		return string(all), false
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if len(k) > maxCopiedValueBytes {
			continue
		}
		values := make([]string, len(h[k]))
		for i, v := range h[k] {
			values[i], _ = textcut.Cut(v, maxCopiedValueBytes)
		}
		name, _ := json.Marshal(k)
		list, _ := json.Marshal(values)
		if b.Len()+len(name)+len(list)+3 > maxCopiedHeadersBytes { // ",", ":", "}"
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(list)
	}
	b.WriteByte('}')
	return b.String(), true
}
