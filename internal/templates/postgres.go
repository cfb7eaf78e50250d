package templates

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the PostgreSQL store. Its pool reconnects on its own: when
// the database comes back after an outage, the next request succeeds
// without a restart.
type Postgres struct {
	pool *pgxpool.Pool
	opts Options
	// nameIndexErr: see NameIndexProblem.
	nameIndexErr error
}

var _ Store = (*Postgres)(nil)

// defaultConnectTimeout bounds a connection attempt when the URL does not
// set connect_timeout, so a request against an unreachable database fails
// (503) instead of hanging.
const defaultConnectTimeout = 5 * time.Second

// OpenPostgres connects to databaseURL (DATABASE_URL; the connection's
// search_path selects the schema), applies the embedded migrations and
// returns the store. Several replicas may open the same database at once.
func OpenPostgres(ctx context.Context, databaseURL string, opts Options) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgx's message may echo the URL, password included: do not wrap it.
		return nil, errors.New("parsing DATABASE_URL: it must be a postgres:// URL or a key=value connection string")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	// Every query is a client span (never with its arguments).
	cfg.ConnConfig.Tracer = pgxTracer{}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the PostgreSQL pool: %w", err)
	}
	indexErr, err := migrate(ctx, pool)
	if err != nil {
		pool.Close()
		// At start only an outage is waited out: a missing database, a
		// refused role or password, a role without CONNECT are settings to
		// mend, reported at once with the server's reason.
		if !settingError(err) {
			err = classify(err)
		}
		return nil, fmt.Errorf("migrating the template schema: %w", err)
	}
	return &Postgres{pool: pool, opts: opts, nameIndexErr: indexErr}, nil
}

// NameIndexProblem says why the list's name filter has no index (see
// nameIndex), nil when it has one. Without it a filter scans every
// template: fine for thousands, slow for hundreds of thousands.
func (p *Postgres) NameIndexProblem() error { return p.nameIndexErr }

const templateColumns = "id, name, description, source, version, created_at, updated_at"

func scanTemplate(row pgx.Row) (Template, error) {
	var t Template
	err := row.Scan(&t.ID, &t.Name, &t.Description, &t.Source, &t.Version, &t.CreatedAt, &t.UpdatedAt)
	t.CreatedAt = t.CreatedAt.UTC()
	t.UpdatedAt = t.UpdatedAt.UTC()
	return t, err
}

// listSQL is the page query for q: a keyset range on the
// (created_at DESC, id DESC) index when q continues a listing, so every
// page costs the same however deep it is. One row more than the limit
// tells whether there is a next page.
func listSQL(q ListQuery) (string, []any) {
	var where []string
	var args []any
	if q.After != nil {
		args = append(args, q.After.CreatedAt, q.After.ID)
		where = append(where, "(created_at, id) < ($1, $2)")
	}
	if q.Name != "" {
		// A LIKE, not strpos, so that the trigram index (nameIndex) serves
		// it; the name's own %, _ and \ match themselves. The filter is
		// lowered here, as the names' keys are (migration 0003).
		args = append(args, likeEscaper.Replace(nameKey(q.Name)))
		where = append(where, fmt.Sprintf("%s LIKE '%%' || $%d || '%%'", nameKeySQL, len(args)))
	}
	sql := "SELECT " + templateColumns + " FROM script_templates"
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, q.limit()+1)
	return sql + fmt.Sprintf(" ORDER BY created_at DESC, id DESC LIMIT $%d", len(args)), args
}

// nameKeySQL is the name filter's key of a row: the service's own while it
// was made from the row's name, the database's lower(name) otherwise
// (migration 0003). The name filter's index is on this very expression.
const nameKeySQL = "(CASE WHEN name_key_of = name THEN name_key ELSE lower(name) END)"

// likeEscaper escapes LIKE's wildcards and its escape character (a backslash, the
// default), which lower() leaves alone.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// List implements Store. Rows are read one at a time and the query is
// closed as soon as the page is full.
func (p *Postgres) List(ctx context.Context, q ListQuery) (Page, error) {
	q = q.normalized()
	var pg *pager
	err := p.read(ctx, func() error {
		sql, args := listSQL(q)
		rows, err := p.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		pg = newPager(q)
		for rows.Next() {
			t, err := scanTemplate(rows)
			if err != nil {
				return err
			}
			if !pg.add(t) {
				break
			}
		}
		rows.Close()
		return rows.Err()
	})
	if err != nil {
		return Page{}, fmt.Errorf("listing templates: %w", classify(err))
	}
	return pg.page, nil
}

// Get implements Store.
func (p *Postgres) Get(ctx context.Context, id uuid.UUID) (Template, error) {
	var t Template
	err := p.read(ctx, func() (err error) {
		t, err = scanTemplate(p.pool.QueryRow(ctx, "SELECT "+templateColumns+" FROM script_templates WHERE id = $1", id))
		return err
	})
	if err != nil {
		return Template{}, fmt.Errorf("reading template %s: %w", id, classify(err))
	}
	return t, nil
}

// read runs the read-only query of f, and runs it once more when it failed
// on a pooled connection the server had closed meanwhile (an
// administrator's pg_terminate_backend, a restarted server, a proxy that
// dropped it): the pool pings only connections idle for over a second, and
// a read is safe to repeat. The second try takes another connection, new
// unless the pool holds more that the server ended (after a restart, say:
// then it too may fail, once, with 503). A write is not repeated: it may
// have been carried out (its 503 tells the client to try again).
func (p *Postgres) read(ctx context.Context, f func() error) error {
	err := f()
	if err != nil && ctx.Err() == nil && lostConnection(err) {
		err = f()
	}
	return err
}

// lostConnection reports whether err says the connection a query ran on
// was gone: the server ended it (administrator or crash shutdown), it
// broke, or it was closed under the query. A refused new connection and a
// timeout are not: trying again at once would only wait as long again.
func lostConnection(err error) bool {
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "57P01" || pgErr.Code == "57P02" || strings.HasPrefix(pgErr.Code, "08")
	}
	var netErr net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &netErr)
}

// Create implements Store. The table's triggers number the version and
// record it (migration 0002).
func (p *Postgres) Create(ctx context.Context, d Draft) (Template, error) {
	d, err := prepare(d, p.opts)
	if err != nil {
		return Template{}, err
	}
	id, err := newID()
	if err != nil {
		return Template{}, err
	}
	at := now()
	t, err := scanTemplate(p.pool.QueryRow(ctx,
		"INSERT INTO script_templates (id, name, description, source, created_at, updated_at, name_key, name_key_of) VALUES ($1, $2, $3, $4, $5, $5, $6, $2) RETURNING "+templateColumns,
		id, d.Name, d.Description, d.Source, at, nameKey(d.Name)))
	if err != nil {
		return Template{}, fmt.Errorf("creating template: %w", classify(err))
	}
	return t, nil
}

// Update implements Store. The triggers decide the version: the next one
// when the content changes, the same one (and updated_at kept) when not.
func (p *Postgres) Update(ctx context.Context, id uuid.UUID, d Draft, ifVersion int) (Template, error) {
	d, err := prepare(d, p.opts)
	if err != nil {
		return Template{}, err
	}
	// GREATEST keeps updated_at >= created_at even if this replica's clock
	// is behind the one that created the template. The version in WHERE
	// is the row's before the write.
	t, err := scanTemplate(p.pool.QueryRow(ctx,
		`UPDATE script_templates SET name = $2, description = $3, source = $4, updated_at = GREATEST($5, created_at), name_key = $7, name_key_of = $2
		 WHERE id = $1 AND ($6::integer = 0 OR version = $6) RETURNING `+templateColumns,
		id, d.Name, d.Description, d.Source, now(), ifVersion, nameKey(d.Name)))
	if err != nil {
		return Template{}, fmt.Errorf("updating template %s: %w", id, p.missOrConflict(ctx, id, ifVersion, classify(err)))
	}
	return t, nil
}

// missOrConflict tells, after a conditional write matched no row, a
// missing template (ErrNotFound) from one at another version
// (ErrVersionConflict); any other error stays as it is.
func (p *Postgres) missOrConflict(ctx context.Context, id uuid.UUID, ifVersion int, err error) error {
	if ifVersion <= 0 || !errors.Is(err, ErrNotFound) {
		return err
	}
	if err := p.exists(ctx, id); err != nil {
		return err
	}
	return ErrVersionConflict
}

const versionInfoColumns = "template_id, version, name, description, source_sha256, created_at"

func scanVersionInfo(row pgx.Row, extra ...any) (VersionInfo, error) {
	var v VersionInfo
	err := row.Scan(append([]any{&v.TemplateID, &v.Version, &v.Name, &v.Description, &v.SourceSHA256, &v.CreatedAt}, extra...)...)
	v.CreatedAt = v.CreatedAt.UTC()
	return v, err
}

// Versions implements Store.
func (p *Postgres) Versions(ctx context.Context, id uuid.UUID, q VersionQuery) (VersionPage, error) {
	limit := pageLimit(q.Limit)
	before := q.Before
	if before <= 0 {
		before = math.MaxInt32
	}
	var list []VersionInfo
	err := p.read(ctx, func() error {
		rows, err := p.pool.Query(ctx,
			"SELECT "+versionInfoColumns+" FROM script_template_versions WHERE template_id = $1 AND version < $2 ORDER BY version DESC LIMIT $3",
			id, before, limit+1)
		if err != nil {
			return err
		}
		list, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (VersionInfo, error) { return scanVersionInfo(row) })
		return err
	})
	if err != nil {
		return VersionPage{}, fmt.Errorf("listing versions of template %s: %w", id, classify(err))
	}
	if len(list) == 0 {
		// A template always has a version: none means no template, or a
		// cursor past the oldest.
		if err := p.exists(ctx, id); err != nil {
			return VersionPage{}, fmt.Errorf("listing versions of template %s: %w", id, err)
		}
	}
	return versionPage(list, limit), nil
}

// Version implements Store.
func (p *Postgres) Version(ctx context.Context, id uuid.UUID, n int) (Version, error) {
	var v Version
	var err error
	if n >= 1 && n <= math.MaxInt32 {
		err = p.read(ctx, func() (err error) {
			v.VersionInfo, err = scanVersionInfo(p.pool.QueryRow(ctx,
				"SELECT "+versionInfoColumns+", source FROM script_template_versions WHERE template_id = $1 AND version = $2", id, n), &v.Source)
			return err
		})
	} else {
		err = pgx.ErrNoRows
	}
	if errors.Is(err, pgx.ErrNoRows) {
		if err := p.exists(ctx, id); err != nil {
			return Version{}, fmt.Errorf("reading version %d of template %s: %w", n, id, err)
		}
		return Version{}, fmt.Errorf("reading version %d of template %s: %w", n, id, ErrVersionNotFound)
	}
	if err != nil {
		return Version{}, fmt.Errorf("reading version %d of template %s: %w", n, id, classify(err))
	}
	return v, nil
}

// exists returns nil when the template exists, ErrNotFound when not.
func (p *Postgres) exists(ctx context.Context, id uuid.UUID) error {
	var one int
	return classify(p.read(ctx, func() error {
		return p.pool.QueryRow(ctx, "SELECT 1 FROM script_templates WHERE id = $1", id).Scan(&one)
	}))
}

// Delete implements Store.
func (p *Postgres) Delete(ctx context.Context, id uuid.UUID, ifVersion int) error {
	tag, err := p.pool.Exec(ctx, "DELETE FROM script_templates WHERE id = $1 AND ($2::integer = 0 OR version = $2)", id, ifVersion)
	if err != nil {
		return fmt.Errorf("deleting template %s: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("deleting template %s: %w", id, p.missOrConflict(ctx, id, ifVersion, ErrNotFound))
	}
	return nil
}

// Ping implements Store: the server answers, and the templates' table is
// there (a database dropped and re-created after start is not ready).
func (p *Postgres) Ping(ctx context.Context) error {
	err := p.read(ctx, func() error {
		_, err := p.pool.Exec(ctx, "SELECT 1 FROM script_templates LIMIT 0")
		return err
	})
	if err != nil {
		return fmt.Errorf("pinging PostgreSQL: %w", classify(err))
	}
	return nil
}

// Close implements Store.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// droppedObjects reports whether err is the server's answer that the
// database, the schema or the table is not there.
func droppedObjects(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "42P01" || // undefined table
		pgErr.Code == "3F000" || // invalid schema name
		strings.HasPrefix(pgErr.Code, "3D") // invalid catalog name: no such database
}

// settingError reports whether the server answered with something other
// than an outage: any SQLSTATE but connection exceptions (08), lack of
// resources (53), operator intervention (57) and a database not accepting
// connections (55000).
func settingError(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false // the network, a timeout: an outage
	}
	switch pgErr.Code[:2] {
	case "08", "53", "57":
		return false
	}
	return pgErr.Code != "55000"
}

// classify maps pgx errors to the store's: no row is ErrNotFound; a
// failure to reach or keep talking to the server, or its refusal of a new
// connection (whatever its code), is ErrUnavailable (joined with the
// cause); an error the server answered a query with stays what it is.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var connectErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if droppedObjects(err) {
			return errors.Join(ErrUnavailable, fmt.Errorf("the templates' tables are gone "+
				"(the database or schema was dropped after the service started): restart the service to create them: %w", err))
		}
		// Refused while connecting (the database not accepting connections,
		// 55000; a rotated password, 28P01): no query ran, the store is
		// unavailable whatever the code.
		if errors.As(err, &connectErr) {
			return errors.Join(ErrUnavailable, err)
		}
		switch pgErr.Code[:2] {
		case "08", // connection exception
			"53", // insufficient resources (too many connections, disk full)
			"57": // operator intervention (admin shutdown, cannot connect now)
			return errors.Join(ErrUnavailable, err)
		}
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err // the caller went away; nothing is wrong with the store
	}
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr),
		errors.As(err, &netErr),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		pgconn.Timeout(err),
		pgconn.SafeToRetry(err):
		return errors.Join(ErrUnavailable, err)
	}
	return err
}
