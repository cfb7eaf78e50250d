package storetest

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/flowscript/flowscript/internal/testenv"
)

// PostgresSchemaURL creates a schema of its own for t in the machine's
// PostgreSQL (testenv.PostgresURL) and returns a URL whose connections use
// it (search_path), so tests run in parallel without seeing each other's
// rows. The schema is dropped when the test ends.
func PostgresSchemaURL(t testing.TB) string {
	t.Helper()
	return PostgresSchemaURLIn(t, testenv.PostgresURL(t))
}

// PostgresSchemaURLIn is PostgresSchemaURL in the database base names.
func PostgresSchemaURLIn(t testing.TB, base string) string {
	t.Helper()
	schema := "tpl_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to PostgreSQL to create a test schema: %v", err)
	}
	defer func() {
		if err := conn.Close(ctx); err != nil {
			t.Errorf("closing the PostgreSQL connection: %v", err)
		}
	}()
	once, _ := trigramsOnce.LoadOrStore(base, new(sync.Once))
	once.(*sync.Once).Do(func() { trigramsInPublic(ctx, t, conn) })
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating test schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("connecting to PostgreSQL to drop test schema %s: %v", schema, err)
			return
		}
		defer func() {
			if err := conn.Close(ctx); err != nil {
				t.Errorf("closing the PostgreSQL connection: %v", err)
			}
		}()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping test schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parsing the PostgreSQL URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// trigramsOnce holds a *sync.Once for each database URL.
var trigramsOnce sync.Map

// trigramsInPublic creates the pg_trgm extension in the public schema, once
// per test process and database, before any test schema exists. The store creates it
// where it needs it otherwise (the first schema on its search_path): in a
// test schema, dropping that schema would take the extension, and every
// other test schema's name index with it, while those tests run. Where it
// cannot be created the stores run without the index, as in production.
func trigramsInPublic(ctx context.Context, t testing.TB, conn *pgx.Conn) {
	var err error
	for range 3 { // test processes of other packages may race to create it
		if _, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err == nil {
			return
		}
	}
	t.Logf("pg_trgm is not available (%v): the name filter's index is not tested", err)
}
