package continuation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
)

// Journals keeps suspended runs' journals in a key-value bucket whose TTL
// is the continuations' lifetime. Keys:
//
//	j.<job id>.<random>  a journal (each suspended run has its own: two
//	                     runs of one job never overwrite each other's)
//	c.<job id>           the claim on that job's continuation: the id of
//	                     the resume job that used it
type Journals struct {
	kv jetstream.KeyValue
}

// NewJournals returns the journals kept in kv.
func NewJournals(kv jetstream.KeyValue) *Journals { return &Journals{kv: kv} }

// Save stores the journal of a run of job jobID and returns its key.
func (j *Journals) Save(ctx context.Context, jobID string, journal []byte) (string, error) {
	var nonce [9]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", err
	}
	key := "j." + jobID + "." + hex.EncodeToString(nonce[:])
	if _, err := j.kv.Create(ctx, key, journal); err != nil {
		return "", fmt.Errorf("storing the journal of job %s: %w", jobID, err)
	}
	return key, nil
}

// Load returns the journal under key. A journal the bucket no longer holds
// (its TTL passed, or the bucket was emptied) is an INVALID_CONTINUATION
// *Error; any other error is the bucket's, and transient.
func (j *Journals) Load(ctx context.Context, c Claims) ([]byte, error) {
	e, err := j.kv.Get(ctx, c.Journal)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted):
		return nil, invalid("the journal of job %s is gone (expired, or the bucket was emptied): run the step again from the start", c.JobID)
	case err != nil:
		return nil, fmt.Errorf("reading the journal of job %s: %w", c.JobID, err)
	}
	return e.Value(), nil
}

// Claim makes resumeID the one job that resumes c's continuation. The
// same job may claim it again (a redelivery, or a rerun after a crash);
// another gets a CONTINUATION_USED *Error. Two claims racing on two
// replicas are decided by the bucket: one create wins.
func (j *Journals) Claim(ctx context.Context, c Claims, resumeID string) error {
	key := "c." + c.JobID
	_, err := j.kv.Create(ctx, key, []byte(resumeID))
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("claiming the continuation of job %s: %w", c.JobID, err)
	}
	e, err := j.kv.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("reading the claim on the continuation of job %s: %w", c.JobID, err)
	}
	if by := string(e.Value()); by != resumeID {
		return &Error{Code: flowjob.CodeContinuationUsed, Message: fmt.Sprintf(
			"the continuation of job %s was resumed already, by job %s: a continuation resumes once; read that job's result", c.JobID, by)}
	}
	return nil
}
