package executorapp

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/testenv"
)

func TestUnknownVariables(t *testing.T) {
	environ := []string{
		"SANDBOX_TIMEOUT=500",                // SANDBOX_TIMEOUT_MS without its unit
		"NATS_ULR=nats://nats:4222",          // two letters swapped
		"MAX_DELIVERY=5",                     // a letter too many, no prefix of ours
		"LOG_LEVL=debug",                     // a letter short
		"SANDBOX_SIZE=10",                    // ours by its prefix, near nothing
		"MAX_PARALLEL=4",                     // the end of SANDBOX_MAX_PARALLEL
		"KV_SIZE=10",                         // a connector's secret, maybe: not reported
		"NATS_USER=app", "NATS_CONTEXT=prod", // the NATS tools' variables
		"NATS_MAX_PAYLOAD=1048576", // the templates API's
		"SANDBOX_TIMEOUT_MS=500",   // known
		"HOME=/root", "PATH=/bin",  // the process's own
		"MAX_CONNECTIONS=5",              // far from every name: not ours
		"EXECUTOR_SERVICE_HOST=10.0.0.1", // a Kubernetes Service named executor
		"EXECUTOR_PORT_9090_TCP_ADDR=10.0.0.1",
		"NATS_PORT=tcp://10.0.0.2:4222",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318",
		"=C:=C:\\", // Windows' drive variables have no name
	}
	want := map[string]string{
		"SANDBOX_TIMEOUT": "SANDBOX_TIMEOUT_MS",
		"NATS_ULR":        "NATS_URL",
		"MAX_DELIVERY":    "MAX_DELIVER",
		"LOG_LEVL":        "LOG_LEVEL",
		"SANDBOX_SIZE":    "",
		"MAX_PARALLEL":    "SANDBOX_MAX_PARALLEL",
	}
	got := map[string]string{}
	for _, v := range unknownVariables(environ, EnvVars()) {
		got[v.name] = v.meant
	}
	if len(got) != len(want) {
		t.Errorf("unknown variables %v, want %v", got, want)
	}
	for name, meant := range want {
		if m, ok := got[name]; !ok || m != meant {
			t.Errorf("%s: reported %t, meant %q; want reported, meant %q", name, ok, m, meant)
		}
	}
}

// Main warns of each misspelled variable, naming the one meant, and
// starts all the same (the variable is ignored, as before).
func TestMainWarnsOfMisspelledVariables(t *testing.T) {
	var stderr testenv.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stop as soon as started
	env := map[string]string{
		"EXECUTOR_DATA_DIR":  t.TempDir(),
		"EMBEDDED_NATS_ADDR": "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)),
		"ADMIN_ADDR":         "127.0.0.1:0",
	}
	code := Main(ctx, Deps{
		Args: []string{"-demo=off"}, Getenv: envOf(env), Stdout: io.Discard, Stderr: &stderr,
		Environ: func() []string { return []string{"SANDBOX_TIMEOUT=500", "HOME=/root"} },
	})
	if code != ExitOK {
		t.Errorf("exit %d, want 0: a misspelled variable is warned of, not refused", code)
	}
	var warning string
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, `"variable":"SANDBOX_TIMEOUT"`) {
			warning = line
		}
		if strings.Contains(line, "HOME") {
			t.Errorf("a variable of the process's own was warned of: %s", line)
		}
	}
	if !containsAll(warning, `"level":"WARN"`, `"did_you_mean":"SANDBOX_TIMEOUT_MS"`, "misspelling") {
		t.Errorf("no warning naming SANDBOX_TIMEOUT and SANDBOX_TIMEOUT_MS in:\n%s", stderr.String())
	}
}

// A misspelling that breaks the configuration is pointed out beside the
// error it causes: NATS_ULR leaves NATS_URL empty.
func TestMainNamesTheMisspellingBehindABadConfiguration(t *testing.T) {
	var stderr testenv.SyncBuffer
	code := Main(context.Background(), Deps{
		Getenv: envOf(map[string]string{"STREAM_REPLICAS": "3"}), Stdout: io.Discard, Stderr: &stderr,
		Environ: func() []string { return []string{"STREAM_REPLICAS=3", "NATS_ULR=nats://nats:4222"} },
	})
	if code != ExitUsage || !containsAll(stderr.String(), "NATS_URL is empty", "NATS_ULR is not a variable the executor reads: did you mean NATS_URL?") {
		t.Errorf("exit %d, stderr %q; want 2, the error and the misspelling named", code, stderr.String())
	}
}
