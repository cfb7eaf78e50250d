package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// NATSKind is a nats-server build the tests run as a process of their own,
// so that they can kill it, stop it (SIGSTOP) and restart it.
type NATSKind string

const (
	// NATSMachine is the machine's nats-server binary (Debian's 2.9;
	// FLOWSCRIPT_TEST_NATS_SERVER names another).
	NATSMachine NATSKind = "machine"
	// NATSModule is the nats-server of go.mod, the 2.1x the executor
	// embeds, built from internal/testenv/natsd.
	NATSModule NATSKind = "module"
)

// NATSKinds are the builds every broker drill runs against.
var NATSKinds = []NATSKind{NATSMachine, NATSModule}

// NATSProcessOptions configure one nats-server process. Zero values take
// defaults: a free port, a temporary store, no cluster.
type NATSProcessOptions struct {
	Port int
	Dir  string
	Name string
	// ClusterPort, ClusterName and Routes make the server a cluster node.
	ClusterPort int
	ClusterName string
	Routes      []string
}

// NATSProcess is one nats-server process with JetStream on loopback. It is
// stopped when the test ends.
type NATSProcess struct {
	Kind NATSKind
	Port int
	Dir  string
	// Name is the server name (-n), "" for the binary's default.
	Name string

	t    testing.TB
	bin  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	log    *SyncBuffer
	paused bool
}

// StartNATSProcess starts a nats-server of kind and waits until it
// accepts connections. A machine binary that is missing skips the test, or
// fails it when FLOWSCRIPT_REQUIRE_SERVICES=1.
func StartNATSProcess(t testing.TB, kind NATSKind, o NATSProcessOptions) *NATSProcess {
	t.Helper()
	p := &NATSProcess{Kind: kind, Port: o.Port, Dir: o.Dir, Name: o.Name, t: t, bin: natsBinary(t, kind)}
	if p.Port == 0 {
		p.Port = FreePort(t)
	}
	if p.Dir == "" {
		p.Dir = t.TempDir()
	}
	p.args = []string{"-a", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-js", "-sd", p.Dir}
	if o.Name != "" {
		p.args = append(p.args, "-n", o.Name)
	}
	if o.ClusterPort != 0 {
		p.args = append(p.args, "--cluster", fmt.Sprintf("nats://127.0.0.1:%d", o.ClusterPort),
			"--cluster_name", o.ClusterName)
		if len(o.Routes) > 0 {
			p.args = append(p.args, "--routes", strings.Join(o.Routes, ","))
		}
	}
	p.Start()
	t.Cleanup(func() {
		p.Resume()
		p.Kill()
		if t.Failed() {
			t.Logf("nats-server %s on port %d:\n%s", kind, p.Port, p.log.String())
		}
	})
	return p
}

// URL is the process's client URL.
func (p *NATSProcess) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", p.Port) }

// Start (re)starts the process with its first arguments (same port, same
// store) and waits until it accepts connections.
func (p *NATSProcess) Start() {
	p.t.Helper()
	p.mu.Lock()
	cmd := exec.Command(p.bin, p.args...) //nolint:gosec,noctx // the test's own broker, stopped by Kill
	if p.log == nil {
		p.log = &SyncBuffer{}
	}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		p.t.Fatalf("starting nats-server %s: %v", p.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit is what the test asked for
		close(done)
	}()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(context.Background(), "tcp", fmt.Sprintf("127.0.0.1:%d", p.Port))
		if err == nil {
			_ = conn.Close()
			return
		}
		select {
		case <-done:
			p.t.Fatalf("nats-server %s exited at start:\n%s", p.Kind, p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("nats-server %s did not accept connections on port %d within 20s:\n%s", p.Kind, p.Port, p.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the process with SIGKILL and waits for it.
func (p *NATSProcess) Kill() { p.signal(syscall.SIGKILL, true) }

// Stop ends the process with SIGTERM (a clean shutdown) and waits for it.
func (p *NATSProcess) Stop() { p.signal(syscall.SIGTERM, true) }

// Running reports whether the process is running (paused counts).
func (p *NATSProcess) Running() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Answering reports whether the process is running and not paused.
func (p *NATSProcess) Answering() bool {
	p.mu.Lock()
	paused := p.paused
	p.mu.Unlock()
	return p.Running() && !paused
}

// Log is what the process printed so far (every run of it).
func (p *NATSProcess) Log() string { return p.log.String() }

// Pause stops the process with SIGSTOP: its connections stay open and
// nothing answers on them (a half-open broker).
func (p *NATSProcess) Pause() {
	p.signal(syscall.SIGSTOP, false)
	p.setPaused(true)
}

// Resume continues a paused process.
func (p *NATSProcess) Resume() {
	p.signal(syscall.SIGCONT, false)
	p.setPaused(false)
}

func (p *NATSProcess) setPaused(paused bool) {
	p.mu.Lock()
	p.paused = paused
	p.mu.Unlock()
}

func (p *NATSProcess) signal(sig syscall.Signal, wait bool) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(sig) // it may have exited meanwhile
	if !wait {
		return
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// FreeAddr returns a loopback address (127.0.0.1:port) nothing listens on
// now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(t))
}

// FreePort returns a loopback TCP port nothing listens on now and that no
// earlier call in this test binary returned. The kernel may hand a port
// just closed to the next bind of port 0, so without the record a cluster
// could be given one route port for two nodes (CI saw it: the third node
// exited with "address already in use").
func FreePort(t testing.TB) int {
	t.Helper()
	given.mu.Lock()
	defer given.mu.Unlock()
	if given.ports == nil {
		given.ports = make(map[int]bool)
	}
	for range 100 {
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close() // only the number is wanted
		if !given.ports[port] {
			given.ports[port] = true
			return port
		}
	}
	t.Fatal("finding a free port: 100 binds of port 0 returned ports this test binary had already given out")
	return 0
}

// given records the ports FreePort has returned.
var given struct {
	mu    sync.Mutex
	ports map[int]bool
}

// natsBinary returns the binary of kind, building the module's once.
func natsBinary(t testing.TB, kind NATSKind) string {
	t.Helper()
	switch kind {
	case NATSMachine:
		bin := os.Getenv("FLOWSCRIPT_TEST_NATS_SERVER")
		if bin == "" {
			bin = "/usr/sbin/nats-server"
		}
		if _, err := os.Stat(bin); err != nil {
			Unavailable(t, "the machine's nats-server binary", bin, err)
		}
		return bin
	case NATSModule:
		natsdOnce.Do(buildNatsd)
		if natsdErr != nil {
			t.Fatal(natsdErr)
		}
		return natsdPath
	}
	t.Fatalf("unknown nats-server kind %q", kind)
	return ""
}

var (
	natsdOnce sync.Once
	natsdPath string
	natsdErr  error
)

// buildNatsd builds internal/testenv/natsd into the temporary folder, once
// per nats-server version: test binaries of every package share it.
func buildNatsd() {
	version := "devel"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/nats-io/nats-server/v2" {
				version = m.Version
			}
		}
	}
	natsdPath = filepath.Join(os.TempDir(), "flowscript-natsd-"+version+"-"+runtime.Version())
	if _, err := os.Stat(natsdPath); err == nil {
		return
	}
	_, file, _, _ := runtime.Caller(0)
	tmp := fmt.Sprintf("%s.%d", natsdPath, os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./internal/testenv/natsd")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		natsdErr = fmt.Errorf("building internal/testenv/natsd: %w\n%s", err, out)
		return
	}
	if err := os.Rename(tmp, natsdPath); err != nil {
		natsdErr = fmt.Errorf("installing natsd: %w", err)
	}
}

// SyncBuffer is a bytes.Buffer safe for a process's output and a reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
