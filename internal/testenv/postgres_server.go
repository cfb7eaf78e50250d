package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// PostgresServer is a private PostgreSQL server a test may stop and start
// (a real restart, which the machine's shared server must not suffer).
type PostgresServer struct {
	t       testing.TB
	bin     string
	dataDir string
	port    int
}

// StartPostgresServer initializes and starts a private PostgreSQL server on
// a free loopback port, with trust authentication, and removes it when the
// test ends. It needs the server binaries of Debian's postgresql package
// and, when run as root, the postgres user (the server refuses root).
func StartPostgresServer(t testing.TB) *PostgresServer {
	t.Helper()
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(matches) == 0 {
		Unavailable(t, "PostgreSQL server binaries", "/usr/lib/postgresql/*/bin", fmt.Errorf("pg_ctl not found"))
		return nil
	}
	p := &PostgresServer{t: t, bin: filepath.Dir(matches[len(matches)-1])}
	root, err := os.MkdirTemp("", "flowscript-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	p.dataDir = filepath.Join(root, "data")
	if err := os.Mkdir(p.dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			Unavailable(t, "the postgres user", "/etc/passwd", err)
			return nil
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		for _, dir := range []string{root, p.dataDir} {
			if err := os.Chown(dir, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(root, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.port = FreePort(t)
	p.run("initdb", "-D", p.dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	p.Start()
	t.Cleanup(func() { p.ctl("stop", "-m", "immediate") })
	return p
}

// URL is the server's connection URL, database postgres.
func (p *PostgresServer) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", p.port)
}

// Start starts the server and waits until it accepts connections.
func (p *PostgresServer) Start() {
	p.t.Helper()
	p.ctl("start", "-w", "-t", "30", "-l", filepath.Join(p.dataDir, "server.log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dataDir))
}

// Stop stops the server (fast shutdown: sessions are cut, as in a restart).
func (p *PostgresServer) Stop() {
	p.t.Helper()
	p.ctl("stop", "-w", "-m", "fast")
}

func (p *PostgresServer) ctl(args ...string) {
	p.t.Helper()
	p.run("pg_ctl", append([]string{"-D", p.dataDir}, args...)...)
}

func (p *PostgresServer) run(tool string, args ...string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name, argv := filepath.Join(p.bin, tool), args
	if os.Geteuid() == 0 {
		name, argv = "runuser", append([]string{"-u", "postgres", "--", filepath.Join(p.bin, tool)}, args...)
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("%s %v: %v\n%s", tool, args, err, out)
	}
}
