// Package testenv gives tests the real services they run against: an
// embedded NATS server with JetStream in a temporary folder, the machine's
// NATS, and the machine's PostgreSQL.
//
// When a machine service cannot be reached the test is skipped, unless
// FLOWSCRIPT_REQUIRE_SERVICES=1 (CI sets it), in which case it fails: CI
// must never pass by skipping the real-service tests.
package testenv

import (
	"context"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// RequireServices reports whether unreachable services fail tests.
func RequireServices() bool { return os.Getenv("FLOWSCRIPT_REQUIRE_SERVICES") == "1" }

// Unavailable skips t, or fails it when services are required.
func Unavailable(t testing.TB, service, addr string, err error) {
	t.Helper()
	if RequireServices() {
		t.Fatalf("%s at %s is not reachable (%v); FLOWSCRIPT_REQUIRE_SERVICES=1 forbids skipping: start it (see .ci/run)", service, addr, err)
	}
	t.Skipf("%s at %s is not reachable (%v); set FLOWSCRIPT_REQUIRE_SERVICES=1 to make this a failure", service, addr, err)
}

// MachineNATSURL returns the machine's NATS URL (FLOWSCRIPT_TEST_NATS_URL,
// default nats://127.0.0.1:4222) after checking it answers.
func MachineNATSURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("FLOWSCRIPT_TEST_NATS_URL")
	if u == "" {
		u = "nats://127.0.0.1:4222"
	}
	reachable(t, "NATS", u)
	return u
}

// PostgresURL returns the machine's PostgreSQL URL
// (FLOWSCRIPT_TEST_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable) after checking it
// answers.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("FLOWSCRIPT_TEST_DATABASE_URL")
	if u == "" {
		u = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	reachable(t, "PostgreSQL", u)
	return u
}

func reachable(t testing.TB, service, rawURL string) {
	t.Helper()
	parsed, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("parsing %s URL %q: %v", service, rawURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", parsed.Host)
	if err != nil {
		Unavailable(t, service, parsed.Host, err)
		return
	}
	_ = conn.Close() // a probe: the connection carried nothing
}

// EmbeddedNATS starts a NATS server with JetStream on a random loopback port,
// storing under a temporary folder, and stops it when the test ends. It
// returns the server so tests can restart it on the same folder.
func EmbeddedNATS(t testing.TB) *server.Server {
	t.Helper()
	return StartNATS(t, t.TempDir(), -1)
}

// StartNATS starts an embedded NATS server with JetStream storing in dir,
// on port (-1 for a random one), and shuts it down at the end of the test.
func StartNATS(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  dir,
		NoLog:     true,
		NoSigs:    true,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("creating embedded NATS server: %v", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("embedded NATS server was not ready within 10s")
	}
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv
}

// Context returns a context that ends with the test or after d.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
