package failrecord

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
)

// StreamName is the failures stream of a deployment whose jobs stream is
// jobsStream: <JOBS_STREAM>_FAILURES.
func StreamName(jobsStream string) string { return jobsStream + "_FAILURES" }

// ErrNoRecord says the failures stream holds no record of the job.
var ErrNoRecord = errors.New("no failure record")

// ErrNoStream says the broker has no failures stream of that name.
var ErrNoStream = errors.New("no failures stream")

// Load reads the failure record of jobID from stream (StreamName), stored
// on subjects.Failure(jobID). It wraps ErrNoRecord when there is none (the
// job did not fail in its script, or its record aged out or was pushed out
// by newer ones) and ErrNoStream when the stream does not exist.
func Load(ctx context.Context, js jetstream.JetStream, stream string, subjects flowjob.Subjects, jobID string) (Record, error) {
	if !flowjob.ValidID(jobID) {
		return Record{}, fmt.Errorf("%q is not a job id: ids are 1 to %d letters, digits, '-' or '_'", jobID, flowjob.MaxIDBytes)
	}
	s, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return Record{}, fmt.Errorf("%w %s on this NATS: start an executor of this version (it creates it), or check JOBS_STREAM; executors with FAILURE_RECORDS=off keep none", ErrNoStream, stream)
	} else if err != nil {
		return Record{}, fmt.Errorf("looking up stream %s: %w", stream, err)
	}
	msg, err := s.GetLastMsgForSubject(ctx, subjects.Failure(jobID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Record{}, NoRecord(stream, jobID)
	} else if err != nil {
		return Record{}, fmt.Errorf("reading the failure record of job %s from %s: %w", jobID, stream, err)
	}
	return Decode(msg.Data)
}

// NoRecord is the error Load returns when stream holds no record of jobID
// (it wraps ErrNoRecord). A caller that may not see a record answers with
// it too, so that the answer does not tell the record exists.
func NoRecord(stream, jobID string) error {
	return fmt.Errorf("%w of job %s in %s: only jobs whose script failed are kept, within FAILURES_MAX_AGE, FAILURES_MAX_MSGS and FAILURES_MAX_BYTES, and none by executors with FAILURE_RECORDS=off",
		ErrNoRecord, jobID, stream)
}
