package templates

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockKey is the pg_advisory_xact_lock key every replica takes
// before migrating: the first applies the migrations, the others wait and
// then find nothing to do.
const migrationLockKey int64 = 0x666c6f7773637274 // "flowscrt"

// migrationsTable records the applied versions. It lives in the schema the
// connection's search_path selects, beside script_templates.
const migrationsTable = "templates_schema_migrations"

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order. A file is
// named NNNN_description.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("reading embedded migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil || version <= 0 {
			return nil, fmt.Errorf("migration file %q must be named NNNN_description.sql", e.Name())
		}
		body, err := fs.ReadFile(migrationFiles, "migrations/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: version, name: e.Name(), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// migrate applies the pending migrations in one transaction under an
// advisory lock, so replicas starting together apply each migration exactly
// once and a failed migration leaves nothing behind. It then builds the
// name filter's index where it can (nameIndex): indexErr says why it could
// not, and is no reason to stop.
func migrate(ctx context.Context, pool *pgxpool.Pool) (indexErr, err error) {
	all, err := migrations()
	if err != nil {
		return nil, err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting migration transaction: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLockKey); err != nil {
		return nil, fmt.Errorf("taking the migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+migrationsTable+` (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("creating %s: %w", migrationsTable, err)
	}
	applied, err := appliedVersions(ctx, tx)
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		if applied[m.version] {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return nil, fmt.Errorf("applying migration %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+migrationsTable+" (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
			return nil, fmt.Errorf("recording migration %s: %w", m.name, err)
		}
	}
	if err := fillNameKeys(ctx, tx); err != nil {
		return nil, err
	}
	indexErr = nameIndex(ctx, tx)
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("committing migrations: %w", err)
	}
	return indexErr, nil
}

// fillNameKeys gives the name filter's key (migration 0003) to the
// templates that have none, or one made from another name: all of them
// after the migration, then those an older replica or an operator wrote.
// A template's version and updated_at stay as they are: its content does
// not change.
func fillNameKeys(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, "SELECT id, name FROM script_templates WHERE name_key_of IS DISTINCT FROM name")
	if err != nil {
		return fmt.Errorf("reading the templates without a name key: %w", err)
	}
	type named struct {
		id   [16]byte
		name string
	}
	stale, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (named, error) {
		var n named
		err := r.Scan(&n.id, &n.name)
		return n, err
	})
	if err != nil {
		return fmt.Errorf("reading the templates without a name key: %w", err)
	}
	if len(stale) == 0 {
		return nil
	}
	var batch pgx.Batch
	for _, n := range stale {
		batch.Queue("UPDATE script_templates SET name_key = $2, name_key_of = name WHERE id = $1 AND name = $3", n.id, nameKey(n.name), n.name)
	}
	if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
		return fmt.Errorf("writing the templates' name keys: %w", err)
	}
	return nil
}

// nameIndexName is the trigram index of the list's name filter.
const nameIndexName = "script_templates_name_key_trgm_idx"

// nameIndex makes sure the list's name filter (a case-insensitive
// substring, nameKeySQL LIKE '%…%') has an index: trigrams of nameKeySQL
// from the pg_trgm extension, so that a filter that matches few templates
// reads those instead of every row. It is optional, run in a savepoint of
// the migration: where the extension cannot be created (no privilege on a
// managed database, contrib not installed) it returns why, nothing else
// changes, and the filter scans. It runs at every start, so the index is
// built once an operator creates the extension. It is not a numbered
// migration for that reason: the extension may come later.
func nameIndex(ctx context.Context, tx pgx.Tx) error {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if _, err := sp.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		return fmt.Errorf("creating the pg_trgm extension for the name filter's index: %w", err)
	}
	// The operator class lives in the extension's schema, which need not
	// be on the connection's search_path.
	var schema string
	if err := sp.QueryRow(ctx, `SELECT n.nspname FROM pg_extension e
		JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`).Scan(&schema); err != nil {
		return fmt.Errorf("finding the pg_trgm extension's schema: %w", err)
	}
	// fastupdate off: a new template goes into the index at once, not into
	// a pending list that every search reads in full until a vacuum merges
	// it (10,000 pending names: 4 ms a search). Templates are written
	// seldom and read often.
	if _, err := sp.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+nameIndexName+
		" ON script_templates USING gin ("+nameKeySQL+" "+pgx.Identifier{schema, "gin_trgm_ops"}.Sanitize()+
		") WITH (fastupdate = off)"); err != nil {
		return fmt.Errorf("creating the name filter's index: %w", err)
	}
	return sp.Commit(ctx)
}

func appliedVersions(ctx context.Context, tx pgx.Tx) (map[int]bool, error) {
	rows, err := tx.Query(ctx, "SELECT version FROM "+migrationsTable)
	if err != nil {
		return nil, fmt.Errorf("reading applied migrations: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("reading applied migrations: %w", err)
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[v] = true
	}
	return applied, nil
}
