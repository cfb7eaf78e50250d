package sessionkv

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAreValid(t *testing.T) {
	c := Config{}.WithDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Config{Bucket: "FLOWSCRIPT_KV", TTL: 24 * time.Hour, MaxValueBytes: 64 << 10, MaxKeyBytes: 256, MaxKeysPerScope: 100, Replicas: 1}
	if c != want {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	if c.StreamName() != "KV_FLOWSCRIPT_KV" {
		t.Errorf("stream name %q", c.StreamName())
	}
}

func TestConfigValidateNamesEveryVariable(t *testing.T) {
	bad := Config{Bucket: "a.b", TTL: time.Millisecond, MaxValueBytes: -1, MaxKeyBytes: MaxMaxKeyBytes + 1,
		MaxKeysPerScope: MaxMaxKeysPerScope + 1, Replicas: 6}
	err := bad.Validate()
	if err == nil {
		t.Fatal("a config with every field out of range passed")
	}
	for _, env := range []string{"KV_BUCKET", "KV_TTL", "KV_MAX_VALUE_BYTES", "KV_MAX_KEY_BYTES", "KV_MAX_KEYS", "STREAM_REPLICAS"} {
		if !strings.Contains(err.Error(), env) {
			t.Errorf("Validate's error does not name %s:\n%v", env, err)
		}
	}
	for _, ok := range []Config{
		{Bucket: "b", TTL: MinTTL, MaxValueBytes: 1, MaxKeyBytes: 1, MaxKeysPerScope: 1, Replicas: 1},
		{Bucket: strings.Repeat("B", 64), TTL: 1000 * time.Hour, MaxValueBytes: MaxMaxValueBytes, MaxKeyBytes: MaxMaxKeyBytes, MaxKeysPerScope: MaxMaxKeysPerScope, Replicas: 5},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestNewMemoryPanicsOnAnInvalidConfig(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "KV_TTL") {
			t.Errorf("recovered %v, want a panic naming KV_TTL", r)
		}
	}()
	NewMemory(Config{TTL: time.Millisecond})
}

// The memory store drops expired entries of every scope, not only those
// read, so a long-lived one holds at most what was set within the TTL.
func TestMemorySweepsExpiredEntries(t *testing.T) {
	c := &clock{}
	m := newMemory(Config{TTL: time.Hour}, c.now)
	for _, s := range adversarial {
		mustSet(t, m, Scope{Tenant: s}, "k", `1`, 0)
	}
	c.advance(2 * time.Hour)
	mustSet(t, m, Scope{Tenant: "new"}, "k", `1`, 0)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.scopes) != 1 {
		t.Errorf("the memory store holds %d scopes after the sweep, want 1", len(m.scopes))
	}
}
