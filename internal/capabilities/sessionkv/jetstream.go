package sessionkv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// provisionTimeout bounds one JetStream API call of OpenJetStream.
const provisionTimeout = 5 * time.Second

// casAttempts bounds how often a set retries after a concurrent writer of
// the same key changed it between the read and the write.
const casAttempts = 5

// BucketConfig is the bucket OpenJetStream provisions: on disk (values
// survive a restart of the executor and of the broker), one revision per
// key, every entry removed TTL after its last write, messages capped to a
// value and its envelope.
func BucketConfig(cfg Config) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       cfg.Bucket,
		Description:  "FlowScript kv host function: values of one session of one tenant, key t<tenant>.s<session>.k<key> (base64url)",
		TTL:          cfg.TTL,
		MaxValueSize: int32(cfg.MaxValueBytes + messageOverhead), //nolint:gosec // Validate caps MaxValueBytes at 1 MiB
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     cfg.Replicas,
	}
}

// StreamName is the name of the stream behind the bucket, for operators and
// for tests that clean up.
func (c Config) StreamName() string { return "KV_" + c.Bucket }

// OpenJetStream provisions the bucket — creates it if missing, and with
// update applies cfg to an existing one (the executor passes true only at
// its start, as it does for its streams, so replicas of an older version
// never revert the newest settings) — and returns the JetStream store.
// cfg gets its defaults and must be valid.
func OpenJetStream(ctx context.Context, js jetstream.JetStream, cfg Config, update bool) (Store, error) {
	return openJetStream(ctx, js, cfg, update, time.Now)
}

func openJetStream(ctx context.Context, js jetstream.JetStream, cfg Config, update bool, now func() time.Time) (*jetStreamStore, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if nc := js.Conn(); nc != nil {
		if limit := nc.MaxPayload(); limit > 0 && int64(cfg.MaxValueBytes+messageOverhead) > limit {
			return nil, fmt.Errorf("KV_MAX_VALUE_BYTES (%d) does not fit in one message of the broker (max_payload %d bytes, %d of them kept for the entry's envelope and headers): lower it",
				cfg.MaxValueBytes, limit, messageOverhead)
		}
	}
	kv, err := provisionBucket(ctx, js, BucketConfig(cfg), update)
	if err != nil {
		return nil, fmt.Errorf("provisioning kv bucket %s: %w", cfg.Bucket, err)
	}
	sctx, cancel := context.WithTimeout(ctx, provisionTimeout)
	defer cancel()
	stream, err := js.Stream(sctx, cfg.StreamName())
	if err != nil {
		return nil, fmt.Errorf("provisioning kv bucket %s: opening its stream: %w", cfg.Bucket, err)
	}
	return &jetStreamStore{cfg: cfg, kv: kv, stream: stream, subjects: "$KV." + cfg.Bucket + ".", now: now}, nil
}

func provisionBucket(ctx context.Context, js jetstream.JetStream, want jetstream.KeyValueConfig, update bool) (jetstream.KeyValue, error) {
	ctx, cancel := context.WithTimeout(ctx, provisionTimeout)
	defer cancel()
	kv, err := js.KeyValue(ctx, want.Bucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		kv, err = js.CreateKeyValue(ctx, want)
		if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return js.KeyValue(ctx, want.Bucket) // another replica created it meanwhile
		}
		return kv, err
	case err != nil || !update:
		return kv, err
	}
	status, err := kv.Status(ctx)
	if err != nil {
		return nil, err
	}
	if st, ok := status.(*jetstream.KeyValueBucketStatus); ok {
		have := st.StreamInfo().Config
		if have.MaxAge == want.TTL && have.Replicas == want.Replicas && have.MaxMsgSize == want.MaxValueSize &&
			have.Description == want.Description && have.Storage == jetstream.FileStorage && have.MaxMsgsPerSubject == int64(want.History) {
			return kv, nil
		}
	}
	return js.UpdateKeyValue(ctx, want)
}

// jetStreamStore keeps entries in a JetStream key-value bucket. Each entry
// is an envelope (the value and its expiry); an entry read past its expiry
// is absent and deleted then (lazily), and the bucket's TTL removes every
// entry at the latest.
//
// Entries are deleted by purging their subject, not with the bucket's
// delete markers: the message goes, so a deleted key leaves nothing a count
// of the scope's subjects would see; an expired entry is purged up to the
// revision read, so a value set meanwhile stays.
type jetStreamStore struct {
	cfg    Config
	kv     jetstream.KeyValue
	stream jetstream.Stream
	// subjects is the bucket's subject prefix, "$KV.<bucket>.".
	subjects string
	now      func() time.Time
}

func (j *jetStreamStore) Get(ctx context.Context, s Scope, key string) (json.RawMessage, bool, error) {
	if err := checkCall(j.cfg, s, key); err != nil {
		return nil, false, err
	}
	_, env, isLive, err := j.read(ctx, s.storedKey(key))
	if err != nil || !isLive {
		return nil, false, err
	}
	return env.Value, true, nil
}

func (j *jetStreamStore) Set(ctx context.Context, s Scope, key string, value json.RawMessage, ttl time.Duration) error {
	if err := checkCall(j.cfg, s, key); err != nil {
		return err
	}
	if err := checkValue(j.cfg, value); err != nil {
		return err
	}
	ttl, err := effectiveTTL(j.cfg, ttl)
	if err != nil {
		return err
	}
	k := s.storedKey(key)
	data := encodeEnvelope(value, j.now().Add(ttl))
	for range casAttempts {
		e, _, isLive, err := j.read(ctx, k)
		if err != nil {
			return err
		}
		if isLive { // an overwrite: the last writer wins, no count needed
			if _, err := j.kv.Put(ctx, k, data); err != nil {
				return fmt.Errorf("writing kv key: %w", err)
			}
			return nil
		}
		counted, err := j.checkRoom(ctx, s, k)
		if err != nil {
			return err
		}
		// A new key: written only if nobody wrote it since the read.
		var rev uint64
		if e == nil {
			rev, err = j.kv.Create(ctx, k, data)
		} else {
			rev, err = j.kv.Update(ctx, k, data, e.Revision())
		}
		switch {
		case err == nil:
			return j.keepWithinCap(ctx, s, k, rev, counted)
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			continue // another writer of this key came first: read again
		default:
			return fmt.Errorf("writing kv key: %w", err)
		}
	}
	return fmt.Errorf("writing kv key: %d concurrent writers kept changing it", casAttempts)
}

func (j *jetStreamStore) Delete(ctx context.Context, s Scope, key string) error {
	if err := checkCall(j.cfg, s, key); err != nil {
		return err
	}
	if err := j.purge(ctx, s.storedKey(key), 0); err != nil {
		return fmt.Errorf("deleting kv key: %w", err)
	}
	return nil
}

// purge removes the messages of stored key k: all of them (upTo 0), or
// those up to revision upTo, so that a value set after that revision
// stays. It leaves no delete marker: a key never set costs nothing to
// delete, and a deleted key is not counted.
func (j *jetStreamStore) purge(ctx context.Context, k string, upTo uint64) error {
	opts := []jetstream.StreamPurgeOpt{jetstream.WithPurgeSubject(j.subjects + k)}
	if upTo > 0 {
		opts = append(opts, jetstream.WithPurgeSequence(upTo+1))
	}
	return j.stream.Purge(ctx, opts...)
}

// read returns the entry of stored key k and whether it is live. The entry
// is nil when the key is absent, or was expired and is now deleted. An
// entry this package cannot decode (written by something else) is not live
// and is overwritten by the next set.
func (j *jetStreamStore) read(ctx context.Context, k string) (jetstream.KeyValueEntry, envelope, bool, error) {
	e, err := j.kv.Get(ctx, k)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, envelope{}, false, nil
	}
	if err != nil {
		return nil, envelope{}, false, fmt.Errorf("reading kv key: %w", err)
	}
	env, ok := decodeEnvelope(e.Value())
	if !ok {
		return e, envelope{}, false, nil // foreign: absent, and overwritten by a set
	}
	if live(env.Expires, j.now()) {
		return e, env, true, nil
	}
	// Past its own ttl: remove this revision (a value set meanwhile stays).
	// When that fails, a set writes over this revision (or sees a conflict).
	if purged := j.purge(ctx, k, e.Revision()) == nil; !purged {
		return e, envelope{}, false, nil
	}
	return nil, envelope{}, false, nil
}

// checkRoom refuses a new key when the scope already holds
// MaxKeysPerScope live keys besides stored key k, and returns the bucket's
// last revision at the count. One stream info request with the scope's
// subject filter counts the keys the bucket holds (no values travel, no
// consumer is created); only when that count reaches the cap are the
// scope's entries read one by one, so that keys past their own ttl (which
// the bucket still holds until read or until its TTL) do not count.
func (j *jetStreamStore) checkRoom(ctx context.Context, s Scope, k string) (counted uint64, err error) {
	held, counted, err := j.keys(ctx, s)
	if err != nil {
		return 0, err
	}
	delete(held, k)
	if len(held) < j.cfg.MaxKeysPerScope {
		return counted, nil
	}
	live := 0
	for other := range held {
		_, _, ok, err := j.read(ctx, other)
		if err != nil {
			return 0, err
		}
		if ok {
			live++
		}
	}
	if live >= j.cfg.MaxKeysPerScope {
		return 0, tooManyKeys(j.cfg)
	}
	return counted, nil
}

// keepWithinCap makes the cap exact for writers of one session that set
// new keys at the same moment, each of which counted before the others
// wrote. The new key k, written at revision rev, stands when the bucket
// took no other write since the count at revision counted. Otherwise the
// scope is counted again, now that every earlier write is in it: a writer
// that finds the cap passed purges its own revision and fails with the
// cap's error. Of writers racing for the last place, the last to write
// always sees the others, so the cap holds; two of them may both give way.
//
// A write of k by another job between this write and its purge (an
// overwrite, which needs no room) keeps k, and so does a count that fails
// (the store's error): the write stands, and the cap may be passed by one.
func (j *jetStreamStore) keepWithinCap(ctx context.Context, s Scope, k string, rev, counted uint64) error {
	if rev == counted+1 {
		return nil
	}
	_, err := j.checkRoom(ctx, s, k)
	var limit *LimitError
	if !errors.As(err, &limit) {
		return nil
	}
	if perr := j.purge(ctx, k, rev); perr != nil {
		return fmt.Errorf("removing a kv key past KV_MAX_KEYS: %w", perr)
	}
	return err
}

// keys returns the stored keys of s the bucket holds, live or past their
// own ttl, and the bucket's last revision.
func (j *jetStreamStore) keys(ctx context.Context, s Scope) (map[string]struct{}, uint64, error) {
	info, err := j.stream.Info(ctx, jetstream.WithSubjectFilter(j.subjects+s.filter()))
	if err != nil {
		return nil, 0, fmt.Errorf("counting the session's kv keys: %w", err)
	}
	keys := make(map[string]struct{}, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		keys[strings.TrimPrefix(subject, j.subjects)] = struct{}{}
	}
	return keys, info.State.LastSeq, nil
}
