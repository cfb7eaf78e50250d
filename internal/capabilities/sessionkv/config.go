package sessionkv

import (
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Config sets the bucket and the caps of the kv host function. The zero
// value is not usable: call WithDefaults, then Validate.
type Config struct {
	// Bucket is the JetStream key-value bucket the executor provisions
	// (KV_BUCKET).
	Bucket string
	// TTL is the bucket's TTL (KV_TTL): every key is gone at most TTL after
	// its last write, whatever the ttl of its set. It is the upper bound of
	// a per-key ttl.
	TTL time.Duration
	// MaxValueBytes caps the JSON of one value (KV_MAX_VALUE_BYTES).
	MaxValueBytes int
	// MaxKeyBytes caps a key's length in bytes of UTF-8 (KV_MAX_KEY_BYTES).
	MaxKeyBytes int
	// MaxKeysPerScope caps the live keys one session of one tenant holds
	// (KV_MAX_KEYS).
	MaxKeysPerScope int
	// Replicas is the bucket's stream replicas in a clustered broker (the
	// executor passes STREAM_REPLICAS).
	Replicas int
}

// Defaults.
const (
	DefaultBucket          = "FLOWSCRIPT_KV"
	DefaultTTL             = 24 * time.Hour
	DefaultMaxValueBytes   = 64 << 10
	DefaultMaxKeyBytes     = 256
	DefaultMaxKeysPerScope = 100
)

// Bounds Validate enforces. A key's encoded form is a NATS subject (about
// 4/3 of its bytes), and subjects must stay well under the broker's control
// line (4 KiB); a value travels in one message.
const (
	MaxMaxKeyBytes     = 1024
	MaxMaxValueBytes   = 1 << 20
	MaxMaxKeysPerScope = 10000
	MinTTL             = time.Second
)

// WithDefaults returns c with every unset field set to its default.
func (c Config) WithDefaults() Config {
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxValueBytes == 0 {
		c.MaxValueBytes = DefaultMaxValueBytes
	}
	if c.MaxKeyBytes == 0 {
		c.MaxKeyBytes = DefaultMaxKeyBytes
	}
	if c.MaxKeysPerScope == 0 {
		c.MaxKeysPerScope = DefaultMaxKeysPerScope
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	return c
}

var bucketName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate reports every field out of range, naming its environment
// variable.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(bucketName.MatchString(c.Bucket), "KV_BUCKET must be 1 to 64 letters, digits, '-' or '_', got %q", c.Bucket)
	check(c.TTL >= MinTTL, "KV_TTL must be at least %s, got %s", MinTTL, c.TTL)
	check(c.MaxValueBytes >= 1 && c.MaxValueBytes <= MaxMaxValueBytes,
		"KV_MAX_VALUE_BYTES must be between 1 and %d, got %d", MaxMaxValueBytes, c.MaxValueBytes)
	check(c.MaxKeyBytes >= 1 && c.MaxKeyBytes <= MaxMaxKeyBytes,
		"KV_MAX_KEY_BYTES must be between 1 and %d, got %d", MaxMaxKeyBytes, c.MaxKeyBytes)
	check(c.MaxKeysPerScope >= 1 && c.MaxKeysPerScope <= MaxMaxKeysPerScope,
		"KV_MAX_KEYS must be between 1 and %d, got %d", MaxMaxKeysPerScope, c.MaxKeysPerScope)
	check(c.Replicas >= 1 && c.Replicas <= 5, "the kv bucket's replicas (STREAM_REPLICAS) must be between 1 and 5, got %d", c.Replicas)
	return errors.Join(errs...)
}
