package templates_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
)

// A file written before versions (schema 1: one bucket of records without
// a version) opens as version 1 of each template, in the list order, and
// takes new versions from there.
func TestEmbeddedUpgradesAFileFromBeforeVersions(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, templates.EmbeddedFileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var old []uuid.UUID
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("script_templates"))
		if err != nil {
			return err
		}
		for i := range 3 {
			id := uuid.Must(uuid.NewV7())
			old = append(old, id)
			at := base.Add(time.Duration(i) * time.Hour)
			value, _ := json.Marshal(map[string]any{"name": "old " + string(rune('a'+i)), "description": "",
				"source": "return " + string(rune('1'+i)), "createdAt": at, "updatedAt": at.Add(time.Minute)})
			if err := b.Put(id[:], value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for range 2 { // the second open finds nothing to upgrade
		s, err := templates.OpenEmbedded(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.List(context.Background(), templates.ListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Templates) != 3 || page.Templates[0].ID != old[2] || page.Templates[2].ID != old[0] {
			t.Fatalf("after the upgrade List = %+v, want the 3 old templates newest first", page.Templates)
		}
		for _, tpl := range page.Templates {
			v, err := s.Version(context.Background(), tpl.ID, 1)
			if err != nil || tpl.Version != 1 || v.Source != tpl.Source || v.SourceSHA256 != templates.SourceSHA256(tpl.Source) || !v.CreatedAt.Equal(tpl.UpdatedAt) {
				t.Errorf("template %+v: version 1 = %+v, %v", tpl, v, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := templates.OpenEmbedded(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	updated, err := s.Update(context.Background(), old[0], templates.Draft{Name: "new", Source: "return 9"}, 0)
	if err != nil || updated.Version != 2 {
		t.Fatalf("Update after the upgrade = %+v, %v; want version 2", updated, err)
	}
	if v, err := s.Version(context.Background(), old[0], 1); err != nil || v.Source != "return 1" {
		t.Errorf("version 1 after an update = %+v, %v; want the old source", v, err)
	}
}

// A file from a newer release is refused with a clear message, untouched.
func TestEmbeddedRefusesANewerSchema(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, templates.EmbeddedFileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("schema"), []byte("99"))
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	_, err = templates.OpenEmbedded(dir, opts)
	if err == nil || !strings.Contains(err.Error(), "newer release") {
		t.Errorf("opening a schema-99 file: %v, want a refusal naming a newer release", err)
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// A database migrated before versions keeps its templates: each becomes
// version 1 with the content it had.
func TestPostgresMigratesTemplatesFromBeforeVersions(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	conn := connect(t, url)
	ctx := context.Background()
	first, err := os.ReadFile("migrations/0001_create_script_templates.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE templates_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO templates_schema_migrations (version, name) VALUES (1, '0001_create_script_templates.sql')`); err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7())
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := conn.Exec(ctx, `INSERT INTO script_templates (id, name, description, source, created_at, updated_at)
		VALUES ($1, 'old', 'd', 'return "é"', $2, $3)`, id, at, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	s := openPostgres(t, url)
	got, err := s.Get(ctx, id)
	if err != nil || got.Version != 1 || got.Source != `return "é"` {
		t.Fatalf("after migrating: %+v, %v; want version 1 of the old template", got, err)
	}
	v, err := s.Version(ctx, id, 1)
	if err != nil || v.Source != got.Source || v.Name != "old" || v.SourceSHA256 != templates.SourceSHA256(got.Source) || !v.CreatedAt.Equal(at.Add(time.Hour)) {
		t.Errorf("version 1 = %+v, %v", v, err)
	}
}

// The triggers keep versions whoever writes the table, and a stored
// version cannot be changed.
func TestPostgresVersionsHoldForEveryWriter(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	s := openPostgres(t, url)
	ctx := context.Background()
	created, err := s.Create(ctx, templates.Draft{Name: "t", Source: "return 1"})
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	// Another writer (an older replica, an operator) updates the row.
	if _, err := conn.Exec(ctx, "UPDATE script_templates SET source = 'return 2', version = 40, updated_at = now() WHERE id = $1", created.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, created.ID)
	if err != nil || got.Version != 2 {
		t.Fatalf("after another writer's update: %+v, %v; want version 2", got, err)
	}
	if v, err := s.Version(ctx, created.ID, 2); err != nil || v.Source != "return 2" {
		t.Errorf("version 2 = %+v, %v", v, err)
	}
	_, err = conn.Exec(ctx, "UPDATE script_template_versions SET source = 'return 666' WHERE template_id = $1 AND version = 1", created.ID)
	if err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("changing a stored version: %v, want it refused as immutable", err)
	}
	if v, err := s.Version(ctx, created.ID, 1); err != nil || v.Source != "return 1" {
		t.Errorf("version 1 = %+v, %v; want it unchanged", v, err)
	}
}

// The name filter's key (migration 0003) holds for every writer: a template
// another writer renamed or inserted without a key (an older replica, an
// operator's SQL) is found by its name, and not by its old one, until the
// next start gives it its key, which changes neither its version nor its
// updated_at.
func TestPostgresNameKeysOfOtherWriters(t *testing.T) {
	url := storetest.PostgresSchemaURL(t)
	s := openPostgres(t, url)
	ctx := context.Background()
	renamed, err := s.Create(ctx, templates.Draft{Name: "Validar CPF", Source: "return 1"})
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, "UPDATE script_templates SET name = 'Formatar CEP' WHERE id = $1", renamed.ID); err != nil {
		t.Fatal(err)
	}
	inserted := uuid.Must(uuid.NewV7())
	if _, err := conn.Exec(ctx, `INSERT INTO script_templates (id, name, description, source, created_at, updated_at)
		VALUES ($1, 'Enviar E-mail', '', 'return 2', now(), now())`, inserted); err != nil {
		t.Fatal(err)
	}
	names := func(s templates.Store, filter string) []string {
		t.Helper()
		page, err := s.List(ctx, templates.ListQuery{Name: filter})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tpl := range page.Templates {
			got = append(got, tpl.Name)
		}
		return got
	}
	check := func(s templates.Store, when string) {
		t.Helper()
		for filter, want := range map[string]string{"cep": "[Formatar CEP]", "validar": "[]", "e-mail": "[Enviar E-mail]"} {
			if got := fmt.Sprint(names(s, filter)); got != want {
				t.Errorf("%s: name filter %q = %s, want %s", when, filter, got, want)
			}
		}
	}
	check(s, "before the next start")
	before, err := s.Get(ctx, renamed.ID)
	if err != nil {
		t.Fatal(err)
	}

	again := openPostgres(t, url)
	check(again, "after the next start")
	var stale int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM script_templates WHERE name_key_of IS DISTINCT FROM name").Scan(&stale); err != nil || stale != 0 {
		t.Errorf("templates without their name key after the start: %d, %v", stale, err)
	}
	after, err := again.Get(ctx, renamed.ID)
	if err != nil || after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("giving a key changed the template: %+v, was %+v (%v)", after, before, err)
	}
}
