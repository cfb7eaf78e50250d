package templatesapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// The templates API as it runs: cmd/templates-api built once, started with
// an environment, spoken to over HTTP. Its sandbox workers are its own
// binary re-executed, as in production.

var (
	apiBinOnce sync.Once
	apiBinPath string
	apiBinErr  error
	apiBinDir  string
)

// apiBinary builds cmd/templates-api once for the package's tests.
func apiBinary(t testing.TB) string {
	t.Helper()
	apiBinOnce.Do(func() {
		apiBinDir, apiBinErr = os.MkdirTemp("", "templatesapi-bin-")
		if apiBinErr != nil {
			return
		}
		apiBinPath = filepath.Join(apiBinDir, "templates-api")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", apiBinPath, "./cmd/templates-api")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			apiBinErr = fmt.Errorf("building cmd/templates-api: %w\n%s", err, out)
		}
	})
	if apiBinErr != nil {
		t.Fatal(apiBinErr)
	}
	return apiBinPath
}

// removeAPIBinary deletes the built binary (TestMain calls it).
func removeAPIBinary() {
	if apiBinDir != "" {
		_ = os.RemoveAll(apiBinDir)
	}
}

// apiProcess is a running templates-api binary.
type apiProcess struct {
	t      testing.TB
	cmd    *exec.Cmd
	base   string
	client *http.Client
	logs   *lockedBuffer
	done   chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startAPIBinary starts the binary with the embedded store in a temporary
// folder, an API key, and env on top, and waits until it listens.
func startAPIBinary(t *testing.T, env map[string]string) *apiProcess {
	t.Helper()
	cmd := exec.Command(apiBinary(t))
	cmd.Env = []string{"HOME=" + t.TempDir(), "AUTH_API_KEYS=" + testAPIKey, "TEMPLATES_ADDR=127.0.0.1:0",
		"TEMPLATES_DATA_DIR=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &apiProcess{t: t, cmd: cmd, logs: &lockedBuffer{}, done: make(chan struct{}),
		client: &http.Client{Timeout: time.Minute}}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			_, _ = p.logs.Write(append(line, '\n'))
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "templates API listening" {
				addr <- rec.Addr
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		p.client.CloseIdleConnections()
		if t.Failed() {
			t.Logf("templates-api logs:\n%s", p.logs.String())
		}
	})
	select {
	case a := <-addr:
		p.base = "http://" + a
	case <-p.done:
		t.Fatalf("templates-api exited before listening:\n%s", p.logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("templates-api did not listen within a minute:\n%s", p.logs.String())
	}
	return p
}

// post sends body to path with the API key and returns the status and the
// raw answer. A transport error (the process is gone) fails the test.
func (p *apiProcess) post(path string, body any) (int, []byte) {
	p.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		p.t.Fatal(err)
	}
	req, err := http.NewRequest("POST", p.base+path, bytes.NewReader(raw))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", testAPIKey)
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatalf("POST %s: %v (is the service down?)\n%s", path, err, p.logs.String())
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// up fails the test unless the process still answers its probe.
func (p *apiProcess) up() {
	p.t.Helper()
	resp, err := p.client.Get(p.base + "/healthz")
	if err != nil {
		p.t.Fatalf("the service is down: %v\n%s", err, p.logs.String())
	}
	_ = resp.Body.Close() // only the status matters
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("/healthz answered %d", resp.StatusCode)
	}
}

// rss is the resident anonymous memory of the API process itself (not its
// workers): its heap and stacks, without the pages of the embedded store's
// memory-mapped file, which grow with the data it holds.
func (p *apiProcess) rss() uint64 {
	p.t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				p.t.Fatal(err)
			}
			return kb << 10
		}
	}
	p.t.Fatal("no RssAnon")
	return 0
}

// warnings returns the WARN and ERROR log lines the process wrote.
func (p *apiProcess) warnings() []string {
	var out []string
	for line := range strings.Lines(p.logs.String()) {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// hostileTemplateSources are what the red team sent, and variants.
func hostileTemplateSources() map[string]string {
	return map[string]string{
		"262,000 brackets":         "return " + strings.Repeat("[", 262000),
		"40,000 nested blocks":     strings.Repeat("{", 40000) + strings.Repeat("}", 40000),
		"nested calls":             "return " + strings.Repeat("f(", 100000) + strings.Repeat(")", 100000),
		"nested templates":         "return " + strings.Repeat("`${", 30000),
		"a chain of additions":     "return 1" + strings.Repeat("+1", 120000),
		"200,000 unary operators":  "return " + strings.Repeat("!", 200000) + "1",
		"60,000 conditionals":      "return " + strings.Repeat("a?1:", 60000) + "2",
		"compiled regex literals":  "return [" + strings.Repeat("/a{1000}/,", 20000) + "]",
		"12,000 nested arrows":     "return " + strings.Repeat("x=>", 12000) + "1",
		"deep line after U+2028":   "const a = 1\u2028\u2029const b = 2\r\nreturn " + strings.Repeat("[", 1000),
		"async execute":            "async function execute() { return 1 }",
		"unbalanced closing brace": "return 1 }; (function () {",
	}
}

// TestAPIBinarySurvivesHostileSources: every hostile source, saved or
// test-run, gets a 4xx or a test-run error within the time limit plus a
// margin, and the service stays up.
func TestAPIBinarySurvivesHostileSources(t *testing.T) {
	p := startAPIBinary(t, map[string]string{"SANDBOX_TIMEOUT_MS": "2000", "SANDBOX_MAX_PARALLEL": "2"})
	for name, src := range hostileTemplateSources() {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			status, body := p.post("/api/script-templates", map[string]string{"name": "hostile", "source": src})
			if status < 400 || status >= 500 {
				t.Errorf("save: %d %.300s; want a 4xx", status, body)
			}
			status, body = p.post("/api/scripts/test", map[string]any{"source": src})
			var run testRunAnswer
			if status == http.StatusOK {
				if err := json.Unmarshal(body, &run); err != nil {
					t.Fatal(err)
				}
			}
			if status == http.StatusOK && run.OK || status >= 500 {
				t.Errorf("test run: %d %.300s; want a 4xx or a failed run", status, body)
			}
			if elapsed := time.Since(start); elapsed > 2*(2*time.Second+3*time.Second) {
				t.Errorf("the save and the test run took %v", elapsed)
			}
			p.up()
		})
	}
	if w := p.warnings(); len(w) > 0 {
		t.Errorf("the service logged warnings: %q", w)
	}
}

// TestAPIBinaryMemoryStaysBounded: a hundred distinct large sources (the
// red team's arrays of arrow functions, 250 KB each), saved or test-run one
// after the other, leave the API process's resident memory bounded: it no
// longer compiles them itself, so it keeps no program of them.
func TestAPIBinaryMemoryStaysBounded(t *testing.T) {
	p := startAPIBinary(t, map[string]string{"SANDBOX_MAX_PARALLEL": "2", "SANDBOX_TIMEOUT_MS": "10000"})
	save := func(i int) {
		var b strings.Builder
		fmt.Fprintf(&b, "const fs%d = [", i)
		for b.Len() < 250000 {
			b.WriteString("() => 0, ")
		}
		fmt.Fprintf(&b, "]\nreturn fs%d.length", i)
		if i%2 == 1 {
			if status, body := p.post("/api/scripts/test", map[string]string{"source": b.String()}); status != http.StatusOK {
				t.Fatalf("test run %d: %d %.300s", i, status, body)
			}
			return
		}
		if status, body := p.post("/api/script-templates", map[string]string{"name": fmt.Sprint("big ", i), "source": b.String()}); status != http.StatusCreated {
			t.Fatalf("save %d: %d %.300s", i, status, body)
		}
	}
	save(0)
	before := p.rss()
	for i := 1; i <= 50; i++ {
		save(i)
	}
	half := p.rss()
	for i := 51; i <= 100; i++ {
		save(i)
	}
	after := p.rss()
	t.Logf("API process anonymous RSS: %d MB after one source, %d MB after 50, %d MB after 100", before>>20, half>>20, after>>20)
	// The red team saw 58 → 199 MB after eight such sources. Decoding a
	// 250 KB body leaves a little garbage behind, not a program.
	if after > before+48<<20 || after > half+24<<20 {
		t.Errorf("anonymous RSS grew from %d to %d to %d MB", before>>20, half>>20, after>>20)
	}
	p.up()
}

// TestAPIBinaryTestRunsAreIsolated: through the test-run route of one
// worker, a worker poisoned with large programs never fails an ordinary
// script, BigInt panics are script errors on the first run, eight
// retirements in a row cost no back-off, and a long input to a
// backtracking regex gives the right answer (or a limit), never a wrong
// one.
func TestAPIBinaryTestRunsAreIsolated(t *testing.T) {
	// Time is not what this test is about: a long limit keeps a busy
	// machine from failing a heavy job on its deadline.
	p := startAPIBinary(t, map[string]string{"SANDBOX_MAX_PARALLEL": "1", "SANDBOX_TIMEOUT_MS": "10000"})
	run := func(src string, inputs ...map[string]string) testRunAnswer {
		t.Helper()
		body := map[string]any{"source": src}
		if len(inputs) > 0 {
			body["inputVariables"] = inputs
		}
		status, raw := p.post("/api/scripts/test", body)
		if status != http.StatusOK {
			t.Fatalf("test run: %d %.300s", status, raw)
		}
		var out testRunAnswer
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	output := func(a testRunAnswer) string {
		if a.Output == nil {
			return ""
		}
		return *a.Output
	}
	const heavy = "const a = []; for (let i = 0; i < 30000; i++) a.push({i, s: 'item ' + i}); return a.length"

	t.Run("poisoned worker", func(t *testing.T) {
		for i := range 14 {
			var b strings.Builder
			fmt.Fprintf(&b, "const fs%d = [", i)
			for b.Len() < 60000 {
				b.WriteString("() => 0, ")
			}
			fmt.Fprintf(&b, "]; return fs%d.length", i)
			if a := run(b.String()); !a.OK {
				t.Fatalf("poison %d: %v", i, a.Error)
			}
			if a := run(heavy); output(a) != "30000" {
				t.Fatalf("the ordinary script after poison %d: %q, %v", i, output(a), a.Error)
			}
		}
	})
	t.Run("BigInt panics", func(t *testing.T) {
		for _, src := range []string{"return BigInt.asUintN(2**53 - 1, -1n)", "return 1n << (2n ** 53n)", "return BigInt(\"\\u{10FFFF}\")"} {
			a := run(src)
			if a.OK || a.Error == nil || (a.Error.Code != sandbox.CodeMemoryLimit && a.Error.Code != sandbox.CodeScriptError) {
				t.Errorf("%s: %+v; want a script error", src, a)
			}
		}
	})
	t.Run("eight retirements", func(t *testing.T) {
		start := time.Now()
		var own float64
		for i := range 8 {
			a := run(fmt.Sprintf("let b = new Uint8Array(8e7); b = null; return %d", i))
			if a.OK || a.Error == nil || a.Error.Code != sandbox.CodeMemoryLimit {
				t.Fatalf("job %d: %+v; want SCRIPT_MEMORY_LIMIT", i, a)
			}
			own += a.DurationMs
		}
		if a := run("return 1"); output(a) != "1" {
			t.Fatalf("after the retirements: %+v", a)
		}
		elapsed := time.Since(start)
		t.Logf("eight retirements in %v (the jobs' own time %.0f ms)", elapsed, own)
		// The back-off of crashes would add 50 + 100 + … + 3,200 ms.
		if elapsed > 5*time.Second+time.Duration(own)*time.Millisecond {
			t.Errorf("eight retirements took %v; want no back-off", elapsed)
		}
	})
	t.Run("backtracking regex", func(t *testing.T) {
		long := strings.Repeat("a", 200000)
		a := run("return /^(?:(?!DROP)[\\s\\S])*DROP/.test(s + 'DROP')", map[string]string{"name": "s", "value": long})
		if a.OK && output(a) != "true" || !a.OK && a.Error.Code != sandbox.CodeTimeout && a.Error.Code != sandbox.CodeMemoryLimit {
			t.Errorf("got %+v; want true, SCRIPT_TIMEOUT or SCRIPT_MEMORY_LIMIT", a)
		}
	})
	if w := p.warnings(); len(w) > 0 {
		t.Errorf("the service logged warnings: %q", w)
	}
}
