package consumer

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
)

// maxSweep bounds the leftovers one sweep looks at.
const maxSweep = 1000

// sweepLeftovers looks for jobs left in JOBS below the consumer's ack
// floor. The broker never delivers those again; on nats-server 2.9 a broker
// crash can leave already-answered jobs there (seen in drills: 30–40 per
// crash), where they count toward JOBS_MAX_MSGS. Those whose result is
// stored are removed; the others are logged (once each) for an operator.
func (e *Executor) sweepLeftovers(ctx context.Context) {
	sw, err := sweepLeftovers(ctx, *e.jobs.Load(), *e.consumer.Load(), e.handler.store,
		e.cfg.Subjects().JobsFilter(), e.sweptTo, maxSweep)
	e.sweptTo = max(e.sweptTo, sw.lastKept)
	if sw.removed > 0 {
		e.metrics.LeftoversRemoved(ctx, int64(sw.removed))
		e.log.Info("removed answered jobs left below the consumer's ack floor (a nats-server before 2.10 leaves them after a crash)",
			"stream", e.cfg.JobsStream, "removed", sw.removed)
	}
	if len(sw.kept) > 0 {
		e.log.Warn("jobs left below the consumer's ack floor have no stored result; the broker will not deliver them again: republish them if they must run",
			"stream", e.cfg.JobsStream, "stream_seqs", sw.kept)
	}
	if err != nil && ctx.Err() == nil {
		e.log.Debug("sweeping leftover jobs", "error", err)
	}
}

// sweep is what one sweep did.
type sweep struct {
	removed  int
	kept     []uint64 // sequences of leftovers without a result, newly seen
	lastKept uint64
}

// sweepLeftovers removes the messages of jobs below cons's ack floor whose
// result store has a result, looking at most at limit of them, and reports
// the others past the sequence after.
func sweepLeftovers(ctx context.Context, jobs jetstream.Stream, cons jetstream.Consumer, store *ResultStore,
	filter string, after uint64, limit int) (sweep, error) {
	var sw sweep
	ci, err := cons.Info(ctx)
	if err != nil {
		return sw, fmt.Errorf("reading the consumer's ack floor: %w", err)
	}
	si, err := jobs.Info(ctx)
	if err != nil {
		return sw, fmt.Errorf("reading the jobs stream's state: %w", err)
	}
	floor, first := ci.AckFloor.Stream, si.State.FirstSeq
	if si.State.Msgs == 0 || first == 0 || first > floor {
		return sw, nil // nothing below the floor: the common case
	}
	for seq, n := first, 0; n < limit; n++ {
		raw, err := jobs.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return sw, nil
		}
		if err != nil {
			return sw, fmt.Errorf("reading job at sequence %d: %w", seq, err)
		}
		if raw.Sequence > floor {
			return sw, nil
		}
		seq = raw.Sequence + 1
		id := raw.Header.Get(flowjob.HeaderMsgID)
		if job := flowjob.Salvage(raw.Data); job != nil && flowjob.ValidID(job.ID) {
			id = job.ID
		}
		_, err = store.Load(ctx, id)
		switch {
		case err == nil:
			if derr := jobs.DeleteMsg(ctx, raw.Sequence); derr != nil && !errors.Is(derr, jetstream.ErrMsgNotFound) {
				return sw, fmt.Errorf("removing answered job at sequence %d: %w", raw.Sequence, derr)
			}
			sw.removed++
		case errors.Is(err, ErrNoResult) || !flowjob.ValidID(id):
			if raw.Sequence > after {
				sw.kept = append(sw.kept, raw.Sequence)
				sw.lastKept = raw.Sequence
			}
		default:
			return sw, err
		}
	}
	return sw, nil
}
