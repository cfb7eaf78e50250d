package templates

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrating the template schema: %w", classify(err))
	}
	return &Postgres{pool: pool, opts: opts}, nil
}

const templateColumns = "id, name, description, source, created_at, updated_at"

func scanTemplate(row pgx.Row) (Template, error) {
	var t Template
	err := row.Scan(&t.ID, &t.Name, &t.Description, &t.Source, &t.CreatedAt, &t.UpdatedAt)
	t.CreatedAt = t.CreatedAt.UTC()
	t.UpdatedAt = t.UpdatedAt.UTC()
	return t, err
}

// List implements Store.
func (p *Postgres) List(ctx context.Context) ([]Template, error) {
	rows, err := p.pool.Query(ctx, "SELECT "+templateColumns+" FROM script_templates ORDER BY created_at DESC, id DESC")
	if err != nil {
		return nil, fmt.Errorf("listing templates: %w", classify(err))
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Template, error) { return scanTemplate(row) })
	if err != nil {
		return nil, fmt.Errorf("listing templates: %w", classify(err))
	}
	if list == nil {
		list = []Template{}
	}
	return list, nil
}

// Get implements Store.
func (p *Postgres) Get(ctx context.Context, id uuid.UUID) (Template, error) {
	t, err := scanTemplate(p.pool.QueryRow(ctx, "SELECT "+templateColumns+" FROM script_templates WHERE id = $1", id))
	if err != nil {
		return Template{}, fmt.Errorf("reading template %s: %w", id, classify(err))
	}
	return t, nil
}

// Create implements Store.
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
		"INSERT INTO script_templates ("+templateColumns+") VALUES ($1, $2, $3, $4, $5, $5) RETURNING "+templateColumns,
		id, d.Name, d.Description, d.Source, at))
	if err != nil {
		return Template{}, fmt.Errorf("creating template: %w", classify(err))
	}
	return t, nil
}

// Update implements Store.
func (p *Postgres) Update(ctx context.Context, id uuid.UUID, d Draft) (Template, error) {
	d, err := prepare(d, p.opts)
	if err != nil {
		return Template{}, err
	}
	// GREATEST keeps updated_at >= created_at even if this replica's clock
	// is behind the one that created the template.
	t, err := scanTemplate(p.pool.QueryRow(ctx,
		`UPDATE script_templates SET name = $2, description = $3, source = $4, updated_at = GREATEST($5, created_at)
		 WHERE id = $1 RETURNING `+templateColumns,
		id, d.Name, d.Description, d.Source, now()))
	if err != nil {
		return Template{}, fmt.Errorf("updating template %s: %w", id, classify(err))
	}
	return t, nil
}

// Delete implements Store.
func (p *Postgres) Delete(ctx context.Context, id uuid.UUID) error {
	tag, err := p.pool.Exec(ctx, "DELETE FROM script_templates WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("deleting template %s: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("deleting template %s: %w", id, ErrNotFound)
	}
	return nil
}

// Ping implements Store.
func (p *Postgres) Ping(ctx context.Context) error {
	if err := p.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pinging PostgreSQL: %w", classify(err))
	}
	return nil
}

// Close implements Store.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// classify maps pgx errors to the store's: no row is ErrNotFound; a
// failure to reach or keep talking to the server is ErrUnavailable (joined
// with the cause); an error the server answered with stays what it is.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
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
	var connectErr *pgconn.ConnectError
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
