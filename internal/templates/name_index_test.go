package templates_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
	"github.com/flowscript/flowscript/internal/testenv"
)

// TestPostgresNameFilterHasAnIndex: where pg_trgm can be had, opening the
// store builds the trigram index of the name filter in the store's schema.
func TestPostgresNameFilterHasAnIndex(t *testing.T) {
	u := storetest.PostgresSchemaURL(t)
	s := openPostgres(t, u)
	if err := s.NameIndexProblem(); err != nil {
		t.Fatalf("the name filter has no index: %v; this test needs PostgreSQL's pg_trgm extension (in Debian's postgresql package)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx) //nolint:errcheck
	var def string
	if err := conn.QueryRow(ctx, `SELECT indexdef FROM pg_indexes
		WHERE schemaname = current_schema() AND indexname = 'script_templates_name_key_trgm_idx'`).Scan(&def); err != nil {
		t.Fatalf("reading the name filter's index: %v", err)
	}
	if !strings.Contains(def, "gin") || !strings.Contains(def, "name_key") || !strings.Contains(def, "lower(name)") {
		t.Errorf("the name filter's index is %q; want a GIN index on the name's key", def)
	}
	for i := range 200 {
		if _, err := s.Create(ctx, templates.Draft{Name: fmt.Sprintf("template %03d", i), Source: "return 1"}); err != nil {
			t.Fatal(err)
		}
	}
	// Whether the index can serve the filter, not whether the planner
	// prefers it for 200 rows.
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	sql, args := templates.ListSQLForTest("Plantilla 07")
	rows, err := conn.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "script_templates_name_key_trgm_idx") {
		t.Errorf("the name filter does not use its index:\n%s", strings.Join(plan, "\n"))
	}
}

// roleWithDatabase creates a login role and a database of the same fresh
// name (prefix and 12 hex digits), runs grant (a format of the name, none
// when ""), and drops both when the test ends. It returns a connection of
// the administrator, the name, and the database's URL as the administrator.
func roleWithDatabase(ctx context.Context, t *testing.T, prefix, grant string) (*pgx.Conn, string, *url.URL) {
	t.Helper()
	base := testenv.PostgresURL(t)
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	name := prefix + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	queries := []string{"CREATE ROLE " + name + " LOGIN", "CREATE DATABASE " + name}
	if grant != "" {
		queries = append(queries, fmt.Sprintf(grant, name))
	}
	for _, q := range queries {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		defer admin.Close(ctx) //nolint:errcheck
		for _, q := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "DROP ROLE IF EXISTS " + name} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	dbURL, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	dbURL.Path = "/" + name
	return admin, name, dbURL
}

// TestPostgresWithoutTrigramsStillFilters: a role that may not create
// extensions, in a database without pg_trgm, opens the store all the same;
// it reports why the name filter has no index, and the filter works.
func TestPostgresWithoutTrigramsStillFilters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, name, dbURL := roleWithDatabase(ctx, t, "fs_noext_", "GRANT CONNECT ON DATABASE %[1]s TO %[1]s")
	owner, err := pgx.Connect(ctx, dbURL.String())
	if err != nil {
		t.Fatal(err)
	}
	q := "CREATE SCHEMA templates AUTHORIZATION " + name
	if _, err := owner.Exec(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	_ = owner.Close(ctx)

	dbURL.User = url.User(name)
	v := dbURL.Query()
	v.Set("search_path", "templates")
	dbURL.RawQuery = v.Encode()
	s := openPostgres(t, dbURL.String())
	problem := s.NameIndexProblem()
	if problem == nil || !strings.Contains(problem.Error(), "pg_trgm") {
		t.Fatalf("NameIndexProblem = %v; want why pg_trgm could not be created", problem)
	}
	t.Logf("without the extension: %v", problem)
	for i, n := range []string{"Validar CPF", "formatar nome", "cpf_100%"} {
		if _, err := s.Create(ctx, templates.Draft{Name: n, Source: fmt.Sprintf("return %d", i)}); err != nil {
			t.Fatalf("creating %q: %v", n, err)
		}
	}
	page, err := s.List(ctx, templates.ListQuery{Name: "CPF"})
	if err != nil {
		t.Fatalf("listing by name: %v", err)
	}
	var got []string
	for _, tpl := range page.Templates {
		got = append(got, tpl.Name)
	}
	if want := []string{"cpf_100%", "Validar CPF"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("name filter CPF = %q, want %q", got, want)
	}
}
