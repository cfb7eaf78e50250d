package executorapp

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/consumer"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigFromEnvDefaults(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(nil))
	if err != nil {
		t.Fatalf("empty environment: %v", err)
	}
	if !cfg.Embedded() || cfg.DataDir != "./data/nats" || cfg.AdminAddr != ":9090" || cfg.LogLevel != "info" {
		t.Errorf("defaults = %+v", cfg)
	}
	cc := cfg.Consumer()
	if cc.JobsStream != "JOBS" || cc.ResultsStream != "RESULTS" || cc.DLQStream != "DLQ" || cc.Consumer != "executor" ||
		cc.Parallel != 8 || cc.ScriptTimeout != 5*time.Second || cc.MaxDeliver != 5 || cc.NoFailureRecords {
		t.Errorf("consumer defaults = %+v", cc)
	}
}

func TestConfigFromEnvReadsEveryVariable(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{
		"NATS_URL": "nats://nats:4222", "NATS_CREDS": "/secrets/exec.creds", "EXECUTOR_DATA_DIR": "/var/lib/x", "JOBS_STREAM": "J", "RESULTS_STREAM": "R", "DLQ_STREAM": "D",
		"CONSUMER_NAME": "C", "SUBJECT_PREFIX": "acme.flow", "MAX_DELIVER": "7", "ACK_WAIT": "2m",
		"DUPLICATE_WINDOW": "10m", "JOBS_MAX_MSGS": "500", "JOBS_MAX_BYTES": "-1", "RESULTS_MAX_AGE": "48h",
		"DLQ_MAX_AGE": "72h", "STREAM_REPLICAS": "3", "MAX_JOB_BYTES": "65536", "SHUTDOWN_GRACE": "45s",
		"ADMIN_ADDR": "127.0.0.1:9999", "LOG_LEVEL": "debug", "SANDBOX_MAX_PARALLEL": "3", "SANDBOX_TIMEOUT_MS": "1500",
		"FAILURE_RECORDS": "off", "EXECUTOR_HOLD_PROCESSOR": "off",
	}))
	if err != nil {
		t.Fatal(err)
	}
	cc := cfg.Consumer()
	checks := []struct {
		name      string
		got, want any
	}{
		{"NATS_URL", cfg.NATSURL, "nats://nats:4222"}, {"NATS_CREDS", cfg.NATSCreds, "/secrets/exec.creds"},
		{"JOBS_STREAM", cc.JobsStream, "J"}, {"RESULTS_STREAM", cc.ResultsStream, "R"}, {"DLQ_STREAM", cc.DLQStream, "D"},
		{"CONSUMER_NAME", cc.Consumer, "C"}, {"SUBJECT_PREFIX", cc.Subjects().JobsFilter(), "acme.flow.jobs.>"},
		{"MAX_DELIVER", cc.MaxDeliver, 7}, {"ACK_WAIT", cc.AckWait, 2 * time.Minute},
		{"DUPLICATE_WINDOW", cc.DuplicateWindow, 10 * time.Minute}, {"JOBS_MAX_MSGS", cc.JobsMaxMsgs, int64(500)},
		{"JOBS_MAX_BYTES", cc.JobsMaxBytes, int64(-1)}, {"RESULTS_MAX_AGE", cc.ResultsMaxAge, 48 * time.Hour},
		{"DLQ_MAX_AGE", cc.DLQMaxAge, 72 * time.Hour}, {"STREAM_REPLICAS", cc.Replicas, 3},
		{"MAX_JOB_BYTES", cc.MaxJobBytes, 65536}, {"SHUTDOWN_GRACE", cc.ShutdownGrace, 45 * time.Second},
		{"ADMIN_ADDR", cfg.AdminAddr, "127.0.0.1:9999"}, {"LOG_LEVEL", cfg.LogLevel, "debug"},
		{"SANDBOX_MAX_PARALLEL", cc.Parallel, 3}, {"SANDBOX_TIMEOUT_MS", cc.ScriptTimeout, 1500 * time.Millisecond},
		{"FAILURE_RECORDS", cc.NoFailureRecords, true}, {"EXECUTOR_HOLD_PROCESSOR", cfg.HoldProcessor, "off"},
	}
	// The embedded server's settings, which apply without NATS_URL.
	embedded, err := ConfigFromEnv(envOf(map[string]string{"EXECUTOR_DATA_DIR": "/var/lib/y", "EMBEDDED_NATS_ADDR": "127.0.0.1:4333"}))
	if err != nil {
		t.Fatal(err)
	}
	checks = append(checks, []struct {
		name      string
		got, want any
	}{
		{"EXECUTOR_DATA_DIR", cfg.DataDir, "/var/lib/x"}, {"EXECUTOR_DATA_DIR", embedded.DataDir, "/var/lib/y"},
		{"EMBEDDED_NATS_ADDR", embedded.EmbeddedNATSAddr, "127.0.0.1:4333"},
	}...)
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// One start names every bad variable: those that do not parse and those
// the later checks refuse.
func TestConfigFromEnvNamesEveryBadVariable(t *testing.T) {
	_, err := ConfigFromEnv(envOf(map[string]string{"MAX_DELIVER": "many", "LOG_LEVEL": "loud", "FAILURE_RECORDS": "no"}))
	for _, want := range []string{"MAX_DELIVER must be a whole number", "LOG_LEVEL must be debug, info, warn or error", "FAILURE_RECORDS must be on"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to name %q", err, want)
		}
	}
}

func TestConfigFromEnvNamesTheBadVariable(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MAX_DELIVER": "many"}, "MAX_DELIVER must be a whole number"},
		{map[string]string{"MAX_ACK_PENDING": "99999999999999999999"}, `MAX_ACK_PENDING is too large a number, got "99999999999999999999"`},
		{map[string]string{"ACK_WAIT": "30"}, "ACK_WAIT must be a duration"},
		{map[string]string{"ACK_WAIT": "1s"}, "ACK_WAIT (1s) must be above the script timeout"},
		{map[string]string{"SANDBOX_TIMEOUT_MS": "soon"}, "SANDBOX_TIMEOUT_MS"},
		{map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL must be debug, info, warn or error"},
		{map[string]string{"NATS_CREDS": "/x.creds"}, "NATS_CREDS is set but NATS_URL is empty"},
		{map[string]string{"STREAM_REPLICAS": "3"}, "STREAM_REPLICAS is 3 but NATS_URL is empty"},
		{map[string]string{"NATS_URL": "nats://a:4222", "EMBEDDED_NATS_ADDR": "127.0.0.1:4333"}, "EMBEDDED_NATS_ADDR is set but so is NATS_URL"},
		{map[string]string{"RESULTS_MAX_AGE": "1m", "DUPLICATE_WINDOW": "5m"}, "RESULTS_MAX_AGE (1m0s) must be at least DUPLICATE_WINDOW (5m0s)"},
		{map[string]string{"NATS_URL": "nats-without-scheme"}, `NATS_URL must be one URL or a comma-separated list such as nats://nats-1:4222,nats://nats-2:4222: "nats-without-scheme" has no scheme`},
		{map[string]string{"NATS_URL": "nats://a:4222, nats//b:4223"}, `URL 2 of 2 ("nats//b:4223") has no scheme`},
		{map[string]string{"NATS_URL": "nats://a:4222,,nats://c:4222"}, "URL 2 of 3 (\"\") is empty"},
		{map[string]string{"JOBS_STREAM": "jobs.v2"}, "JOBS_STREAM"},
		{map[string]string{"SUBJECT_PREFIX": "a.>"}, "SUBJECT_PREFIX"},
		{map[string]string{"MAX_JOB_BYTES": "10"}, "MAX_JOB_BYTES"},
		{map[string]string{"FAILURE_RECORDS": "no"}, `FAILURE_RECORDS must be on (keep a record of each job whose script failed, for replay) or off, got "no"`},
		{map[string]string{"EXECUTOR_HOLD_PROCESSOR": "false"}, `EXECUTOR_HOLD_PROCESSOR must be on (hold one more Go processor while busy, so the Go runtime's monitor thread stays calm) or off, got "false"`},
		// 0 would read as unset: refused, not taken as the default
		{map[string]string{"MAX_DELIVER": "0"}, `MAX_DELIVER must be more than 0 (unset it for the default), got "0"`},
		{map[string]string{"ACK_WAIT": "0s"}, `ACK_WAIT must be more than 0 (unset it for the default), got "0s"`},
		{map[string]string{"KV_MAX_KEYS": "0"}, "KV_MAX_KEYS must be more than 0"},
		{map[string]string{"SANDBOX_MAX_PARALLEL": "0"}, "SANDBOX_MAX_PARALLEL must be between 1 and 1024, got 0"},
		// a key that is a pattern, named by its own variable
		{map[string]string{"CONTINUATION_KEY": strings.Repeat("changeme", 5)}, `CONTINUATION_KEY: it repeats "changeme"`},
		{map[string]string{"CONTINUATION_KEY": "a-continuation-key-of-the-config-tests", "CONTINUATION_PREVIOUS_KEY": strings.Repeat("x", 40)},
			"CONTINUATION_PREVIOUS_KEY: it holds only 1 different characters"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := ConfigFromEnv(envOf(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// NATS_URL takes a list, as nats.go does: commas, optional spaces.
func TestNATSURLList(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{"NATS_URL": "nats://a:4222, nats://b:4223 ,nats://u:s3cr3t@c:4224"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nats://a:4222", "nats://b:4223", "nats://u:s3cr3t@c:4224"}
	if got := cfg.NATSServers(); !slices.Equal(got, want) {
		t.Errorf("NATSServers() = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("starting", "config", cfg)
	if want := `"nats":"nats://a:4222, nats://b:4223 ,nats://u:xxxxx@c:4224"`; !strings.Contains(buf.String(), want) {
		t.Errorf("the printed config %s does not show %s", buf.String(), want)
	}
	_, err = ConfigFromEnv(envOf(map[string]string{"NATS_URL": "nats://u:s3cr3t@a:42x2, nats://b:4223"}))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "URL 1 of 2") {
		t.Errorf("a bad URL with a password: %v, want URL 1 of 2 named without its password", err)
	}
}

// SHUTDOWN_GRACE=0 means no grace: in-flight jobs are handed back at once.
func TestShutdownGraceZero(t *testing.T) {
	cfg, err := ConfigFromEnv(envOf(map[string]string{"SHUTDOWN_GRACE": "0"}))
	if err != nil || cfg.Consumer().ShutdownGrace <= 0 || cfg.Consumer().ShutdownGrace > time.Millisecond {
		t.Errorf("SHUTDOWN_GRACE=0: %v, grace %s; want next to nothing", err, cfg.Consumer().ShutdownGrace)
	}
	// The logs say 0s, as it was given, not the 1 ns it is kept as.
	if got := cfg.Consumer().ShutdownGraceString(); got != "0s" {
		t.Errorf("SHUTDOWN_GRACE=0 shown as %q, want 0s", got)
	}
	if got := (consumer.Config{ShutdownGrace: 45 * time.Second}).ShutdownGraceString(); got != "45s" {
		t.Errorf("SHUTDOWN_GRACE=45s shown as %q", got)
	}
}

func TestConfigIsPrintedWithoutSecrets(t *testing.T) {
	for _, url := range []string{"nats://exec:s3cr3t@nats:4222", "nats://s3cr3t@nats:4222"} {
		cfg, err := ConfigFromEnv(envOf(map[string]string{"NATS_URL": url}))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("starting", "config", cfg)
		if strings.Contains(buf.String(), "s3cr3t") {
			t.Errorf("the printed config shows the secret of %s: %s", url, buf.String())
		}
		if !strings.Contains(buf.String(), "nats:4222") {
			t.Errorf("the printed config lost the broker address: %s", buf.String())
		}
	}
}

// TestEveryVariableIsDocumented: the package doc lists every variable the
// executor reads.
func TestEveryVariableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range EnvVars() {
		if !bytes.Contains(doc, []byte(name)) {
			t.Errorf("%s is read but not documented in doc.go", name)
		}
	}
}

func TestAdminEndpoints(t *testing.T) {
	ready, reason := false, "not pulling jobs"
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("# metrics\n")) })
	srv := httptest.NewServer(newAdminHandler(metrics, func() (bool, string) { return ready, reason }))
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()
	get := func(path string) int {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode
	}
	if got := get("/healthz"); got != http.StatusOK {
		t.Errorf("/healthz = %d", got)
	}
	if got := get("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz before ready = %d, want 503", got)
	}
	ready = true
	if got := get("/readyz"); got != http.StatusOK {
		t.Errorf("/readyz when ready = %d, want 200", got)
	}
	if got := get("/metrics"); got != http.StatusOK {
		t.Errorf("/metrics = %d, want 200", got)
	}
}
