package templatesapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/testenv"
)

// TestMainServesWithInjectedEnvAndWriters: Main reads its configuration
// through Getenv, logs to Stdout, serves on the injected listener and
// returns 0 once its context ends; a bad configuration is exit 2 with the
// reason on Stderr.
func TestMainServesWithInjectedEnvAndWriters(t *testing.T) {
	var key [16]byte
	_, _ = rand.Read(key[:])
	apiKey := hex.EncodeToString(key[:])
	env := map[string]string{"AUTH_API_KEYS": apiKey, "TEMPLATES_DATA_DIR": t.TempDir(), "LOG_LEVEL": "debug"}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr testenv.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	exit := make(chan int, 1)
	go func() {
		exit <- Main(ctx, Deps{Getenv: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr, Listener: ln})
	}()
	base := "http://" + ln.Addr().String()
	var status int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/script-templates",
			strings.NewReader(`{"name":"Dobro","source":"function execute(n) { return Number(n) * 2 }"}`))
		req.Header.Set("X-API-Key", apiKey)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			break
		}
	}
	if status != http.StatusCreated {
		t.Fatalf("creating a template through Main: status %d; stdout:\n%s", status, stdout.String())
	}
	cancel()
	select {
	case code := <-exit:
		if code != ExitOK {
			t.Fatalf("Main exited with %d, want 0; stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Main did not return after its context ended")
	}
	if !strings.Contains(stdout.String(), `"msg":"templates API listening"`) {
		t.Errorf("the logs on Stdout do not say the API listened:\n%s", stdout.String())
	}

	var errOut testenv.SyncBuffer
	code := Main(context.Background(), Deps{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: &errOut})
	if code != ExitUsage || !strings.Contains(errOut.String(), "AUTH_") {
		t.Errorf("no credentials configured: exit %d, stderr %q: want 2 naming the AUTH_ variables", code, errOut.String())
	}

	// The service takes no arguments: -h says how it is configured, and
	// anything else is refused instead of ignored.
	var help testenv.SyncBuffer
	if code := Main(context.Background(), Deps{Args: []string{"--help"}, Getenv: func(string) string { return "" }, Stdout: &help, Stderr: io.Discard}); code != ExitOK ||
		!strings.Contains(help.String(), "Usage: templates-api") || !strings.Contains(help.String(), "TEMPLATES_ADDR") {
		t.Errorf("--help: exit %d, %q", code, help.String())
	}
	errOut = testenv.SyncBuffer{}
	if code := Main(context.Background(), Deps{Args: []string{"--bogus"}, Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: &errOut}); code != ExitUsage ||
		!strings.Contains(errOut.String(), `it takes no arguments, got ["--bogus"]`) {
		t.Errorf("an argument: exit %d, %q", code, errOut.String())
	}
}
