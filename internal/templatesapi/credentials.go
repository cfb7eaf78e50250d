package templatesapi

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Role is what a credential may do. Write includes read.
type Role int

const (
	// RoleNone: authenticated, but granted neither scope (403 everywhere).
	RoleNone Role = iota
	// RoleRead may list and get templates and read the OpenAPI document.
	RoleRead
	// RoleWrite may also create, update and delete templates and run
	// tests (a test run executes code and may call granted host
	// functions: it is authoring, not reading).
	RoleWrite
)

func (r Role) String() string {
	switch r {
	case RoleRead:
		return "read"
	case RoleWrite:
		return "write"
	}
	return "none"
}

// allows tells whether r may do what need requires.
func (r Role) allows(need Role) bool { return r >= need }

// apiKey is one AUTH_API_KEYS entry.
type apiKey struct {
	key  string
	role Role
}

// parseAPIKey reads "key", "key:read" or "key:write". Only a final
// ":read" or ":write" is a role, so keys that contain colons keep working;
// a bare key may write, as every key could before roles existed.
func parseAPIKey(entry string) (apiKey, error) {
	k := apiKey{key: entry, role: RoleWrite}
	if i := strings.LastIndexByte(entry, ':'); i >= 0 {
		switch entry[i+1:] {
		case "read":
			k = apiKey{key: entry[:i], role: RoleRead}
		case "write":
			k = apiKey{key: entry[:i], role: RoleWrite}
		}
	}
	if len(k.key) < MinAPIKeyLength {
		return k, fmt.Errorf("the key is %d characters; each key must be at least %d", len(k.key), MinAPIKeyLength)
	}
	if bits := EstimatedEntropyBits(k.key); bits < MinAPIKeyBits {
		return k, fmt.Errorf("the key looks guessable (about %.0f bits of entropy, at least %d required): generate one with `openssl rand -hex 24`", bits, MinAPIKeyBits)
	}
	if strings.ContainsAny(k.key, " \t\r\n") {
		return k, errors.New("the key contains white space, which a header cannot carry intact")
	}
	return k, nil
}

// EstimatedEntropyBits estimates the entropy of a secret as its length
// times the Shannon entropy of its byte frequencies. It is an upper bound
// for a random secret and catches repetition ("aaaa…", "changeme…"), tiny
// alphabets and short words; it cannot tell a random string from a
// memorable one with many distinct characters.
func EstimatedEntropyBits(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h * n
}
