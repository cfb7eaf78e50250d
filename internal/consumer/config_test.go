package consumer

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAreValid(t *testing.T) {
	cfg := Config{}.WithDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	if cfg.AckWait != 30*time.Second {
		t.Errorf("AckWait = %s, want 30s (3 × the 5s script timeout, at least 30s)", cfg.AckWait)
	}
	if got := (Config{ScriptTimeout: time.Minute}).WithDefaults().AckWait; got != 3*time.Minute {
		t.Errorf("AckWait for a 1m script timeout = %s, want 3m", got)
	}
	if cfg.Subjects().JobsFilter() != "flowscript.jobs.>" || cfg.Subjects().Result("j1") != "flowscript.results.j1" ||
		cfg.Subjects().DeadLetter("j1") != "flowscript.dlq.j1" || cfg.Subjects().DeadLetter("a.b") != "flowscript.dlq.unknown" {
		t.Errorf("default subjects: %s %s %s %s", cfg.Subjects().JobsFilter(), cfg.Subjects().Result("j1"), cfg.Subjects().DeadLetter("j1"), cfg.Subjects().DeadLetter("a.b"))
	}
}

func TestConfigValidateNamesTheField(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"stream name with a dot", func(c *Config) { c.JobsStream = "JOBS.X" }, "JOBS_STREAM"},
		{"same stream twice", func(c *Config) { c.DLQStream = c.ResultsStream }, "three different names"},
		{"consumer with a space", func(c *Config) { c.Consumer = "my consumer" }, "CONSUMER_NAME"},
		{"prefix with a wildcard", func(c *Config) { c.SubjectPrefix = "flow.*" }, "SUBJECT_PREFIX"},
		{"prefix with an empty token", func(c *Config) { c.SubjectPrefix = "flow..x" }, "SUBJECT_PREFIX"},
		{"no deliveries", func(c *Config) { c.MaxDeliver = -1 }, "MAX_DELIVER"},
		{"ack wait under the script timeout", func(c *Config) { c.AckWait = time.Second }, "ACK_WAIT"},
		{"progress interval over ack wait", func(c *Config) { c.ProgressInterval = time.Hour }, "progress interval"},
		{"tiny duplicate window", func(c *Config) { c.DuplicateWindow = time.Millisecond }, "DUPLICATE_WINDOW"},
		{"zero jobs", func(c *Config) { c.JobsMaxMsgs = -5 }, "JOBS_MAX_MSGS"},
		{"short results age", func(c *Config) { c.ResultsMaxAge = time.Second }, "RESULTS_MAX_AGE"},
		{"huge jobs", func(c *Config) { c.MaxJobBytes = 64 << 20 }, "MAX_JOB_BYTES"},
		{"negative grace", func(c *Config) { c.ShutdownGrace = -time.Second }, "SHUTDOWN_GRACE"},
		{"six replicas", func(c *Config) { c.Replicas = 6 }, "STREAM_REPLICAS"},
		{"ack pending under parallel", func(c *Config) { c.Parallel = 64; c.MaxAckPending = 8 }, "MAX_ACK_PENDING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{}.WithDefaults()
			tt.change(&cfg)
			err := cfg.Validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}
