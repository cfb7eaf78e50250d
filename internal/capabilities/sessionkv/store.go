package sessionkv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Store is one backend of the kv host function. Values are JSON (the
// caller has validated them as JSON). Every method checks the scope, the key
// and the value by the same rules whatever the backend, and returns a
// *LimitError for the script's mistakes.
type Store interface {
	// Get returns the live value of key in s; found is false when the key
	// was never set, was deleted or has expired.
	Get(ctx context.Context, s Scope, key string) (value json.RawMessage, found bool, err error)
	// Set stores value under key in s. ttl 0 is the bucket's TTL; a ttl
	// above it is capped to it. Setting a key the scope does not hold yet
	// fails when the scope already holds MaxKeysPerScope live keys.
	Set(ctx context.Context, s Scope, key string, value json.RawMessage, ttl time.Duration) error
	// Delete removes key from s; deleting a key that is absent is not an
	// error.
	Delete(ctx context.Context, s Scope, key string) error
}

// checkKey refuses a key the script cannot use.
func checkKey(cfg Config, key string) error {
	if len(key) > cfg.MaxKeyBytes {
		return &LimitError{Env: "KV_MAX_KEY_BYTES", Message: fmt.Sprintf(
			"kv key is %d bytes, over the %d-byte limit (KV_MAX_KEY_BYTES): use a shorter key", len(key), cfg.MaxKeyBytes)}
	}
	if !utf8.ValidString(key) {
		return &LimitError{Message: "kv key is not valid UTF-8 text: use a key made of whole characters"}
	}
	return nil
}

// checkValue refuses a value over the cap. A value that is not JSON is the
// caller's bug (it validates values), not the script's.
func checkValue(cfg Config, value json.RawMessage) error {
	if len(value) > cfg.MaxValueBytes {
		return &LimitError{Env: "KV_MAX_VALUE_BYTES", Message: fmt.Sprintf(
			"kv value is %d bytes of JSON, over the %d-byte limit (KV_MAX_VALUE_BYTES): store less, or split it over several keys",
			len(value), cfg.MaxValueBytes)}
	}
	if !json.Valid(value) {
		return errors.New("kv value is not JSON: the host must validate values before storing them")
	}
	return nil
}

// effectiveTTL is how long a set keeps its value: ttl (rounded up to a
// millisecond), or the bucket's TTL when ttl is 0 or above it.
func effectiveTTL(cfg Config, ttl time.Duration) (time.Duration, error) {
	switch {
	case ttl < 0:
		return 0, &LimitError{Message: fmt.Sprintf("kv ttl must not be negative, got %s: leave it out to keep the key as long as the bucket allows", ttl)}
	case ttl == 0 || ttl > cfg.TTL:
		return cfg.TTL, nil
	}
	// Entries keep their ttl in whole milliseconds: round up.
	return min((ttl + time.Millisecond - 1).Truncate(time.Millisecond), cfg.TTL), nil
}

// tooManyKeys is the error of a set that would pass MaxKeysPerScope.
func tooManyKeys(cfg Config) error {
	return &LimitError{Env: "KV_MAX_KEYS", Message: fmt.Sprintf(
		"this session already holds %d kv keys, the limit (KV_MAX_KEYS): delete one with kv.delete before setting a new key",
		cfg.MaxKeysPerScope)}
}

// checkCall runs the checks every call shares.
func checkCall(cfg Config, s Scope, key string) error {
	if err := s.check(); err != nil {
		return err
	}
	return checkKey(cfg, key)
}

// envelope is a stored value with its expiry: NATS 2.9 has no per-message
// TTL, so a key's own expiry is kept beside its value, as the writer's
// clock says, and checked on read. The bucket's TTL removes the entry
// itself at the latest.
//
// It is written and read by hand, {"e":<unix ms>,"v":<value>}, so the value
// is stored and returned byte for byte (json.Marshal would compact it and
// escape <, > and &; json.Unmarshal would trim its spaces).
type envelope struct {
	// Expires is when the entry stops being live.
	Expires time.Time
	// Value is the script's JSON.
	Value json.RawMessage
}

const (
	envelopeHead = `{"e":`
	envelopeMid  = `,"v":`
)

// messageOverhead bounds what a stored message adds to a value: the
// envelope (at most 28 bytes) and the headers of a conditional write
// (Nats-Expected-Last-Subject-Sequence), which the broker counts against a
// message's size too.
const messageOverhead = 256

func encodeEnvelope(value json.RawMessage, expires time.Time) []byte {
	b := make([]byte, 0, len(value)+32)
	b = append(b, envelopeHead...)
	b = strconv.AppendInt(b, expires.UnixMilli(), 10)
	b = append(b, envelopeMid...)
	b = append(b, value...)
	return append(b, '}')
}

// decodeEnvelope reads what encodeEnvelope wrote; ok is false for anything
// else (an entry written by something other than this package).
func decodeEnvelope(b []byte) (e envelope, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(envelopeHead))
	if !ok || len(rest) == 0 || rest[len(rest)-1] != '}' {
		return envelope{}, false
	}
	digits, value, ok := bytes.Cut(rest[:len(rest)-1], []byte(envelopeMid))
	if !ok || len(value) == 0 {
		return envelope{}, false
	}
	ms, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil {
		return envelope{}, false
	}
	return envelope{Expires: time.UnixMilli(ms), Value: value}, true
}

// live reports whether an entry that expires at expires is live at now.
func live(expires, now time.Time) bool { return now.Before(expires) }
