package sessionkv

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/internal/testenv"
)

// Values survive the executor's restart (a new connection, a store opened
// without update) and the broker's (stopped and started on the same store
// folder), on the machine's nats-server 2.9 and on the module's.
func TestJetStreamValuesSurviveRestarts(t *testing.T) {
	for _, kind := range testenv.NATSKinds {
		t.Run(string(kind), func(t *testing.T) {
			p := testenv.StartNATSProcess(t, kind, testenv.NATSProcessOptions{})
			cfg := Config{Bucket: uniqueBucket(t), MaxKeysPerScope: 2}
			sc := Scope{Tenant: "acme", Session: "s-1"}

			nc, js := testenv.JetStream(t, p.URL())
			s, err := OpenJetStream(ctxT(t), js, cfg, true)
			if err != nil {
				t.Fatal(err)
			}
			mustSet(t, s, sc, "name", `"Maria"`, 0)
			mustSet(t, s, sc, "step", `2`, time.Hour)
			nc.Close() // the executor stops

			_, js = testenv.JetStream(t, p.URL())
			s, err = OpenJetStream(ctxT(t), js, cfg, false)
			if err != nil {
				t.Fatal(err)
			}
			wantValue(t, s, sc, "name", `"Maria"`)

			p.Stop() // the broker stops, and starts again on its folder
			p.Start()
			_, js = testenv.JetStream(t, p.URL())
			s, err = OpenJetStream(ctxT(t), js, cfg, false)
			if err != nil {
				t.Fatal(err)
			}
			wantValue(t, s, sc, "name", `"Maria"`)
			wantValue(t, s, sc, "step", `2`)
			// The count of keys is the stored one.
			if _, isLimit := limitEnv(s.Set(ctxT(t), sc, "third", json.RawMessage(`3`), 0)); !isLimit {
				t.Fatal("after the restart, a third key was accepted past KV_MAX_KEYS=2")
			}
		})
	}
}

// The bucket's TTL is the broker's: an entry is removed from the bucket,
// not only hidden by the store.
func TestJetStreamBucketTTLRemovesEntries(t *testing.T) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			url := b.url(t)
			s := openTestBucket(t, url, Config{TTL: time.Second}, time.Now)
			sc := Scope{Tenant: "t", Session: "s"}
			mustSet(t, s, sc, "k", `1`, 0)
			deadline := time.Now().Add(30 * time.Second)
			for {
				_, err := s.kv.Get(ctxT(t), sc.storedKey("k"))
				if errors.Is(err, jetstream.ErrKeyNotFound) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if time.Now().After(deadline) {
					t.Fatal("the entry is still in the bucket 30s after a 1s bucket TTL")
				}
				time.Sleep(100 * time.Millisecond)
			}
			wantAbsent(t, s, sc, "k")
		})
	}
}

// An entry read past its own ttl is deleted from the bucket then; one this
// package cannot read is absent and overwritten by the next set.
func TestJetStreamExpiredAndForeignEntries(t *testing.T) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			c := &clock{}
			s := openTestBucket(t, b.url(t), Config{}, c.now)
			sc := Scope{Tenant: "t", Session: "s"}
			mustSet(t, s, sc, "k", `1`, time.Minute)
			c.advance(2 * time.Minute)
			wantAbsent(t, s, sc, "k")
			if _, err := s.kv.Get(ctxT(t), sc.storedKey("k")); !errors.Is(err, jetstream.ErrKeyNotFound) {
				t.Fatalf("the expired entry is still in the bucket after a read: %v", err)
			}

			for _, garbage := range []string{`1`, `{"e":12,"v":}`, `{"e":x,"v":1}`, `{"t":1,"v":1}`, ``} {
				if _, err := s.kv.Put(ctxT(t), sc.storedKey("foreign"), []byte(garbage)); err != nil {
					t.Fatal(err)
				}
				wantAbsent(t, s, sc, "foreign")
				mustSet(t, s, sc, "foreign", `"mine"`, 0)
				wantValue(t, s, sc, "foreign", `"mine"`)
			}
		})
	}
}

// What the bucket holds is one entry per (scope, key), under the scope's
// prefix, its key decoding back to the scope and the key.
func TestJetStreamStoredKeysAreTheScopes(t *testing.T) {
	s := openTestBucket(t, testenv.MachineNATSURL(t), Config{}, time.Now)
	want := map[string]bool{}
	for _, tn := range adversarial {
		for _, k := range adversarial {
			sc := Scope{Tenant: tn, Session: k + "!"}
			mustSet(t, s, sc, k, `1`, 0)
			want[sc.Tenant+"\xff"+sc.Session+"\xff"+k] = true
		}
	}
	lister, err := s.kv.ListKeys(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for stored := range lister.Keys() {
		sc, k, err := decodeStoredKey(stored)
		if err != nil {
			t.Fatal(err)
		}
		if !want[sc.Tenant+"\xff"+sc.Session+"\xff"+k] {
			t.Errorf("the bucket holds %q (%+v, %q), which nobody set", stored, sc, k)
		}
		got++
	}
	if got != len(want) {
		t.Errorf("the bucket holds %d keys, want %d", got, len(want))
	}
}

// OpenJetStream creates the bucket, leaves an existing one as it is without
// update, and applies the configuration with it.
func TestOpenJetStreamProvisions(t *testing.T) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			url := b.url(t)
			bucket := uniqueBucket(t)
			deleteBucketAtCleanup(t, url, bucket)
			_, js := testenv.JetStream(t, url)
			ctx := ctxT(t)
			status := func() jetstream.StreamConfig {
				t.Helper()
				kv, err := js.KeyValue(ctx, bucket)
				if err != nil {
					t.Fatal(err)
				}
				st, err := kv.Status(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config
			}
			first := Config{Bucket: bucket, TTL: time.Hour, MaxValueBytes: 1000}
			if _, err := OpenJetStream(ctx, js, first, false); err != nil {
				t.Fatal(err)
			}
			if c := status(); c.MaxAge != time.Hour || c.MaxMsgSize != 1000+messageOverhead || c.Storage != jetstream.FileStorage || c.MaxMsgsPerSubject != 1 {
				t.Fatalf("created bucket: max age %s, max msg size %d, storage %s, history %d", c.MaxAge, c.MaxMsgSize, c.Storage, c.MaxMsgsPerSubject)
			}
			second := Config{Bucket: bucket, TTL: 2 * time.Hour, MaxValueBytes: 2000}
			if _, err := OpenJetStream(ctx, js, second, false); err != nil {
				t.Fatal(err)
			}
			if c := status(); c.MaxAge != time.Hour {
				t.Fatalf("without update the bucket changed: max age %s", c.MaxAge)
			}
			if _, err := OpenJetStream(ctx, js, second, true); err != nil {
				t.Fatal(err)
			}
			if c := status(); c.MaxAge != 2*time.Hour || c.MaxMsgSize != 2000+messageOverhead {
				t.Fatalf("with update: max age %s, max msg size %d", c.MaxAge, c.MaxMsgSize)
			}
		})
	}
}

func TestOpenJetStreamRefusesWhatCannotWork(t *testing.T) {
	url := testenv.EmbeddedNATS(t).ClientURL()
	_, js := testenv.JetStream(t, url)
	ctx := ctxT(t)
	_, err := OpenJetStream(ctx, js, Config{Bucket: uniqueBucket(t), MaxValueBytes: MaxMaxValueBytes}, true)
	if err == nil || !strings.Contains(err.Error(), "KV_MAX_VALUE_BYTES") || !strings.Contains(err.Error(), "max_payload") {
		t.Errorf("a value cap over the broker's max payload: %v, want an error naming KV_MAX_VALUE_BYTES and max_payload", err)
	}
	_, err = OpenJetStream(ctx, js, Config{Bucket: "no spaces"}, true)
	if err == nil || !strings.Contains(err.Error(), "KV_BUCKET") {
		t.Errorf("a bad bucket name: %v, want an error naming KV_BUCKET", err)
	}
	// A context that ended: the error says provisioning failed.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := OpenJetStream(cctx, js, Config{Bucket: uniqueBucket(t)}, true); err == nil || !strings.Contains(err.Error(), "provisioning kv bucket") {
		t.Errorf("a cancelled context: %v, want a provisioning error", err)
	}
}

// A delete removes the entry's message, so the scope's count (what the
// broker says it holds) goes down at once, and a lazily expired entry goes
// too: the count stays cheap and exact for one writer.
func TestJetStreamDeletesLeaveNothingToCount(t *testing.T) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			c := &clock{}
			s := openTestBucket(t, b.url(t), Config{}, c.now)
			sc := Scope{Tenant: "t", Session: "s"}
			count := func() int {
				t.Helper()
				keys, _, err := s.keys(ctxT(t), sc)
				if err != nil {
					t.Fatal(err)
				}
				return len(keys)
			}
			mustSet(t, s, sc, "a", `1`, 0)
			mustSet(t, s, sc, "b", `1`, time.Minute)
			mustSet(t, s, Scope{Tenant: "t", Session: "s2"}, "a", `1`, 0)
			if n := count(); n != 2 {
				t.Fatalf("the scope counts %d keys, want 2", n)
			}
			if err := s.Delete(ctxT(t), sc, "a"); err != nil {
				t.Fatal(err)
			}
			if n := count(); n != 1 {
				t.Fatalf("after a delete the scope counts %d keys, want 1", n)
			}
			c.advance(2 * time.Minute)
			wantAbsent(t, s, sc, "b")
			if n := count(); n != 0 {
				t.Fatalf("after reading an expired key the scope counts %d keys, want 0", n)
			}
		})
	}
}

// The longest stored key (scope parts and key at their caps, each byte
// escaped by base64) is a subject both brokers take: set, get, count and
// delete work.
func TestJetStreamLongestKeys(t *testing.T) {
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			s := openTestBucket(t, b.url(t), Config{MaxKeyBytes: MaxMaxKeyBytes}, time.Now)
			sc := Scope{Tenant: strings.Repeat("\xff", MaxScopePartBytes), Session: strings.Repeat("ç", MaxScopePartBytes/2)}
			key := strings.Repeat("🙂", MaxMaxKeyBytes/4)
			mustSet(t, s, sc, key, `1`, 0)
			wantValue(t, s, sc, key, `1`)
			mustSet(t, s, sc, "another", `2`, 0) // counts the scope
			if err := s.Delete(ctxT(t), sc, key); err != nil {
				t.Fatal(err)
			}
			wantAbsent(t, s, sc, key)
		})
	}
}
