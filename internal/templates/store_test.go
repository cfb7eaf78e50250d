package templates_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
	"github.com/flowscript/flowscript/internal/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var opts = templates.Options{MaxSourceBytes: storetest.MaxSourceBytes}

func openPostgres(t *testing.T, url string) *templates.Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := templates.OpenPostgres(ctx, url, opts)
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return s
}

func TestPostgresContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) templates.Store {
		return openPostgres(t, storetest.PostgresSchemaURL(t))
	})
}

// TestPostgresContractUnderTheCLocale: in a database whose LC_CTYPE is C,
// where PostgreSQL's lower() lowers only ASCII letters, the name filter
// still ignores the case of every letter ("validação" finds "VALIDAÇÃO"),
// as the embedded store does (a black-box probe).
func TestPostgresContractUnderTheCLocale(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := testenv.PostgresURL(t)
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx) //nolint:errcheck
	name := "fs_c_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx) //nolint:errcheck
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db := u.String()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var lowered string
	err = conn.QueryRow(ctx, "SELECT lower('VALIDAÇÃO')").Scan(&lowered)
	_ = conn.Close(ctx)
	if err != nil || lowered != "validaÇÃo" {
		t.Fatalf("lower('VALIDAÇÃO') in a C database = %q, %v; the test needs a database that lowers only ASCII", lowered, err)
	}
	storetest.Run(t, func(t *testing.T) templates.Store {
		return openPostgres(t, storetest.PostgresSchemaURLIn(t, db))
	})
}

func TestEmbeddedContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) templates.Store {
		s, err := templates.OpenEmbedded(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("closing the store: %v", err)
			}
		})
		return s
	})
}

// Replicas starting together each migrate under the advisory lock: all
// succeed, and each migration is recorded once.
func TestPostgresReplicasMigrateConcurrently(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	const replicas = 6
	var wg sync.WaitGroup
	errs := make(chan error, replicas)
	stores := make(chan *templates.Postgres, replicas)
	for range replicas {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := templates.OpenPostgres(ctx, url, opts)
			if err != nil {
				errs <- err
				return
			}
			stores <- s
		})
	}
	wg.Wait()
	close(errs)
	close(stores)
	for s := range stores {
		if err := s.Close(); err != nil {
			t.Errorf("closing a replica's store: %v", err)
		}
	}
	for err := range errs {
		t.Errorf("replica start: %v", err)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := conn.Close(ctx); err != nil {
			t.Errorf("closing the PostgreSQL connection: %v", err)
		}
	}()
	var applied, files int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM templates_schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	files = len(entries)
	if applied != files {
		t.Errorf("%d migrations recorded, want %d (one per file)", applied, files)
	}
	// A restart finds nothing to do and still works.
	s := openPostgres(t, url)
	if _, err := s.List(ctx, templates.ListQuery{}); err != nil {
		t.Errorf("List after a restart: %v", err)
	}
}

// The database checks repeat the draft rules: no other writer can store an
// empty name.
func TestPostgresSchemaRefusesWhatTheAPIRefuses(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	openPostgres(t, url)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := conn.Close(ctx); err != nil {
			t.Errorf("closing the PostgreSQL connection: %v", err)
		}
	}()
	_, err = conn.Exec(ctx, `INSERT INTO script_templates (id, name, source, created_at, updated_at)
		VALUES (gen_random_uuid(), '  ', 'return 1', now(), now())`)
	if err == nil || !strings.Contains(err.Error(), "check constraint") {
		t.Errorf("inserting a blank name: %v, want a check constraint violation", err)
	}
}

func TestOpenPostgresRefusesABadURLWithoutEchoingIt(t *testing.T) {
	_, err := templates.OpenPostgres(context.Background(), "postgres://user:s3cret@[::1", opts)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Errorf("OpenPostgres(bad URL) = %v, want an error naming DATABASE_URL without the password", err)
	}
}

func TestOpenPostgresUnreachableIsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections at once.
	_, err := templates.OpenPostgres(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", opts)
	if !errors.Is(err, templates.ErrUnavailable) {
		t.Errorf("OpenPostgres(unreachable) = %v, want ErrUnavailable", err)
	}
}

func TestEmbeddedFolderServesOneProcess(t *testing.T) {
	dir := t.TempDir()
	first, err := templates.OpenEmbedded(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := first.Close(); err != nil {
			t.Errorf("closing the first store: %v", err)
		}
	}()
	_, err = templates.OpenEmbedded(dir, opts)
	if err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("second OpenEmbedded on the same folder = %v, want a clear lock error", err)
	}
}

func TestEmbeddedKeepsTemplatesAcrossRestarts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	s, err := templates.OpenEmbedded(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Create(context.Background(), templates.Draft{Name: "kept", Source: "return 1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(context.Background(), templates.ListQuery{}); !errors.Is(err, templates.ErrUnavailable) {
		t.Errorf("List on a closed store = %v, want ErrUnavailable", err)
	}
	s, err = templates.OpenEmbedded(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the reopened store: %v", err)
		}
	}()
	got, err := s.Get(context.Background(), created.ID)
	if err != nil || got.Name != "kept" || !got.CreatedAt.Equal(created.CreatedAt) {
		t.Errorf("after reopening: %+v, %v; want %+v", got, err, created)
	}
}

// A schema dropped under a running store (its database re-created, say)
// is an outage to report, not an internal error: reads answer
// ErrUnavailable naming the restart that mends it, and Ping fails, so a
// readiness probe takes the replica out of service.
func TestPostgresDroppedTablesAreUnavailable(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	s := openPostgres(t, url)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping before the drop: %v", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "DROP TABLE script_templates CASCADE"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, uuid.New())
	if !errors.Is(err, templates.ErrUnavailable) || !strings.Contains(err.Error(), "restart the service") {
		t.Errorf("Get after the drop: %v, want ErrUnavailable naming the restart", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, templates.ErrUnavailable) {
		t.Errorf("Ping after the drop: %v, want ErrUnavailable", err)
	}
}

// A pooled connection the server ended under a running store (an
// administrator's pg_terminate_backend, a proxy that dropped it) costs a
// read nothing: the read runs again on a new connection, where it used to
// answer 503 once. The pool pings only connections idle for over a second,
// so the reads here follow the termination at once.
func TestPostgresReadsOutliveATerminatedConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := url.Parse(storetest.PostgresSchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	app := "fs_terminated_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := openPostgres(t, u.String())
	tpl, err := s.Create(ctx, templates.Draft{Name: "kept", Source: "return 1"})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(ctx) }()
	terminate := func(t *testing.T) {
		t.Helper()
		var n int
		// pg_terminate_backend's timeout waits for the backend to end, so
		// the store's next read finds its connection already closed.
		if err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("the store had no connection to terminate")
		}
	}
	reads := map[string]func() error{
		"Get":      func() error { _, err := s.Get(ctx, tpl.ID); return err },
		"List":     func() error { _, err := s.List(ctx, templates.ListQuery{}); return err },
		"Versions": func() error { _, err := s.Versions(ctx, tpl.ID, templates.VersionQuery{}); return err },
		"Version":  func() error { _, err := s.Version(ctx, tpl.ID, 1); return err },
		"Ping":     func() error { return s.Ping(ctx) },
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			if err := read(); err != nil { // a connection in the pool
				t.Fatalf("before the termination: %v", err)
			}
			terminate(t)
			if err := read(); err != nil {
				t.Errorf("right after the server ended the pooled connection: %v, want the read done on a new one", err)
			}
		})
	}
}

// A server that refuses new connections under a running store (its role
// turned NOLOGIN after a rotation, a database closed to connections) is an
// outage, ErrUnavailable (503), not an internal error; at start the same
// refusal of the role is a setting to mend, reported at once.
func TestPostgresRefusingConnectionsIsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, name, u := roleWithDatabase(ctx, t, "fs_refused_", "ALTER DATABASE %[1]s OWNER TO %[1]s")
	u.User = url.User(name)
	s := openPostgres(t, u.String())
	if _, err := s.List(ctx, templates.ListQuery{}); err != nil {
		t.Fatalf("List before the refusal: %v", err)
	}

	for _, q := range []string{
		"ALTER ROLE " + name + " NOLOGIN",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + name + "'",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The pool finds its connection dead (after a second idle it pings),
	// then dials a new one, which the server refuses.
	for i := range 3 {
		time.Sleep(1100 * time.Millisecond)
		if _, err := s.List(ctx, templates.ListQuery{}); !errors.Is(err, templates.ErrUnavailable) {
			t.Errorf("List %d while the role may not log in: %v, want ErrUnavailable", i+1, err)
		}
	}

	_, err := templates.OpenPostgres(ctx, u.String(), opts)
	if err == nil || errors.Is(err, templates.ErrUnavailable) || !strings.Contains(err.Error(), "not permitted to log in") {
		t.Errorf("OpenPostgres as a role that may not log in = %v, want a lasting error that says why", err)
	}
}

// A role without CONNECT on its database is a setting to mend: at start
// the store reports it at once, not as an outage to wait out.
func TestOpenPostgresWithoutConnectIsASetting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, name, u := roleWithDatabase(ctx, t, "fs_noconnect_", "")
	q := "REVOKE CONNECT ON DATABASE " + name + " FROM PUBLIC"
	if _, err := admin.Exec(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	u.User = url.User(name)
	_, err := templates.OpenPostgres(ctx, u.String(), opts)
	if err == nil || errors.Is(err, templates.ErrUnavailable) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("OpenPostgres as a role without CONNECT = %v, want a lasting error that says why", err)
	}
}
