package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits are the guarantees a runner gives about one script. The zero value
// is not usable: call WithDefaults.
type Limits struct {
	// Timeout is the wall-clock limit of one script (SANDBOX_TIMEOUT_MS).
	Timeout time.Duration
	// MemoryMB is the heap a script may use (SANDBOX_MEMORY_MB). Enforced by
	// the worker pool; the in-process runner cannot attribute heap to a
	// script, and refuses only a single string or buffer over it (goja
	// patch 93's ceiling, in every runtime).
	MemoryMB int
	// MaxParallel is how many scripts run at once per process
	// (SANDBOX_MAX_PARALLEL).
	MaxParallel int
	// MaxSourceBytes caps the source text (SANDBOX_MAX_SOURCE_BYTES).
	MaxSourceBytes int
	// MaxInputBytes caps the sum of input names and values
	// (SANDBOX_MAX_INPUT_BYTES).
	MaxInputBytes int
	// MaxOutputBytes caps the serialized result (SANDBOX_MAX_OUTPUT_BYTES).
	// The default, 512 KiB, keeps a result event (the output plus its
	// envelope) under NATS's default 1 MB message size.
	MaxOutputBytes int
	// MaxCallStackSize caps JavaScript call depth (SANDBOX_MAX_CALL_STACK).
	MaxCallStackSize int
	// TimeZone is the zone Date works in (SANDBOX_TIMEZONE, an IANA name).
	TimeZone *time.Location
	// MaxLogEntries and MaxLogBytes cap the console lines one run keeps
	// (SANDBOX_MAX_LOG_ENTRIES, SANDBOX_MAX_LOG_BYTES); past them lines are
	// dropped and the result says logsTruncated.
	MaxLogEntries int
	MaxLogBytes   int
	// MaxHostCalls caps the host calls of one run and MaxHostBytes the JSON
	// bytes through them, each way (SANDBOX_MAX_HOST_CALLS,
	// SANDBOX_MAX_HOST_BYTES): past them a call throws HOST_CALL_LIMIT.
	MaxHostCalls int
	MaxHostBytes int
}

// Defaults, from the seed where it gives them.
const (
	DefaultTimeout          = 5 * time.Second
	DefaultMemoryMB         = 32
	DefaultMaxParallel      = 8
	DefaultMaxSourceBytes   = 256 << 10
	DefaultMaxInputBytes    = 1 << 20
	DefaultMaxOutputBytes   = 512 << 10
	DefaultMaxCallStackSize = 1000
	DefaultMaxLogEntries    = 100
	DefaultMaxLogBytes      = 16 << 10
	DefaultMaxHostCalls     = 50
	DefaultMaxHostBytes     = 4 << 20
)

// WithDefaults returns l with every unset field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryMB == 0 {
		l.MemoryMB = DefaultMemoryMB
	}
	if l.MaxParallel == 0 {
		l.MaxParallel = DefaultMaxParallel
	}
	if l.MaxSourceBytes == 0 {
		l.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if l.MaxInputBytes == 0 {
		l.MaxInputBytes = DefaultMaxInputBytes
	}
	if l.MaxOutputBytes == 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if l.MaxCallStackSize == 0 {
		l.MaxCallStackSize = DefaultMaxCallStackSize
	}
	if l.TimeZone == nil {
		l.TimeZone = time.UTC
	}
	if l.MaxLogEntries == 0 {
		l.MaxLogEntries = DefaultMaxLogEntries
	}
	if l.MaxLogBytes == 0 {
		l.MaxLogBytes = DefaultMaxLogBytes
	}
	if l.MaxHostCalls == 0 {
		l.MaxHostCalls = DefaultMaxHostCalls
	}
	if l.MaxHostBytes == 0 {
		l.MaxHostBytes = DefaultMaxHostBytes
	}
	return l
}

// Validate reports every field out of range, naming its variable.
func (l Limits) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(l.Timeout >= time.Millisecond && l.Timeout <= maxTimeout,
		"SANDBOX_TIMEOUT_MS must be between 1 and %d, got %d", maxTimeout.Milliseconds(), l.Timeout.Milliseconds())
	check(l.MemoryMB >= 1 && l.MemoryMB <= 4096,
		"SANDBOX_MEMORY_MB must be between 1 and 4096, got %d", l.MemoryMB)
	check(l.MaxParallel >= 1 && l.MaxParallel <= 1024,
		"SANDBOX_MAX_PARALLEL must be between 1 and 1024, got %d", l.MaxParallel)
	// The defaults are a job's own caps (flowjob.MaxSourceBytes and
	// MaxInputBytes): a larger setting would let the templates API test and
	// save scripts no job can carry.
	check(l.MaxSourceBytes >= 1 && l.MaxSourceBytes <= DefaultMaxSourceBytes,
		"SANDBOX_MAX_SOURCE_BYTES must be between 1 and %d (a job carries no larger source), got %d", DefaultMaxSourceBytes, l.MaxSourceBytes)
	check(l.MaxInputBytes >= 1 && l.MaxInputBytes <= DefaultMaxInputBytes,
		"SANDBOX_MAX_INPUT_BYTES must be between 1 and %d (a job carries no larger inputs), got %d", DefaultMaxInputBytes, l.MaxInputBytes)
	check(l.MaxOutputBytes >= 1, "SANDBOX_MAX_OUTPUT_BYTES must be positive, got %d", l.MaxOutputBytes)
	check(l.MaxCallStackSize >= 10 && l.MaxCallStackSize <= 100000,
		"SANDBOX_MAX_CALL_STACK must be between 10 and 100000, got %d", l.MaxCallStackSize)
	check(l.TimeZone != nil, "SANDBOX_TIMEZONE is not set")
	check(l.MaxLogEntries >= 1 && l.MaxLogEntries <= 10000,
		"SANDBOX_MAX_LOG_ENTRIES must be between 1 and 10000, got %d", l.MaxLogEntries)
	check(l.MaxLogBytes >= 64 && l.MaxLogBytes <= 1<<20,
		"SANDBOX_MAX_LOG_BYTES must be between 64 and 1048576, got %d", l.MaxLogBytes)
	check(l.MaxHostCalls >= 1 && l.MaxHostCalls <= 10000,
		"SANDBOX_MAX_HOST_CALLS must be between 1 and 10000, got %d", l.MaxHostCalls)
	check(l.MaxHostBytes >= 1024 && l.MaxHostBytes <= 64<<20,
		"SANDBOX_MAX_HOST_BYTES must be between 1024 and 67108864, got %d", l.MaxHostBytes)
	return errors.Join(errs...)
}

// maxTimeout is the longest SANDBOX_TIMEOUT_MS.
const maxTimeout = 10 * time.Minute

// EnvVars lists the environment variables LimitsFromEnv reads, in the order
// the README documents them.
var EnvVars = []string{
	"SANDBOX_TIMEOUT_MS", "SANDBOX_MEMORY_MB", "SANDBOX_MAX_PARALLEL",
	"SANDBOX_MAX_SOURCE_BYTES", "SANDBOX_MAX_INPUT_BYTES", "SANDBOX_MAX_OUTPUT_BYTES",
	"SANDBOX_MAX_CALL_STACK", "SANDBOX_TIMEZONE",
	"SANDBOX_MAX_LOG_ENTRIES", "SANDBOX_MAX_LOG_BYTES", "SANDBOX_MAX_HOST_CALLS", "SANDBOX_MAX_HOST_BYTES",
}

// LimitsFromEnv reads the SANDBOX_* variables through getenv (os.Getenv in
// production), applies the defaults to those unset and validates the
// result: a variable set to 0 is out of range, not unset. Spaces around
// a value are ignored.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	// Spaces around a value are no part of it, as in the executor's other
	// variables (a value pasted with a trailing space or newline).
	getenv = func(read func(string) string) func(string) string {
		return func(name string) string { return strings.TrimSpace(read(name)) }
	}(getenv)
	var l Limits
	var errs []error
	var zeros []*int // fields set to 0: out of range, not unset
	intVar := func(name string, dst *int) {
		s := getenv(name)
		if s == "" {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s must be a whole number, got %q", name, s))
			return
		}
		*dst = n
		if n == 0 {
			zeros = append(zeros, dst)
		}
	}
	var timeoutMS int
	intVar("SANDBOX_TIMEOUT_MS", &timeoutMS)
	var timeoutErr error
	if maxMS := int(maxTimeout / time.Millisecond); timeoutMS < 0 || timeoutMS > maxMS {
		// Checked here, with the others' range (Validate) still to come: as
		// a duration it could wrap into the range.
		timeoutErr = fmt.Errorf("SANDBOX_TIMEOUT_MS must be between 1 and %d, got %d", maxMS, timeoutMS)
		timeoutMS = 0
	}
	l.Timeout = time.Duration(timeoutMS) * time.Millisecond
	intVar("SANDBOX_MEMORY_MB", &l.MemoryMB)
	intVar("SANDBOX_MAX_PARALLEL", &l.MaxParallel)
	intVar("SANDBOX_MAX_SOURCE_BYTES", &l.MaxSourceBytes)
	intVar("SANDBOX_MAX_INPUT_BYTES", &l.MaxInputBytes)
	intVar("SANDBOX_MAX_OUTPUT_BYTES", &l.MaxOutputBytes)
	intVar("SANDBOX_MAX_CALL_STACK", &l.MaxCallStackSize)
	intVar("SANDBOX_MAX_LOG_ENTRIES", &l.MaxLogEntries)
	intVar("SANDBOX_MAX_LOG_BYTES", &l.MaxLogBytes)
	intVar("SANDBOX_MAX_HOST_CALLS", &l.MaxHostCalls)
	intVar("SANDBOX_MAX_HOST_BYTES", &l.MaxHostBytes)
	if tz := getenv("SANDBOX_TIMEZONE"); tz != "" {
		loc, err := time.LoadLocation(tz)
		switch {
		case tz == "Local":
			// Go's name for the host's own zone, which scripts must never see.
			errs = append(errs, fmt.Errorf("SANDBOX_TIMEZONE must be an IANA zone name such as UTC or America/Sao_Paulo, got %q (the host's zone, which scripts never see): name the zone itself", tz))
		case err != nil:
			errs = append(errs, fmt.Errorf("SANDBOX_TIMEZONE must be an IANA zone name such as UTC or America/Sao_Paulo, got %q", tz))
		default:
			l.TimeZone = loc
		}
	}
	if len(errs) > 0 {
		return Limits{}, errors.Join(append(errs, timeoutErr)...)
	}
	timeoutZero := getenv("SANDBOX_TIMEOUT_MS") != "" && timeoutMS == 0 && timeoutErr == nil
	l = l.WithDefaults() // l stays the variable the zeros point into
	for _, field := range zeros {
		*field = 0
	}
	if timeoutZero {
		l.Timeout = 0
	}
	if err := errors.Join(timeoutErr, l.Validate()); err != nil {
		return Limits{}, err
	}
	return l, nil
}
