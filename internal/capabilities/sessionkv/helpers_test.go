package sessionkv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/internal/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a test's time: the real one, moved forward on demand, so ttl
// rules are tested without sleeping (the broker stamps entries with the
// real time; the store compares them with this one).
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// backend opens a fresh, empty store with cfg (defaults applied) that
// reads time from now.
type backend struct {
	name string
	open func(t *testing.T, cfg Config, now func() time.Time) Store
}

// backends are every Store the contract holds for: memory, and JetStream
// on the embedded server (the module's nats-server) and on the machine's
// NATS 2.9.
var backends = []backend{
	{"memory", func(t *testing.T, cfg Config, now func() time.Time) Store {
		return newMemory(cfg, now)
	}},
	{"jetstream-embedded", func(t *testing.T, cfg Config, now func() time.Time) Store {
		return openTestBucket(t, testenv.EmbeddedNATS(t).ClientURL(), cfg, now)
	}},
	{"jetstream-machine", func(t *testing.T, cfg Config, now func() time.Time) Store {
		return openTestBucket(t, testenv.MachineNATSURL(t), cfg, now)
	}},
}

// brokers are the JetStream-only tests' servers.
var brokers = []struct {
	name string
	url  func(t testing.TB) string
}{
	{"embedded", func(t testing.TB) string { return testenv.EmbeddedNATS(t).ClientURL() }},
	{"machine", testenv.MachineNATSURL},
}

// uniqueBucket is a bucket name no other test uses: the machine's broker
// is shared.
func uniqueBucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "KVTEST_" + hex.EncodeToString(b[:])
}

// deleteBucketAtCleanup deletes the bucket when the test ends, so the
// machine's broker keeps nothing of the test.
func deleteBucketAtCleanup(t testing.TB, url, bucket string) {
	t.Helper()
	t.Cleanup(func() {
		nc, err := nats.Connect(url)
		if err != nil {
			return // the broker is gone, and the bucket with it
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Errorf("deleting bucket %s: %v", bucket, err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := js.DeleteKeyValue(ctx, bucket); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			t.Errorf("deleting bucket %s: %v", bucket, err)
		}
	})
}

// openTestBucket opens a JetStream store on a bucket of its own.
func openTestBucket(t testing.TB, url string, cfg Config, now func() time.Time) *jetStreamStore {
	t.Helper()
	if cfg.Bucket == "" {
		cfg.Bucket = uniqueBucket(t)
	}
	deleteBucketAtCleanup(t, url, cfg.Bucket)
	_, js := testenv.JetStream(t, url)
	s, err := openJetStream(testenv.Context(t, 10*time.Second), js, cfg, true, now)
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	return s
}

func ctxT(t testing.TB) context.Context { return testenv.Context(t, 60*time.Second) }

// limitEnv returns the LimitError's env when err is one, and ok.
func limitEnv(err error) (string, bool) {
	var le *LimitError
	if !errors.As(err, &le) {
		return "", false
	}
	return le.Env, true
}

func timeAt(unixMilli int64) time.Time { return time.UnixMilli(unixMilli) }
