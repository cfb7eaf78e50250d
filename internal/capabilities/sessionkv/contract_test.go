package sessionkv

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStoreContract runs the one suite every Store passes: the memory
// store, and the JetStream store on the module's nats-server and on the
// machine's NATS 2.9.
func TestStoreContract(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { runContract(t, b.open) })
	}
}

func runContract(t *testing.T, open func(t *testing.T, cfg Config, now func() time.Time) Store) {
	t.Run("round trip", func(t *testing.T) { contractRoundTrip(t, open(t, Config{}, time.Now)) })
	t.Run("scopes never meet", func(t *testing.T) { contractIsolation(t, open(t, Config{MaxKeysPerScope: 3}, time.Now)) })
	t.Run("limits", func(t *testing.T) { contractLimits(t, open(t, Config{MaxKeyBytes: 8, MaxValueBytes: 16}, time.Now)) })
	t.Run("keys per scope", func(t *testing.T) {
		c := &clock{}
		contractKeysPerScope(t, open(t, Config{MaxKeysPerScope: 2}, c.now), c)
	})
	t.Run("ttl", func(t *testing.T) {
		c := &clock{}
		contractTTL(t, open(t, Config{TTL: 24 * time.Hour}, c.now), c)
	})
	t.Run("concurrent writers", func(t *testing.T) { contractConcurrent(t, open(t, Config{MaxKeysPerScope: 50}, time.Now)) })
	t.Run("concurrent writers at the cap", func(t *testing.T) {
		contractConcurrentAtTheCap(t, open(t, Config{MaxKeysPerScope: 4}, time.Now))
	})
}

func mustGet(t *testing.T, s Store, sc Scope, key string) (string, bool) {
	t.Helper()
	v, found, err := s.Get(ctxT(t), sc, key)
	if err != nil {
		t.Fatalf("Get(%+v, %q): %v", sc, key, err)
	}
	return string(v), found
}

func mustSet(t *testing.T, s Store, sc Scope, key, value string, ttl time.Duration) {
	t.Helper()
	if err := s.Set(ctxT(t), sc, key, json.RawMessage(value), ttl); err != nil {
		t.Fatalf("Set(%+v, %q, %s, %s): %v", sc, key, value, ttl, err)
	}
}

func wantValue(t *testing.T, s Store, sc Scope, key, want string) {
	t.Helper()
	got, found := mustGet(t, s, sc, key)
	if !found || got != want {
		t.Fatalf("Get(%+v, %q) = %s (found %v), want %s", sc, key, got, found, want)
	}
}

func wantAbsent(t *testing.T, s Store, sc Scope, key string) {
	t.Helper()
	if got, found := mustGet(t, s, sc, key); found {
		t.Fatalf("Get(%+v, %q) = %s, want absent", sc, key, got)
	}
}

func contractRoundTrip(t *testing.T, s Store) {
	sc := Scope{Tenant: "acme", Session: "s-1"}
	wantAbsent(t, s, sc, "never")
	// Values come back byte for byte: spacing, escapes, HTML characters.
	for i, v := range []string{
		`1`, `"texto"`, `null`, `true`, ` { "a" : [1, 2.50, "<b>&amp;</b>"] } `, `"ção \u00e7 \n"`, `[]`, `{"nested":{"x":{"y":[{}]}}}`,
	} {
		key := fmt.Sprintf("k%d", i)
		mustSet(t, s, sc, key, v, 0)
		wantValue(t, s, sc, key, v)
	}
	mustSet(t, s, sc, "k0", `2`, 0) // overwrite
	wantValue(t, s, sc, "k0", `2`)
	if err := s.Delete(ctxT(t), sc, "k0"); err != nil {
		t.Fatal(err)
	}
	wantAbsent(t, s, sc, "k0")
	if err := s.Delete(ctxT(t), sc, "k0"); err != nil {
		t.Fatalf("deleting an absent key: %v", err)
	}
	if err := s.Delete(ctxT(t), sc, "never-set"); err != nil {
		t.Fatalf("deleting a key never set: %v", err)
	}
	mustSet(t, s, sc, "k0", `3`, 0) // set after delete
	wantValue(t, s, sc, "k0", `3`)

	// The value returned is the caller's to change.
	v, _, err := s.Get(ctxT(t), sc, "k1")
	if err != nil {
		t.Fatal(err)
	}
	v[0] = 'X'
	wantValue(t, s, sc, "k1", `"texto"`)
}

// adversarial parts: separators and wildcards of subjects, base64's own
// padding, the encoding's letters, unicode, the empty string.
var adversarial = []string{"", "a", "a.b", "a.*", ">", "*", "=", "a=", "ção", "t", ".s", "YQ", "a b", "\x00", "🙂"}

func contractIsolation(t *testing.T, s Store) {
	tenants := adversarial[:8]
	sessions := []string{"", "a", "a.b", ">", "=", "s", "ção", "YQ"}
	keys := []string{"", "a", "a.b", ".", "*", ">", "k", "ção", "a.s.k", "\x00"}
	value := func(tn, ss, k string) string {
		b, _ := json.Marshal([]string{tn, ss, k})
		return string(b)
	}
	// The cap is 3 keys per scope: set three keys in every scope, and the
	// fourth of each still fits nowhere else.
	for _, tn := range tenants {
		for _, ss := range sessions {
			for _, k := range keys[:3] {
				mustSet(t, s, Scope{tn, ss}, k, value(tn, ss, k), 0)
			}
		}
	}
	for _, tn := range tenants {
		for _, ss := range sessions {
			sc := Scope{tn, ss}
			for _, k := range keys[:3] {
				wantValue(t, s, sc, k, value(tn, ss, k))
			}
			for _, k := range keys[3:] {
				wantAbsent(t, s, sc, k)
			}
			_, isLimit := limitEnv(s.Set(ctxT(t), sc, keys[3], json.RawMessage(`1`), 0))
			if !isLimit {
				t.Fatalf("scope %+v holds 3 keys: a fourth must be refused, whatever the other scopes hold", sc)
			}
		}
	}
	// Deleting in one scope leaves every other alone.
	victim := Scope{"a", "a.b"}
	for _, k := range keys[:3] {
		if err := s.Delete(ctxT(t), victim, k); err != nil {
			t.Fatal(err)
		}
	}
	for _, tn := range tenants {
		for _, ss := range sessions {
			sc := Scope{tn, ss}
			for _, k := range keys[:3] {
				if sc == victim {
					wantAbsent(t, s, sc, k)
				} else {
					wantValue(t, s, sc, k, value(tn, ss, k))
				}
			}
		}
	}
	// The emptied scope has room for three new keys, no more.
	for _, k := range keys[3:6] {
		mustSet(t, s, victim, k, `0`, 0)
	}
	if _, isLimit := limitEnv(s.Set(ctxT(t), victim, keys[6], json.RawMessage(`1`), 0)); !isLimit {
		t.Fatal("the victim scope holds 3 new keys: a fourth must be refused")
	}
}

func contractLimits(t *testing.T, s Store) {
	sc := Scope{Tenant: "t", Session: "s"}
	ctx := ctxT(t)
	// MaxKeyBytes 8, MaxValueBytes 16.
	mustSet(t, s, sc, "12345678", `"at the cap...."`, 0) // 8 bytes, 16 bytes
	wantValue(t, s, sc, "12345678", `"at the cap...."`)
	mustSet(t, s, sc, "çççç", `1`, 0) // 8 bytes of UTF-8
	tests := []struct {
		name    string
		call    func() error
		env     string
		message string
	}{
		{"key too long to set", func() error { return s.Set(ctx, sc, "123456789", json.RawMessage(`1`), 0) }, "KV_MAX_KEY_BYTES", "9 bytes, over the 8-byte limit"},
		{"key too long to get", func() error { _, _, err := s.Get(ctx, sc, "ççççç"); return err }, "KV_MAX_KEY_BYTES", "10 bytes"},
		{"key too long to delete", func() error { return s.Delete(ctx, sc, strings.Repeat("k", 100)) }, "KV_MAX_KEY_BYTES", "100 bytes"},
		{"key not UTF-8", func() error { return s.Set(ctx, sc, "a\xffb", json.RawMessage(`1`), 0) }, "", "not valid UTF-8"},
		{"value too large", func() error { return s.Set(ctx, sc, "v", json.RawMessage(`"over the cap...."`), 0) }, "KV_MAX_VALUE_BYTES", "18 bytes of JSON, over the 16-byte limit"},
		{"negative ttl", func() error { return s.Set(ctx, sc, "v", json.RawMessage(`1`), -time.Second) }, "", "must not be negative"},
	}
	for _, tt := range tests {
		err := tt.call()
		env, isLimit := limitEnv(err)
		if !isLimit || env != tt.env || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("%s: error %v (limit %v, env %q), want a LimitError naming %q with %q", tt.name, err, isLimit, env, tt.env, tt.message)
		}
		if isLimit && tt.env != "" && !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%s: message %q does not name %s", tt.name, err, tt.env)
		}
	}
	wantAbsent(t, s, sc, "v")
	// The host's mistakes are not the script's.
	_, _, getErr := s.Get(ctx, Scope{Session: strings.Repeat("s", MaxScopePartBytes+1)}, "v")
	for name, err := range map[string]error{
		"value not JSON":   s.Set(ctx, sc, "v", json.RawMessage(`{`), 0),
		"tenant too long":  s.Set(ctx, Scope{Tenant: strings.Repeat("t", MaxScopePartBytes+1)}, "v", json.RawMessage(`1`), 0),
		"session too long": getErr,
	} {
		if _, isLimit := limitEnv(err); err == nil || isLimit {
			t.Errorf("%s: error %v, want an error that is not a LimitError", name, err)
		}
	}
	atCap := Scope{Tenant: strings.Repeat("t", MaxScopePartBytes), Session: strings.Repeat("ç", MaxScopePartBytes/2)}
	mustSet(t, s, atCap, "12345678", `"at the cap...."`, 0)
	wantValue(t, s, atCap, "12345678", `"at the cap...."`)
}

func contractKeysPerScope(t *testing.T, s Store, c *clock) {
	sc := Scope{Tenant: "t", Session: "s"}
	ctx := ctxT(t)
	mustSet(t, s, sc, "short", `1`, time.Minute)
	mustSet(t, s, sc, "b", `2`, 0)
	err := s.Set(ctx, sc, "c", json.RawMessage(`3`), 0)
	if env, isLimit := limitEnv(err); !isLimit || env != "KV_MAX_KEYS" || !strings.Contains(err.Error(), "holds 2 kv keys") {
		t.Fatalf("a third key: %v, want a LimitError naming KV_MAX_KEYS", err)
	}
	mustSet(t, s, sc, "b", `22`, 0) // overwriting is always allowed
	wantValue(t, s, sc, "b", `22`)
	wantAbsent(t, s, sc, "c")
	// A key past its own ttl no longer counts, even before anyone reads it.
	c.advance(2 * time.Minute)
	mustSet(t, s, sc, "c", `3`, 0)
	wantAbsent(t, s, sc, "short")
	// A deleted key no longer counts.
	if err := s.Set(ctx, sc, "d", json.RawMessage(`4`), 0); err == nil {
		t.Fatal("a third live key was accepted")
	}
	if err := s.Delete(ctx, sc, "b"); err != nil {
		t.Fatal(err)
	}
	mustSet(t, s, sc, "d", `4`, 0)
	wantValue(t, s, sc, "c", `3`)
	wantValue(t, s, sc, "d", `4`)
}

func contractTTL(t *testing.T, s Store, c *clock) {
	sc := Scope{Tenant: "t", Session: "s"}
	mustSet(t, s, sc, "hour", `1`, time.Hour)
	mustSet(t, s, sc, "bucket", `2`, 0)
	mustSet(t, s, sc, "capped", `3`, 1000*time.Hour)
	mustSet(t, s, sc, "tiny", `4`, time.Nanosecond) // rounded up to 1 ms, not forever
	c.advance(59 * time.Minute)
	wantValue(t, s, sc, "hour", `1`)
	wantAbsent(t, s, sc, "tiny")
	c.advance(2 * time.Minute)
	wantAbsent(t, s, sc, "hour")
	wantValue(t, s, sc, "bucket", `2`)
	wantValue(t, s, sc, "capped", `3`)
	mustSet(t, s, sc, "hour", `5`, time.Hour) // a set after expiry starts afresh
	c.advance(23 * time.Hour)                 // 24h01m after the first sets
	wantAbsent(t, s, sc, "bucket")
	wantAbsent(t, s, sc, "capped")
	wantAbsent(t, s, sc, "hour")
	// An overwrite restarts the ttl.
	mustSet(t, s, sc, "again", `1`, time.Hour)
	c.advance(50 * time.Minute)
	mustSet(t, s, sc, "again", `2`, time.Hour)
	c.advance(50 * time.Minute)
	wantValue(t, s, sc, "again", `2`)
}

// contractConcurrent: many writers of one session at once, to the same key
// and to new keys; every call succeeds and the last value is one of theirs.
func contractConcurrent(t *testing.T, s Store) {
	sc := Scope{Tenant: "t", Session: "s"}
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Go(func() {
			errs <- s.Set(ctx, sc, "same", json.RawMessage(fmt.Sprint(i)), 0)
			errs <- s.Set(ctx, sc, fmt.Sprintf("own-%d", i), json.RawMessage(`1`), 0)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, found := mustGet(t, s, sc, "same")
	if !found {
		t.Fatal("the key every writer set is absent")
	}
	var n int
	if err := json.Unmarshal([]byte(got), &n); err != nil || n < 0 || n >= 20 {
		t.Fatalf("the last value %q is none of the writers'", got)
	}
	for i := range 20 {
		wantValue(t, s, sc, fmt.Sprintf("own-%d", i), `1`)
	}
}

// contractConcurrentAtTheCap: writers of one session that set new keys at
// the same moment never leave it holding more than the cap. Each round
// fills the scope to one key under the cap and lets eight writers race for
// the last place: at most one wins, every loser gets the KV_MAX_KEYS error
// and leaves no key behind. (Before, each writer's count could miss the
// others' keys, and a session of 4 ended a round with up to 11.)
func contractConcurrentAtTheCap(t *testing.T, s Store) {
	ctx := ctxT(t)
	for round := range 6 {
		sc := Scope{Tenant: "t", Session: fmt.Sprint("cap-", round)}
		for i := range 3 {
			mustSet(t, s, sc, fmt.Sprint("old-", i), `1`, 0)
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { errs[i] = s.Set(ctx, sc, fmt.Sprint("new-", i), json.RawMessage(`2`), 0) })
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			key := fmt.Sprint("new-", i)
			if err == nil {
				won++
				wantValue(t, s, sc, key, `2`)
				continue
			}
			if env, isLimit := limitEnv(err); !isLimit || env != "KV_MAX_KEYS" {
				t.Fatalf("round %d: writer %d: %v, want nil or a LimitError naming KV_MAX_KEYS", round, i, err)
			}
			wantAbsent(t, s, sc, key)
		}
		if won > 1 {
			t.Fatalf("round %d: %d of 8 racing writers set a new key into a session one key under its cap of 4", round, won)
		}
		// The place the race left (if every writer lost) is still there.
		if won == 0 {
			mustSet(t, s, sc, "after", `3`, 0)
		}
		if err := s.Set(ctx, sc, "one-too-many", json.RawMessage(`4`), 0); err == nil {
			t.Fatalf("round %d: a fifth key was set", round)
		}
	}
}
