package continuation

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

var (
	key   = []byte("0123456789abcdef0123456789abcdef-test-key")
	other = []byte("fedcba9876543210fedcba9876543210-other-key")
)

func suspendedJob() *flowjob.Job {
	return &flowjob.Job{
		ID: "job-1", SessionID: "s-1", FlowID: "f-1", BlockID: "b-1", Context: flowjob.ContextFlow,
		TenantID: "acme",
		Action:   flowjob.ExecuteScriptAction{Source: "return approval.request()"},
	}
}

func signer(t *testing.T, key, previous []byte) *Signer {
	t.Helper()
	s, err := NewSigner(key, previous)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sum is the inputs' sum of the suspended jobs of these tests.
var sum = InputsSum([]string{"amount"}, []string{"10"})

func code(err error) string {
	if e := AsError(err); e != nil {
		return e.Code
	}
	return ""
}

func TestTokenRoundTrip(t *testing.T) {
	s := signer(t, key, nil)
	now := time.Now()
	want := ClaimsFor(suspendedJob(), sum, "j.job-1.abc", now.Add(time.Hour))
	want.Grants = []string{"api", "approval", "kv"}
	token := s.Sign(want)
	got, err := s.Verify(token, now)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claims %+v, want %+v", got, want)
	}
	if len(token) > flowjob.MaxTokenBytes {
		t.Errorf("token of %d bytes, over the contract's %d", len(token), flowjob.MaxTokenBytes)
	}
}

// A resume run must be granted what the suspended run was; a token signed
// before grants were kept is not checked.
func TestCheckGrants(t *testing.T) {
	c := ClaimsFor(suspendedJob(), sum, "j.job-1.abc", time.Now().Add(time.Hour))
	if err := c.CheckGrants([]string{"approval"}); err != nil {
		t.Errorf("a token without grants: %v, want no check", err)
	}
	c.Grants = []string{"api", "approval"}
	if err := c.CheckGrants([]string{"approval", "api"}); err != nil {
		t.Errorf("the same grants in another order: %v", err)
	}
	for _, granted := range [][]string{{"approval"}, {"api", "approval", "kv"}, nil} {
		err := c.CheckGrants(granted)
		if code(err) != flowjob.CodeCapabilityDenied || !strings.Contains(err.Error(), "suspended with [api, approval]") ||
			!strings.Contains(err.Error(), "the continuation was not used") {
			t.Errorf("granted %v: %v, want CAPABILITY_DENIED naming both grants", granted, err)
		}
	}
}

// The largest claims the contract allows still fit in a token.
func TestLargestTokenFits(t *testing.T) {
	job := suspendedJob()
	job.ID = strings.Repeat("i", flowjob.MaxIDBytes)
	long := strings.Repeat("é", flowjob.MaxRefBytes/2)
	job.SessionID, job.FlowID, job.BlockID, job.TenantID = long, long, long, long
	claims := ClaimsFor(job, sum, "j."+job.ID+".0123456789abcdef01", time.Now())
	claims.Grants = flowjob.KnownCapabilities
	token := signer(t, key, nil).Sign(claims)
	if len(token) > flowjob.MaxTokenBytes {
		t.Errorf("token of %d bytes, over the contract's %d", len(token), flowjob.MaxTokenBytes)
	}
}

func TestVerifyRefuses(t *testing.T) {
	s := signer(t, key, nil)
	now := time.Now()
	token := s.Sign(ClaimsFor(suspendedJob(), sum, "j.job-1.abc", now.Add(time.Hour)))
	payload, sig, _ := strings.Cut(token, ".")
	forged := ClaimsFor(suspendedJob(), sum, "j.job-1.abc", now.Add(time.Hour))
	forged.SessionID = "s-2"
	for name, tc := range map[string]struct {
		token string
		at    time.Time
		want  string
	}{
		"empty":            {"", now, "not a continuation"},
		"no signature":     {payload, now, "not a continuation"},
		"three parts":      {token + ".x", now, "not a continuation"},
		"changed payload":  {"x" + payload[1:] + "." + sig, now, "signature does not match"},
		"changed mac":      {payload + "." + flip(sig[:1]) + sig[1:], now, "signature does not match"},
		"claims swapped":   {strings.Split(s.Sign(forged), ".")[0] + "." + sig, now, "signature does not match"},
		"other key":        {signer(t, other, nil).Sign(forged), now, "signature does not match"},
		"expired":          {token, now.Add(time.Hour), "expired"},
		"signed not JSON":  {signed(s, "bm90IGpzb24"), now, "not readable"},
		"signed no fields": {signed(s, "e30"), now, "not readable"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.Verify(tc.token, tc.at)
			if code(err) != flowjob.CodeInvalidContinuation || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify: %v, want INVALID_CONTINUATION naming %q", err, tc.want)
			}
		})
	}
}

// flip returns another base64url character than c.
func flip(c string) string {
	if c == "A" {
		return "B"
	}
	return "A"
}

func signed(s *Signer, payload string) string {
	return payload + "." + b64.EncodeToString(mac(s.key, payload))
}

func TestKeyRotation(t *testing.T) {
	now := time.Now()
	claims := ClaimsFor(suspendedJob(), sum, "j.job-1.abc", now.Add(time.Hour))
	old := signer(t, other, nil).Sign(claims)
	rotated := signer(t, key, other)
	if _, err := rotated.Verify(old, now); err != nil {
		t.Errorf("a token of the previous key: %v", err)
	}
	if _, err := rotated.Verify(rotated.Sign(claims), now); err != nil {
		t.Errorf("a token of the new key: %v", err)
	}
	if _, err := signer(t, key, nil).Verify(old, now); code(err) != flowjob.CodeInvalidContinuation {
		t.Errorf("after the rotation ends, the old token: %v", err)
	}
	if _, err := NewSigner([]byte("short"), nil); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("a short key: %v", err)
	}
	if _, err := NewSigner(key, []byte("short")); err == nil {
		t.Error("a short previous key was accepted")
	}
}

// A key of one character repeated, or a short pattern, is refused
// whatever its length; random keys in hex, decimal or base64 are not.
func TestGuessableKeysAreRefused(t *testing.T) {
	for _, bad := range []string{
		strings.Repeat("a", 64),
		strings.Repeat("changeme", 6),
		strings.Repeat("012345678", 5),
		strings.Repeat("ab", 20) + "abab", // 4 different characters
	} {
		if _, err := NewSigner([]byte(bad), nil); err == nil || !strings.Contains(err.Error(), "not a secret") {
			t.Errorf("key %q: %v, want it refused as a placeholder", bad, err)
		}
		if _, err := NewSigner(key, []byte(bad)); err == nil || !strings.Contains(err.Error(), "previous continuation key") {
			t.Errorf("previous key %q: %v, want it refused, named", bad, err)
		}
	}
	for range 500 {
		raw := make([]byte, 48)
		_, _ = rand.Read(raw)
		decimal := make([]byte, 32)
		for i := range decimal {
			decimal[i] = '0' + raw[i]%10
		}
		for _, good := range []string{hex.EncodeToString(raw[:16]), string(decimal), base64.StdEncoding.EncodeToString(raw)} {
			if _, err := NewSigner([]byte(good), nil); err != nil {
				t.Fatalf("a random key %q: %v", good, err)
			}
		}
	}
}

func TestCheckBindsTheStep(t *testing.T) {
	claims := ClaimsFor(suspendedJob(), sum, "j.job-1.abc", time.Now().Add(time.Hour))
	resume := func(edit func(j *flowjob.Job)) *flowjob.Job {
		j := suspendedJob()
		j.ID = "job-2"
		edit(j)
		return j
	}
	if err := claims.Check(resume(func(*flowjob.Job) {}), sum); err != nil {
		t.Fatalf("the same step: %v", err)
	}
	// Other inputs are another run: refused, unless the token predates
	// the inputs' sum.
	if err := claims.Check(resume(func(*flowjob.Job) {}), InputsSum([]string{"amount"}, []string{"99999"})); code(err) != flowjob.CodeInvalidContinuation ||
		!strings.Contains(err.Error(), "inputs") {
		t.Errorf("other inputs: %v, want INVALID_CONTINUATION naming the inputs", err)
	}
	old := claims
	old.InputsSHA256 = ""
	if err := old.Check(resume(func(*flowjob.Job) {}), InputsSum(nil, nil)); err != nil {
		t.Errorf("a token without the inputs' sum: %v", err)
	}
	if InputsSum([]string{"ab"}, []string{"c"}) == InputsSum([]string{"a"}, []string{"bc"}) {
		t.Error("InputsSum runs names into values")
	}
	for name, tc := range map[string]struct {
		edit func(j *flowjob.Job)
		code string
	}{
		"tenant":  {func(j *flowjob.Job) { j.TenantID = "other" }, flowjob.CodeInvalidContinuation},
		"session": {func(j *flowjob.Job) { j.SessionID = "s-2" }, flowjob.CodeInvalidContinuation},
		"flow":    {func(j *flowjob.Job) { j.FlowID = "f-2" }, flowjob.CodeInvalidContinuation},
		"block":   {func(j *flowjob.Job) { j.BlockID = "b-2" }, flowjob.CodeInvalidContinuation},
		"context": {func(j *flowjob.Job) { j.Context = flowjob.ContextTool }, flowjob.CodeInvalidContinuation},
		"source":  {func(j *flowjob.Job) { j.Action.Source += " " }, flowjob.CodeContinuationSourceChange},
	} {
		if err := claims.Check(resume(tc.edit), sum); code(err) != tc.code {
			t.Errorf("another %s: %v, want %s", name, err, tc.code)
		}
	}
}

// bucket is a fresh journals bucket on a real broker.
func bucket(t *testing.T, url string) *Journals {
	t.Helper()
	_, js := testenv.JetStream(t, url)
	var b [5]byte
	_, _ = rand.Read(b[:])
	name := "T_JOURNALS_" + strings.ToUpper(hex.EncodeToString(b[:]))
	testenv.DeleteStreamsAtCleanup(t, url, "KV_"+name)
	kv, err := js.CreateKeyValue(testenv.Context(t, 10*time.Second), jetstream.KeyValueConfig{Bucket: name, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return NewJournals(kv)
}

func TestJournals(t *testing.T) {
	for name, url := range map[string]func(testing.TB) string{
		"embedded": func(t testing.TB) string { return testenv.EmbeddedNATS(t).ClientURL() },
		"machine":  testenv.MachineNATSURL,
	} {
		t.Run(name, func(t *testing.T) {
			j := bucket(t, url(t))
			ctx := testenv.Context(t, 20*time.Second)
			journal := []byte(`[{"kind":"time","value":1}]`)
			k1, err := j.Save(ctx, "job-1", journal)
			if err != nil {
				t.Fatal(err)
			}
			k2, err := j.Save(ctx, "job-1", []byte(`[]`)) // a second run of the same job
			if err != nil || k2 == k1 {
				t.Fatalf("second save: key %q (first %q), %v", k2, k1, err)
			}
			claims := ClaimsFor(suspendedJob(), sum, k1, time.Now().Add(time.Hour))
			got, err := j.Load(ctx, claims)
			if err != nil || string(got) != string(journal) {
				t.Fatalf("Load: %s, %v", got, err)
			}
			if _, err := j.Load(ctx, ClaimsFor(suspendedJob(), sum, "j.job-1.gone", time.Now())); code(err) != flowjob.CodeInvalidContinuation {
				t.Errorf("an unknown journal: %v", err)
			}

			// Racing claims: exactly one job wins; it may claim again.
			const racers = 8
			var wg sync.WaitGroup
			errs := make([]error, racers)
			for i := range racers {
				wg.Go(func() { errs[i] = j.Claim(ctx, claims, "resume-"+string(rune('a'+i))) })
			}
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner >= 0:
					t.Errorf("two claims won: %d and %d", winner, i)
				case err == nil:
					winner = i
				case code(err) != flowjob.CodeContinuationUsed:
					t.Errorf("claim %d: %v, want CONTINUATION_USED", i, err)
				}
			}
			if winner < 0 {
				t.Fatal("no claim won")
			}
			if err := j.Claim(ctx, claims, "resume-"+string(rune('a'+winner))); err != nil {
				t.Errorf("the winner claiming again (a redelivery): %v", err)
			}
		})
	}
}
