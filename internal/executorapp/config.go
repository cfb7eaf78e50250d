package executorapp

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/natsurl"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// Config is everything the executor reads from the environment. Each field
// with an env tag is read from that variable; Limits comes from the
// SANDBOX_* variables (sandbox.LimitsFromEnv). Unset fields take defaults;
// a number or duration set to 0 is refused (it would read as unset), but
// SHUTDOWN_GRACE=0, which hands in-flight jobs back at once.
type Config struct {
	NATSURL          string        `env:"NATS_URL"`
	NATSCreds        string        `env:"NATS_CREDS"`
	DataDir          string        `env:"EXECUTOR_DATA_DIR"`
	EmbeddedNATSAddr string        `env:"EMBEDDED_NATS_ADDR"`
	JobsStream       string        `env:"JOBS_STREAM"`
	ResultsStream    string        `env:"RESULTS_STREAM"`
	DLQStream        string        `env:"DLQ_STREAM"`
	ConsumerName     string        `env:"CONSUMER_NAME"`
	SubjectPrefix    string        `env:"SUBJECT_PREFIX"`
	MaxDeliver       int           `env:"MAX_DELIVER"`
	MaxAckPending    int           `env:"MAX_ACK_PENDING"`
	AckWait          time.Duration `env:"ACK_WAIT"`
	DuplicateWindow  time.Duration `env:"DUPLICATE_WINDOW"`
	JobsMaxMsgs      int64         `env:"JOBS_MAX_MSGS"`
	JobsMaxBytes     int64         `env:"JOBS_MAX_BYTES"`
	ResultsMaxAge    time.Duration `env:"RESULTS_MAX_AGE"`
	ResultsMaxBytes  int64         `env:"RESULTS_MAX_BYTES"`
	ResultsMaxMsgs   int64         `env:"RESULTS_MAX_MSGS"`
	DLQMaxAge        time.Duration `env:"DLQ_MAX_AGE"`
	DLQMaxBytes      int64         `env:"DLQ_MAX_BYTES"`
	DLQMaxMsgs       int64         `env:"DLQ_MAX_MSGS"`
	FailuresMaxAge   time.Duration `env:"FAILURES_MAX_AGE"`
	FailuresMaxBytes int64         `env:"FAILURES_MAX_BYTES"`
	FailuresMaxMsgs  int64         `env:"FAILURES_MAX_MSGS"`
	FailureRecords   string        `env:"FAILURE_RECORDS"`
	HoldProcessor    string        `env:"EXECUTOR_HOLD_PROCESSOR"`
	StreamReplicas   int           `env:"STREAM_REPLICAS"`
	MaxJobBytes      int           `env:"MAX_JOB_BYTES"`
	ShutdownGrace    time.Duration `env:"SHUTDOWN_GRACE"`
	AdminAddr        string        `env:"ADMIN_ADDR"`
	LogLevel         string        `env:"LOG_LEVEL"`

	// Host functions (DESIGN.md §9): the operator's policy and the session
	// store of the kv capability.
	CapabilitiesPolicyFile string        `env:"CAPABILITIES_POLICY_FILE"`
	KVBucket               string        `env:"KV_BUCKET"`
	KVTTL                  time.Duration `env:"KV_TTL"`
	KVMaxValueBytes        int           `env:"KV_MAX_VALUE_BYTES"`
	KVMaxKeyBytes          int           `env:"KV_MAX_KEY_BYTES"`
	KVMaxKeys              int           `env:"KV_MAX_KEYS"`

	// Pause and resume (DESIGN.md §10): the key that signs continuations
	// (without it approval is never granted), the previous key while keys
	// rotate, and how long a suspended job can be resumed.
	ContinuationKey         string        `env:"CONTINUATION_KEY"`
	ContinuationPreviousKey string        `env:"CONTINUATION_PREVIOUS_KEY"`
	ContinuationTTL         time.Duration `env:"CONTINUATION_TTL"`

	// Limits are the sandbox limits (SANDBOX_*).
	Limits sandbox.Limits
}

// Defaults of the fields this package owns (the consumer's are in package
// consumer).
const (
	DefaultDataDir   = "./data/nats"
	DefaultAdminAddr = ":9090"
	DefaultLogLevel  = "info"
)

// EnvVars lists every variable the executor reads: the env tags of Config,
// then sandbox.EnvVars.
func EnvVars() []string {
	var names []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("env"); name != "" {
			names = append(names, name)
		}
	}
	return append(names, sandbox.EnvVars...)
}

// ConfigFromEnv reads the configuration through getenv, applies the
// defaults and validates it. The error lists every bad variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	v := reflect.ValueOf(&c).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("env")
		if name == "" {
			continue
		}
		raw := strings.TrimSpace(getenv(name))
		if raw == "" {
			continue
		}
		f := v.Field(i)
		if err := setField(f, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s %w, got %q", name, err, raw))
			continue
		}
		switch {
		case f.Kind() == reflect.String || !f.IsZero():
		case name == "SHUTDOWN_GRACE":
			f.SetInt(int64(time.Nanosecond)) // no grace: not the default's 30 s
		default:
			errs = append(errs, fmt.Errorf("%s must be more than 0 (unset it for the default), got %q", name, raw))
		}
	}
	if c.NATSURL != "" && c.EmbeddedNATSAddr != "" {
		// Engines told to connect there would find nothing. (A data folder
		// with NATS_URL is left alone: the deployments keep one ready for
		// a trial without NATS_URL.)
		errs = append(errs, errors.New("EMBEDDED_NATS_ADDR is set but so is NATS_URL: the executor runs no embedded server when NATS_URL names a broker; unset EMBEDDED_NATS_ADDR or NATS_URL"))
	}
	limits, err := sandbox.LimitsFromEnv(getenv)
	if err != nil {
		errs = append(errs, err)
	}
	c.Limits = limits
	// The checks below run on what did parse (the rest at its defaults),
	// so one start names every bad variable, not the parsed ones first.
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

func setField(f reflect.Value, raw string) error {
	switch f.Interface().(type) {
	case string:
		f.SetString(raw)
	case time.Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return errors.New(`must be a duration such as "30s", "5m" or "24h"`)
		}
		f.SetInt(int64(d))
	case int, int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return errors.New("is too large a number")
		}
		if err != nil {
			return errors.New("must be a whole number")
		}
		f.SetInt(n)
	default:
		return fmt.Errorf("has an unsupported type %s", f.Type())
	}
	return nil
}

// WithDefaults returns c with unset fields set to their defaults.
func (c Config) WithDefaults() Config {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.AdminAddr == "" {
		c.AdminAddr = DefaultAdminAddr
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	if c.FailureRecords == "" {
		c.FailureRecords = "on"
	}
	if c.HoldProcessor == "" {
		c.HoldProcessor = "on"
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}

// Validate reports every bad value, naming its variable.
func (c Config) Validate() error {
	var errs []error
	if c.NATSURL != "" {
		if _, err := natsurl.Parse(c.NATSURL); err != nil {
			errs = append(errs, fmt.Errorf("NATS_URL must be one URL or a comma-separated list such as "+
				"nats://nats-1:4222,nats://nats-2:4222: %w", err))
		}
	}
	if c.StreamReplicas > 1 && c.NATSURL == "" {
		errs = append(errs, fmt.Errorf("STREAM_REPLICAS is %d but NATS_URL is empty: the embedded server is one node; "+
			"set NATS_URL to a NATS cluster or unset STREAM_REPLICAS", c.StreamReplicas))
	}
	if c.NATSCreds != "" && c.NATSURL == "" {
		errs = append(errs, errors.New("NATS_CREDS is set but NATS_URL is empty: the embedded server takes no credentials; set NATS_URL or unset NATS_CREDS"))
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if c.FailureRecords != "on" && c.FailureRecords != "off" {
		errs = append(errs, fmt.Errorf("FAILURE_RECORDS must be on (keep a record of each job whose script failed, for replay) or off, got %q", c.FailureRecords))
	}
	if c.HoldProcessor != "on" && c.HoldProcessor != "off" {
		errs = append(errs, fmt.Errorf("EXECUTOR_HOLD_PROCESSOR must be on (hold one more Go processor while busy, so the Go runtime's monitor thread stays calm) or off, got %q", c.HoldProcessor))
	}
	if err := c.Limits.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Consumer().Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.KV().Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Continuations(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Continuations is the signer of CONTINUATION_KEY (and
// CONTINUATION_PREVIOUS_KEY); nil when no key is set: the approval
// capability is then never granted.
func (c Config) Continuations() (*continuation.Signer, error) {
	if c.ContinuationKey == "" {
		if c.ContinuationPreviousKey != "" {
			return nil, errors.New("CONTINUATION_PREVIOUS_KEY is set but CONTINUATION_KEY is empty: set the new key in CONTINUATION_KEY")
		}
		return nil, nil
	}
	if err := continuation.CheckKey([]byte(c.ContinuationKey)); err != nil {
		return nil, fmt.Errorf("CONTINUATION_KEY: %w", err)
	}
	if c.ContinuationPreviousKey != "" {
		if err := continuation.CheckKey([]byte(c.ContinuationPreviousKey)); err != nil {
			return nil, fmt.Errorf("CONTINUATION_PREVIOUS_KEY: %w", err)
		}
	}
	return continuation.NewSigner([]byte(c.ContinuationKey), []byte(c.ContinuationPreviousKey))
}

// Embedded reports whether the executor runs its own NATS server.
func (c Config) Embedded() bool { return c.NATSURL == "" }

// NATSServers are the URLs of NATS_URL, trimmed (nil when it is empty or
// invalid: Validate reports why).
func (c Config) NATSServers() []string {
	if c.Embedded() {
		return nil
	}
	urls, err := natsurl.Parse(c.NATSURL)
	if err != nil {
		return nil
	}
	return urls
}

// Consumer is the consumer configuration, defaults applied.
func (c Config) Consumer() consumer.Config {
	return consumer.Config{
		JobsStream:       c.JobsStream,
		ResultsStream:    c.ResultsStream,
		DLQStream:        c.DLQStream,
		Consumer:         c.ConsumerName,
		SubjectPrefix:    c.SubjectPrefix,
		Parallel:         c.Limits.MaxParallel,
		MaxAckPending:    c.MaxAckPending,
		ScriptTimeout:    c.Limits.Timeout,
		MaxDeliver:       c.MaxDeliver,
		AckWait:          c.AckWait,
		DuplicateWindow:  c.DuplicateWindow,
		JobsMaxMsgs:      c.JobsMaxMsgs,
		JobsMaxBytes:     c.JobsMaxBytes,
		ResultsMaxAge:    c.ResultsMaxAge,
		ResultsMaxBytes:  c.ResultsMaxBytes,
		ResultsMaxMsgs:   c.ResultsMaxMsgs,
		DLQMaxAge:        c.DLQMaxAge,
		DLQMaxBytes:      c.DLQMaxBytes,
		DLQMaxMsgs:       c.DLQMaxMsgs,
		FailuresMaxAge:   c.FailuresMaxAge,
		FailuresMaxBytes: c.FailuresMaxBytes,
		FailuresMaxMsgs:  c.FailuresMaxMsgs,
		NoFailureRecords: c.FailureRecords == "off",
		Replicas:         c.StreamReplicas,
		MaxJobBytes:      c.MaxJobBytes,
		ShutdownGrace:    c.ShutdownGrace,
		ContinuationTTL:  c.ContinuationTTL,
	}.WithDefaults()
}

// KV is the session store's configuration (the kv capability), defaults
// applied; its bucket is replicated like the streams.
func (c Config) KV() sessionkv.Config {
	return sessionkv.Config{
		Bucket:          c.KVBucket,
		TTL:             c.KVTTL,
		MaxValueBytes:   c.KVMaxValueBytes,
		MaxKeyBytes:     c.KVMaxKeyBytes,
		MaxKeysPerScope: c.KVMaxKeys,
		Replicas:        c.StreamReplicas,
	}.WithDefaults()
}

// LogValue prints the effective configuration without secrets.
func (c Config) LogValue() slog.Value {
	cc, kv := c.Consumer(), c.KV()
	nats := "embedded (" + c.DataDir + ")"
	if !c.Embedded() {
		nats = natsurl.Redact(c.NATSURL)
	}
	return slog.GroupValue(
		slog.String("nats", nats),
		slog.String("nats_creds", c.NATSCreds),
		slog.String("embedded_nats_addr", c.EmbeddedNATSAddr),
		slog.String("jobs_stream", cc.JobsStream),
		slog.String("results_stream", cc.ResultsStream),
		slog.String("dlq_stream", cc.DLQStream),
		slog.String("consumer", cc.Consumer),
		slog.String("subject_prefix", cc.SubjectPrefix),
		slog.Int("max_deliver", cc.MaxDeliver),
		slog.Int("max_ack_pending", cc.MaxAckPending),
		slog.String("ack_wait", cc.AckWait.String()),
		slog.String("duplicate_window", cc.DuplicateWindow.String()),
		slog.Int64("jobs_max_msgs", cc.JobsMaxMsgs),
		slog.Int64("jobs_max_bytes", cc.JobsMaxBytes),
		slog.String("results_max_age", cc.ResultsMaxAge.String()),
		slog.Int64("results_max_bytes", cc.ResultsMaxBytes),
		slog.Int64("results_max_msgs", cc.ResultsMaxMsgs),
		slog.String("dlq_max_age", cc.DLQMaxAge.String()),
		slog.Int64("dlq_max_bytes", cc.DLQMaxBytes),
		slog.Int64("dlq_max_msgs", cc.DLQMaxMsgs),
		slog.String("failure_records", c.FailureRecords),
		slog.String("hold_processor", c.HoldProcessor),
		slog.String("failures_stream", cc.FailuresStream()),
		slog.String("failures_max_age", cc.FailuresMaxAge.String()),
		slog.Int64("failures_max_bytes", cc.FailuresMaxBytes),
		slog.Int64("failures_max_msgs", cc.FailuresMaxMsgs),
		slog.Int("stream_replicas", cc.Replicas),
		slog.Int("max_job_bytes", cc.MaxJobBytes),
		slog.String("shutdown_grace", cc.ShutdownGraceString()),
		slog.String("admin_addr", c.AdminAddr),
		slog.String("log_level", c.LogLevel),
		slog.String("capabilities_policy_file", c.CapabilitiesPolicyFile),
		slog.String("kv_bucket", kv.Bucket),
		slog.String("kv_ttl", kv.TTL.String()),
		slog.Int("kv_max_value_bytes", kv.MaxValueBytes),
		slog.Int("kv_max_key_bytes", kv.MaxKeyBytes),
		slog.Int("kv_max_keys", kv.MaxKeysPerScope),
		slog.Bool("continuations", c.ContinuationKey != ""),
		slog.String("continuation_ttl", cc.ContinuationTTL.String()),
		slog.String("sandbox_timeout", c.Limits.Timeout.String()),
		slog.Int("sandbox_memory_mb", c.Limits.MemoryMB),
		slog.Int("sandbox_max_parallel", c.Limits.MaxParallel),
		slog.Int("sandbox_max_source_bytes", c.Limits.MaxSourceBytes),
		slog.Int("sandbox_max_input_bytes", c.Limits.MaxInputBytes),
		slog.Int("sandbox_max_output_bytes", c.Limits.MaxOutputBytes),
		slog.Int("sandbox_max_call_stack", c.Limits.MaxCallStackSize),
		slog.String("sandbox_timezone", c.Limits.TimeZone.String()),
		slog.Int("sandbox_max_log_entries", c.Limits.MaxLogEntries),
		slog.Int("sandbox_max_log_bytes", c.Limits.MaxLogBytes),
		slog.Int("sandbox_max_host_calls", c.Limits.MaxHostCalls),
		slog.Int("sandbox_max_host_bytes", c.Limits.MaxHostBytes),
	)
}

// parseLevel reads LOG_LEVEL as telemetry.NewLogger does.
func parseLevel(s string) (slog.Level, error) {
	l, err := telemetry.ParseLevel(s)
	if err != nil {
		return l, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, got %q", s)
	}
	return l, nil
}
