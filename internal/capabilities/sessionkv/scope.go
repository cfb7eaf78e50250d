package sessionkv

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Scope is whose keys these are: one session of one tenant. Another session
// or tenant can never read, write or list them.
type Scope struct{ Tenant, Session string }

// MaxScopePartBytes caps a scope's tenant and session: a job's sessionId is
// at most as long (flowjob.MaxRefBytes), and both become part of a subject.
const MaxScopePartBytes = 256

// check refuses a scope the host should never build. It is the host's
// mistake, not the script's: a plain error, never a LimitError.
func (s Scope) check() error {
	if len(s.Tenant) > MaxScopePartBytes {
		return fmt.Errorf("kv scope: the tenant id is %d bytes, over the %d-byte limit", len(s.Tenant), MaxScopePartBytes)
	}
	if len(s.Session) > MaxScopePartBytes {
		return fmt.Errorf("kv scope: the session id is %d bytes, over the %d-byte limit", len(s.Session), MaxScopePartBytes)
	}
	return nil
}

// The stored key of (scope, key) is three subject tokens,
//
//	t<tenant>.s<session>.k<key>
//
// each part in unpadded base64url after its letter. The alphabet has no '.',
// '*', '>' or space, so every part is exactly one token whatever it holds
// (an empty part is the bare letter), the encoding is one-to-one, and a
// scope is a subject prefix: "t<tenant>.s<session>.*" filters exactly its
// keys and nothing else's.
var enc = base64.RawURLEncoding

// prefix is the scope's first two tokens, without the trailing dot.
func (s Scope) prefix() string {
	var b strings.Builder
	b.Grow(4 + enc.EncodedLen(len(s.Tenant)) + enc.EncodedLen(len(s.Session)))
	b.WriteByte('t')
	b.WriteString(enc.EncodeToString([]byte(s.Tenant)))
	b.WriteString(".s")
	b.WriteString(enc.EncodeToString([]byte(s.Session)))
	return b.String()
}

// filter matches every key of the scope.
func (s Scope) filter() string { return s.prefix() + ".*" }

// storedKey is the bucket key of key in s.
func (s Scope) storedKey(key string) string {
	return s.prefix() + ".k" + enc.EncodeToString([]byte(key))
}

// decodeStoredKey is storedKey's inverse: for tests and operators.
func decodeStoredKey(stored string) (Scope, string, error) {
	parts := strings.Split(stored, ".")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], "t") || !strings.HasPrefix(parts[1], "s") || !strings.HasPrefix(parts[2], "k") {
		return Scope{}, "", fmt.Errorf("decoding kv key %q: not t<tenant>.s<session>.k<key>", stored)
	}
	var out [3]string
	for i, p := range parts {
		b, err := enc.DecodeString(p[1:])
		if err != nil {
			return Scope{}, "", fmt.Errorf("decoding kv key %q: %w", stored, err)
		}
		out[i] = string(b)
	}
	return Scope{Tenant: out[0], Session: out[1]}, out[2], nil
}
