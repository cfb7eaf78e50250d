package sessionkv

import (
	"regexp"
	"strings"
	"testing"
)

// kvKey is the broker's rule for a key (nats.go's keyValid).
var kvKey = regexp.MustCompile(`^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$`)

// matches is NATS subject matching: '*' is one token, '>' the rest.
func matches(filter, subject string) bool {
	f, s := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, tok := range f {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || tok != "*" && tok != s[i] {
			return false
		}
	}
	return len(f) == len(s)
}

func TestStoredKeysAreValidAndOneToOne(t *testing.T) {
	seen := map[string]string{}
	for _, tn := range adversarial {
		for _, ss := range adversarial {
			for _, k := range adversarial {
				sc := Scope{Tenant: tn, Session: ss}
				stored := sc.storedKey(k)
				if !kvKey.MatchString(stored) {
					t.Fatalf("storedKey(%+v, %q) = %q is not a valid KV key", sc, k, stored)
				}
				id := tn + "\xff" + ss + "\xff" + k
				if prev, dup := seen[stored]; dup {
					t.Fatalf("%q and %q share the stored key %q", prev, id, stored)
				}
				seen[stored] = id
				if !matches(sc.filter(), stored) {
					t.Fatalf("the filter of %+v does not match its own key %q", sc, stored)
				}
			}
		}
	}
	// A scope's filter matches no key of any other scope.
	for _, tn := range adversarial {
		for _, ss := range adversarial {
			sc := Scope{Tenant: tn, Session: ss}
			for stored, id := range seen {
				parts := strings.SplitN(id, "\xff", 3)
				own := parts[0] == tn && parts[1] == ss
				if matches(sc.filter(), stored) != own {
					t.Fatalf("the filter %q of %+v and the key %q of %q: match %v", sc.filter(), sc, stored, id, !own)
				}
			}
		}
	}
}

func FuzzStoredKey(f *testing.F) {
	for _, s := range adversarial {
		f.Add(s, s+".", "."+s)
	}
	f.Fuzz(func(t *testing.T, tenant, session, key string) {
		sc := Scope{Tenant: tenant, Session: session}
		stored := sc.storedKey(key)
		if !kvKey.MatchString(stored) {
			t.Fatalf("storedKey(%+v, %q) = %q is not a valid KV key", sc, key, stored)
		}
		if !matches(sc.filter(), stored) {
			t.Fatalf("the filter %q does not match %q", sc.filter(), stored)
		}
		back, k, err := decodeStoredKey(stored)
		if err != nil || back != sc || k != key {
			t.Fatalf("decodeStoredKey(%q) = %+v, %q, %v; want %+v, %q", stored, back, k, err, sc, key)
		}
	})
}

func TestEnvelopeRoundTrip(t *testing.T) {
	for _, v := range []string{`1`, ` {"v":"}"} `, `"{\"e\":1,\"v\":2}"`, `[]`} {
		e, ok := decodeEnvelope(encodeEnvelope([]byte(v), timeAt(1_700_000_000_123)))
		if !ok || string(e.Value) != v || e.Expires.UnixMilli() != 1_700_000_000_123 {
			t.Errorf("round trip of %s: %s, %v, %v", v, e.Value, e.Expires.UnixMilli(), ok)
		}
	}
}
