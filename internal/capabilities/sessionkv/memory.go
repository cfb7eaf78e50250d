package sessionkv

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// NewMemory returns a store that keeps everything in this process, by the
// same rules as the JetStream store (caps, ttl, scopes): the templates
// API's test route and `flowscript run` use it, where nothing may persist.
// Entries past their ttl are dropped when read, and every expired entry at
// most once a minute on a set, so a long-lived memory store holds at most
// what was set within the bucket TTL. cfg gets its defaults; an invalid cfg
// panics (validate it first).
func NewMemory(cfg Config) Store {
	return newMemory(cfg, time.Now)
}

func newMemory(cfg Config, now func() time.Time) *memoryStore {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic("sessionkv.NewMemory: " + err.Error())
	}
	return &memoryStore{cfg: cfg, now: now, scopes: map[Scope]map[string]memoryEntry{}}
}

type memoryStore struct {
	cfg Config
	now func() time.Time

	mu        sync.Mutex
	scopes    map[Scope]map[string]memoryEntry
	lastSweep time.Time
}

type memoryEntry struct {
	value   json.RawMessage
	expires time.Time
}

// memorySweepEvery is how often a set drops every expired entry.
const memorySweepEvery = time.Minute

func (m *memoryStore) Get(_ context.Context, s Scope, key string) (json.RawMessage, bool, error) {
	if err := checkCall(m.cfg, s, key); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.live(s, key)
	if !ok {
		return nil, false, nil
	}
	return slices.Clone(e.value), true, nil
}

func (m *memoryStore) Set(_ context.Context, s Scope, key string, value json.RawMessage, ttl time.Duration) error {
	if err := checkCall(m.cfg, s, key); err != nil {
		return err
	}
	if err := checkValue(m.cfg, value); err != nil {
		return err
	}
	ttl, err := effectiveTTL(m.cfg, ttl)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if _, ok := m.live(s, key); !ok && m.count(s, now) >= m.cfg.MaxKeysPerScope {
		return tooManyKeys(m.cfg)
	}
	keys := m.scopes[s]
	if keys == nil {
		keys = map[string]memoryEntry{}
		m.scopes[s] = keys
	}
	keys[key] = memoryEntry{value: slices.Clone(value), expires: now.Add(ttl)}
	return nil
}

func (m *memoryStore) Delete(_ context.Context, s Scope, key string) error {
	if err := checkCall(m.cfg, s, key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.remove(s, key)
	return nil
}

// live returns key's entry when it has not expired, dropping it when it
// has. The caller holds mu.
func (m *memoryStore) live(s Scope, key string) (memoryEntry, bool) {
	e, ok := m.scopes[s][key]
	if !ok {
		return memoryEntry{}, false
	}
	if !live(e.expires, m.now()) {
		m.remove(s, key)
		return memoryEntry{}, false
	}
	return e, true
}

// count is the number of live keys of s. The caller holds mu.
func (m *memoryStore) count(s Scope, now time.Time) int {
	n := 0
	for _, e := range m.scopes[s] {
		if live(e.expires, now) {
			n++
		}
	}
	return n
}

func (m *memoryStore) remove(s Scope, key string) {
	keys := m.scopes[s]
	delete(keys, key)
	if len(keys) == 0 {
		delete(m.scopes, s)
	}
}

// sweep drops every expired entry, at most once per memorySweepEvery. The
// caller holds mu.
func (m *memoryStore) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < memorySweepEvery {
		return
	}
	m.lastSweep = now
	for s, keys := range m.scopes {
		for k, e := range keys {
			if !live(e.expires, now) {
				delete(keys, k)
			}
		}
		if len(keys) == 0 {
			delete(m.scopes, s)
		}
	}
}
