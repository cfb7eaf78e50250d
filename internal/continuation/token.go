// Package continuation keeps what a suspended job needs to resume (DESIGN.md
// §10): a signed token that names the run's journal, the job and its
// source, and the journals themselves, in a JetStream key-value bucket with
// a time to live.
//
// A token is base64url(claims) "." base64url(HMAC-SHA256(key, the first
// part)). It is not encrypted: it holds ids and a hash, never session data
// (the journal, which may, stays in the bucket). A token verifies with the
// current key or, while keys rotate, with the previous one.
//
// A continuation resumes once: the first resume job claims it (a create of
// the claim key, atomic in the bucket), and a redelivery of that same job
// may claim it again; any other job gets ErrUsed.
package continuation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flowscript/flowscript/flowjob"
)

// MinKeyBytes is the shortest key a Signer accepts: 256 bits, the size of
// the HMAC-SHA256 digest.
const MinKeyBytes = 32

// CheckKey refuses a key of MinKeyBytes or more that is a pattern, not a
// secret: fewer than 5 different bytes, or a run repeated over its whole
// length (a character, or a word such as "changeme", written again and
// again). Such a key is guessed in no time whatever its length; a random
// one (hex, decimal, base64, a passphrase) never looks like that.
func CheckKey(key []byte) error {
	if len(key) < MinKeyBytes {
		return fmt.Errorf("it is %d bytes; it needs at least %d (e.g. openssl rand -base64 48)", len(key), MinKeyBytes)
	}
	if n := distinctBytes(key); n < 5 {
		return fmt.Errorf("it holds only %d different characters: a placeholder, not a secret; generate one (e.g. openssl rand -base64 48)", n)
	}
	if p := period(key); p > 0 {
		return fmt.Errorf("it repeats %q over its %d bytes: a placeholder, not a secret; generate one (e.g. openssl rand -base64 48)", key[:p], len(key))
	}
	return nil
}

// distinctBytes counts the different bytes of b.
func distinctBytes(b []byte) int {
	var seen [256]bool
	n := 0
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n
}

// period is the length of the shortest run b repeats over its whole
// length at least twice (b[i] == b[i%p] for every i), or 0 if none.
func period(b []byte) int {
	for p := 1; p <= len(b)/2; p++ {
		repeats := true
		for i := p; i < len(b); i++ {
			if b[i] != b[i%p] {
				repeats = false
				break
			}
		}
		if repeats {
			return p
		}
	}
	return 0
}

// tokenVersion is the version of the claims' layout.
const tokenVersion = 1

// Claims are what a token names: the journal of the suspended run, the
// job that suspended, the step it belongs to, its source's SHA-256 and
// when it expires.
type Claims struct {
	Version int `json:"v"`
	// Journal is the journal's key in the bucket.
	Journal string `json:"journal"`
	// JobID is the id of the job that suspended.
	JobID string `json:"job"`
	// The step: a resume job must name the same.
	TenantID  string `json:"tenant,omitempty"`
	SessionID string `json:"session"`
	FlowID    string `json:"flow"`
	BlockID   string `json:"block"`
	Context   string `json:"context"`
	// SourceSHA256 is the hex SHA-256 of the suspended job's source.
	SourceSHA256 string `json:"sourceSha256"`
	// InputsSHA256 is InputsSum of the inputs the suspended run got (its
	// inputVariables, interpolated): the replay must get the same. Empty
	// in tokens signed before it was kept: not checked.
	InputsSHA256 string `json:"inputsSha256,omitempty"`
	// Grants are the capabilities the suspended run was granted, sorted:
	// the replay must be granted the same (CheckGrants). Empty in tokens
	// signed before they were kept: not checked.
	Grants []string `json:"grants,omitempty"`
	// Expires is when the token (and the journal) stop being usable, in
	// Unix seconds.
	Expires int64 `json:"exp"`
}

// ClaimsFor are the claims of a suspension of job, whose run got inputs
// (InputsSum), its journal stored under journal, usable until expires.
func ClaimsFor(job *flowjob.Job, inputs string, journal string, expires time.Time) Claims {
	return Claims{
		Version:      tokenVersion,
		Journal:      journal,
		JobID:        job.ID,
		TenantID:     job.TenantID,
		SessionID:    job.SessionID,
		FlowID:       job.FlowID,
		BlockID:      job.BlockID,
		Context:      string(job.Context),
		SourceSHA256: SourceSum(job.Action.Source),
		InputsSHA256: inputs,
		Expires:      expires.Unix(),
	}
}

// CheckGrants checks that a resume run is granted the capabilities the
// suspended run was (its job's capabilities, and the policy for its
// tenant): a replay with other grants would find a recorded host call
// refused, or take another branch on capabilities, after the continuation
// was claimed. It is a CAPABILITY_DENIED refusal made before the claim, so
// that the continuation can still be used once the grants are mended.
func (c Claims) CheckGrants(granted []string) error {
	if len(c.Grants) == 0 {
		return nil
	}
	now := slices.Sorted(slices.Values(granted))
	if slices.Equal(now, c.Grants) {
		return nil
	}
	return &Error{Code: flowjob.CodeCapabilityDenied, Message: fmt.Sprintf(
		"the resume job is granted %s, but job %s suspended with %s, and a replay needs the same grants: "+
			"the continuation was not used; resume again with the suspended job's capabilities, once the policy for its tenant grants them",
		listOf(now), c.JobID, listOf(c.Grants))}
}

// listOf writes capability names as [a, b], or "nothing".
func listOf(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// InputsSum is the hex SHA-256 of a run's inputs, as name and value pairs
// in order, each string prefixed by its length.
func InputsSum(names, values []string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for i, name := range names {
		for _, s := range []string{name, values[i]} {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
			h.Write([]byte(s))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SourceSum is the hex SHA-256 of a script's source.
func SourceSum(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}

// Error is why a resume job cannot use its continuation; Code is one of
// flowjob's continuation codes and Message is for the engine's author.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func invalid(format string, args ...any) *Error {
	return &Error{Code: flowjob.CodeInvalidContinuation, Message: fmt.Sprintf(format, args...)}
}

// AsError returns the *Error in err's chain, nil when none.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Signer signs and verifies tokens.
type Signer struct {
	key      []byte
	previous []byte // nil: no rotation under way
}

// NewSigner returns a signer with key, and previous (nil or empty: none)
// also accepted when verifying, so that a key can rotate without voiding
// the continuations of jobs suspended under the old one.
func NewSigner(key, previous []byte) (*Signer, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("the continuation key: %w", err)
	}
	if len(previous) > 0 {
		if err := CheckKey(previous); err != nil {
			return nil, fmt.Errorf("the previous continuation key: %w", err)
		}
	}
	s := &Signer{key: append([]byte(nil), key...)}
	if len(previous) > 0 {
		s.previous = append([]byte(nil), previous...)
	}
	return s, nil
}

var b64 = base64.RawURLEncoding

// Sign returns the token of c.
func (s *Signer) Sign(c Claims) string {
	payload, err := json.Marshal(c)
	if err != nil { // strings and integers: cannot fail
		panic(err)
	}
	p := b64.EncodeToString(payload)
	return p + "." + b64.EncodeToString(mac(s.key, p))
}

func mac(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// Verify checks token's signature and expiry and returns its claims. The
// error is an *Error with code INVALID_CONTINUATION.
func (s *Signer) Verify(token string, now time.Time) (Claims, error) {
	const retry = "pass the continuation exactly as the suspended result gave it"
	p, sig, ok := strings.Cut(token, ".")
	if !ok || strings.Contains(sig, ".") {
		return Claims{}, invalid("the token is not a continuation (two base64url parts joined by '.'): %s", retry)
	}
	got, err := b64.DecodeString(sig)
	if err != nil || !(hmac.Equal(got, mac(s.key, p)) || s.previous != nil && hmac.Equal(got, mac(s.previous, p))) {
		return Claims{}, invalid("the token's signature does not match (a changed token, or one signed with another CONTINUATION_KEY): %s", retry)
	}
	var c Claims
	payload, err := b64.DecodeString(p)
	if err == nil {
		err = json.Unmarshal(payload, &c)
	}
	if err != nil || c.Version != tokenVersion || c.Journal == "" || c.JobID == "" {
		return Claims{}, invalid("the token's claims are not readable (version %d): it was signed by an incompatible executor", c.Version)
	}
	if exp := time.Unix(c.Expires, 0); !now.Before(exp) {
		return Claims{}, invalid("the continuation of job %s expired at %s (CONTINUATION_TTL): run the step again from the start",
			c.JobID, exp.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// Check refuses a resume job that is not the suspended job's step: another
// tenant, session, flow, block or context, or other inputs (inputs is
// InputsSum of the resume job's): INVALID_CONTINUATION; or another source
// (CONTINUATION_SOURCE_MISMATCH).
func (c Claims) Check(job *flowjob.Job, inputs string) error {
	for _, f := range []struct{ name, want, got string }{
		{"tenantId", c.TenantID, job.TenantID},
		{"sessionId", c.SessionID, job.SessionID},
		{"flowId", c.FlowID, job.FlowID},
		{"blockId", c.BlockID, job.BlockID},
		{"context", c.Context, string(job.Context)},
	} {
		if f.want != f.got {
			return invalid("the continuation belongs to job %s, whose %s is %q, not this job's %q: a resume job carries the suspended job's tenantId, sessionId, flowId, blockId and context",
				c.JobID, f.name, f.want, f.got)
		}
	}
	if sum := SourceSum(job.Action.Source); sum != c.SourceSHA256 {
		return &Error{Code: flowjob.CodeContinuationSourceChange, Message: fmt.Sprintf(
			"the job's source (SHA-256 %.12s…) is not the source that suspended (%.12s…): resume with the suspended job's source, unchanged",
			sum, c.SourceSHA256)}
	}
	if c.InputsSHA256 != "" && inputs != c.InputsSHA256 {
		return invalid("the job's inputs (its inputVariables, interpolated from its variables) are not those job %s suspended with: "+
			"a resume job carries the suspended job's inputVariables and variables unchanged (flowjob.Job.ResumeWith copies them)", c.JobID)
	}
	return nil
}
