package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Limits are the guarantees a runner gives about one script. The zero value
// is not usable: call WithDefaults.
type Limits struct {
	// Timeout is the wall-clock limit of one script (SANDBOX_TIMEOUT_MS).
	Timeout time.Duration
	// MemoryMB is the heap a script may use (SANDBOX_MEMORY_MB). Enforced only
	// by the worker pool; the in-process runner cannot attribute heap to a
	// script.
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
	check(l.Timeout >= time.Millisecond && l.Timeout <= 10*time.Minute,
		"SANDBOX_TIMEOUT_MS must be between 1 and 600000, got %d", l.Timeout.Milliseconds())
	check(l.MemoryMB >= 1 && l.MemoryMB <= 4096,
		"SANDBOX_MEMORY_MB must be between 1 and 4096, got %d", l.MemoryMB)
	check(l.MaxParallel >= 1 && l.MaxParallel <= 1024,
		"SANDBOX_MAX_PARALLEL must be between 1 and 1024, got %d", l.MaxParallel)
	check(l.MaxSourceBytes >= 1, "SANDBOX_MAX_SOURCE_BYTES must be positive, got %d", l.MaxSourceBytes)
	check(l.MaxInputBytes >= 1, "SANDBOX_MAX_INPUT_BYTES must be positive, got %d", l.MaxInputBytes)
	check(l.MaxOutputBytes >= 1, "SANDBOX_MAX_OUTPUT_BYTES must be positive, got %d", l.MaxOutputBytes)
	check(l.MaxCallStackSize >= 10 && l.MaxCallStackSize <= 100000,
		"SANDBOX_MAX_CALL_STACK must be between 10 and 100000, got %d", l.MaxCallStackSize)
	check(l.TimeZone != nil, "SANDBOX_TIMEZONE is not set")
	return errors.Join(errs...)
}

// EnvVars lists the environment variables LimitsFromEnv reads, in the order
// the README documents them.
var EnvVars = []string{
	"SANDBOX_TIMEOUT_MS", "SANDBOX_MEMORY_MB", "SANDBOX_MAX_PARALLEL",
	"SANDBOX_MAX_SOURCE_BYTES", "SANDBOX_MAX_INPUT_BYTES", "SANDBOX_MAX_OUTPUT_BYTES",
	"SANDBOX_MAX_CALL_STACK", "SANDBOX_TIMEZONE",
}

// LimitsFromEnv reads the SANDBOX_* variables through getenv (os.Getenv in
// production), applies the defaults and validates the result.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	var l Limits
	var errs []error
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
	}
	var timeoutMS int
	intVar("SANDBOX_TIMEOUT_MS", &timeoutMS)
	l.Timeout = time.Duration(timeoutMS) * time.Millisecond
	intVar("SANDBOX_MEMORY_MB", &l.MemoryMB)
	intVar("SANDBOX_MAX_PARALLEL", &l.MaxParallel)
	intVar("SANDBOX_MAX_SOURCE_BYTES", &l.MaxSourceBytes)
	intVar("SANDBOX_MAX_INPUT_BYTES", &l.MaxInputBytes)
	intVar("SANDBOX_MAX_OUTPUT_BYTES", &l.MaxOutputBytes)
	intVar("SANDBOX_MAX_CALL_STACK", &l.MaxCallStackSize)
	if tz := getenv("SANDBOX_TIMEZONE"); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			errs = append(errs, fmt.Errorf("SANDBOX_TIMEZONE must be an IANA zone name such as UTC or America/Sao_Paulo, got %q", tz))
		}
		l.TimeZone = loc
	}
	if len(errs) > 0 {
		return Limits{}, errors.Join(errs...)
	}
	l = l.WithDefaults()
	return l, l.Validate()
}
