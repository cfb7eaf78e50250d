package consumer

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/internal/textcut"
)

// deliveryBudget counts a job's attempts: the broker's deliveries minus
// those a replica's shutdown interrupted, which it notes in a key-value
// bucket keyed by the job's JOBS stream sequence. The broker counts every
// delivery and cannot be told otherwise; this is how "an interruption at
// shutdown does not burn an attempt" holds anyway. The key is the sequence
// with the time the broker stored the job: a JOBS stream deleted and made
// again numbers its jobs from 1 again, and a new job must not take an old
// one's interruptions or last failure (a black-box probe).
//
// Replicas before that change keyed a note by the sequence alone. During a
// rolling upgrade the old replicas, stopping, note their interruptions so;
// a note under that key is read when the new one is missing, and only if
// it was made after the job was stored: an older note under the same
// sequence belongs to a job of an earlier JOBS stream.
//
// At most max interruptions are left out, so a job that is interrupted on
// every delivery (replicas stopped one after the other while it runs) still
// ends. A note that cannot be written or read only makes an interruption
// count as an attempt: the safe direction.
type deliveryBudget struct {
	kv  jetstream.KeyValue
	max int
	log *slog.Logger
}

// noteTimeout bounds noting one interruption: it runs while the replica
// stops, after the jobs' context ended.
const noteTimeout = 2 * time.Second

// tries is d's attempt number: its delivery count, less the interruptions
// noted for it. A first delivery costs no lookup.
func (b *deliveryBudget) tries(ctx context.Context, d *delivery) int {
	if d.attempt <= 1 || b == nil || b.kv == nil || d.streamSeq == 0 {
		return d.attempt
	}
	e, err := b.note(ctx, d, "")
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			d.logger().DebugContext(ctx, "reading the job's interrupted deliveries", "error", err)
		}
		return d.attempt
	}
	n, err := strconv.Atoi(string(e.Value()))
	if err != nil || n < 0 {
		return d.attempt
	}
	return max(d.attempt-min(n, b.max), 1)
}

// noteInterruption adds one to d's interrupted deliveries.
func (b *deliveryBudget) noteInterruption(ctx context.Context, d *delivery) {
	if b == nil || b.kv == nil || d.streamSeq == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), noteTimeout)
	defer cancel()
	k := key(d)
	var err error
	for range 3 {
		var e jetstream.KeyValueEntry
		e, err = b.note(ctx, d, "")
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			_, err = b.kv.Create(ctx, k, []byte("1"))
		case err == nil:
			n, _ := strconv.Atoi(string(e.Value())) // a garbled note restarts from 1
			next := []byte(strconv.Itoa(n + 1))
			if e.Key() == k {
				_, err = b.kv.Update(ctx, k, next, e.Revision())
			} else { // an earlier release's note, carried over
				_, err = b.kv.Create(ctx, k, next)
			}
		}
		if err == nil {
			return
		}
	}
	d.logger().WarnContext(ctx, "could not note an interrupted delivery; it will count as one of the job's attempts",
		"stream_seq", d.streamSeq, "error", err)
}

// failureNoteBytes caps a noted failure's text.
const failureNoteBytes = 1 << 10

// noteFailure keeps why d's last attempt ended without a stored result
// (the result store refused it, say), so that the delivery past the
// attempts can name it in its DELIVERY_EXHAUSTED result and dead letter.
// A note that cannot be written leaves the generic reason.
func (b *deliveryBudget) noteFailure(ctx context.Context, d *delivery, cause error) {
	if b == nil || b.kv == nil || d.streamSeq == 0 || cause == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), noteTimeout)
	defer cancel()
	text, _ := textcut.Cut(cause.Error(), failureNoteBytes)
	if _, err := b.kv.PutString(ctx, failureKey(d), text); err != nil {
		d.logger().DebugContext(ctx, "noting why the job's last attempt failed", "stream_seq", d.streamSeq, "error", err)
	}
}

// lastFailure is the failure noteFailure kept for d, "" when none.
func (b *deliveryBudget) lastFailure(ctx context.Context, d *delivery) string {
	if b == nil || b.kv == nil || d.streamSeq == 0 {
		return ""
	}
	e, err := b.note(ctx, d, failureSuffix)
	if err != nil {
		return ""
	}
	return string(e.Value())
}

// note reads d's note named by key(d)+suffix or, when there is none, the
// one an earlier release made under the sequence alone if it was made after
// the job was stored.
func (b *deliveryBudget) note(ctx context.Context, d *delivery, suffix string) (jetstream.KeyValueEntry, error) {
	e, err := b.kv.Get(ctx, key(d)+suffix)
	if !errors.Is(err, jetstream.ErrKeyNotFound) || d.published.IsZero() {
		return e, err
	}
	old, oldErr := b.kv.Get(ctx, strconv.FormatUint(d.streamSeq, 10)+suffix)
	if oldErr != nil || old.Created().Before(d.published) {
		return nil, err
	}
	return old, nil
}

// key names d's job in the bucket: its JOBS sequence and when it was
// stored, in nanoseconds.
func key(d *delivery) string {
	return strconv.FormatUint(d.streamSeq, 10) + "_" + strconv.FormatInt(d.published.UnixNano(), 10)
}

func failureKey(d *delivery) string { return key(d) + failureSuffix }

// failureSuffix ends the key of a job's noted failure.
const failureSuffix = ".failure"
