package templates

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Embedded is the store for a bare machine: one bbolt file in a folder
// (TEMPLATES_DATA_DIR). bbolt locks the file, so only one process — one
// replica — can use a folder at a time; run several replicas on PostgreSQL.
type Embedded struct {
	db   *bolt.DB
	opts Options
}

var _ Store = (*Embedded)(nil)

// EmbeddedFileName is the file the embedded store keeps in its folder.
const EmbeddedFileName = "templates.db"

var bucketTemplates = []byte("script_templates")

// lockWait is how long OpenEmbedded waits for another process to release
// the file.
const lockWait = 2 * time.Second

// OpenEmbedded opens (creating if needed) the store in dir.
func OpenEmbedded(dir string, opts Options) (*Embedded, error) {
	if dir == "" {
		return nil, errors.New("opening the embedded store: TEMPLATES_DATA_DIR is empty; set it to a folder the service can write")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data folder %s (TEMPLATES_DATA_DIR): %w", dir, err)
	}
	path := filepath.Join(dir, EmbeddedFileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("opening %s: another process holds it (the embedded store serves one replica); stop it, use another TEMPLATES_DATA_DIR, or set DATABASE_URL", path)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketTemplates)
		return err
	}); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", path, errors.Join(err, db.Close()))
	}
	return &Embedded{db: db, opts: opts}, nil
}

// record is the stored form of a template, keyed by its id's 16 bytes.
type record struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Source      string    `json:"source"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func decode(key, value []byte) (Template, error) {
	id, err := uuid.FromBytes(key)
	if err != nil {
		return Template{}, fmt.Errorf("decoding template key %x: %w", key, err)
	}
	var r record
	if err := json.Unmarshal(value, &r); err != nil {
		return Template{}, fmt.Errorf("decoding template %s: %w", id, err)
	}
	return Template{ID: id, Name: r.Name, Description: r.Description, Source: r.Source,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

func encode(t Template) ([]byte, error) {
	return json.Marshal(record{Name: t.Name, Description: t.Description, Source: t.Source,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
}

// storeErr maps bbolt's closed-database error to ErrUnavailable.
func storeErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return errors.Join(ErrUnavailable, err)
	}
	return err
}

// List implements Store.
func (e *Embedded) List(ctx context.Context) (_ []Template, err error) {
	span := startDB(ctx, "list")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	list := []Template{}
	err = e.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTemplates).ForEach(func(k, v []byte) error {
			t, err := decode(k, v)
			if err != nil {
				return err
			}
			list = append(list, t)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing templates: %w", storeErr(err))
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return bytes.Compare(a.ID[:], b.ID[:]) > 0
	})
	return list, nil
}

// Get implements Store.
func (e *Embedded) Get(ctx context.Context, id uuid.UUID) (_ Template, err error) {
	span := startDB(ctx, "get")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return Template{}, err
	}
	var t Template
	err = e.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketTemplates).Get(id[:])
		if v == nil {
			return ErrNotFound
		}
		var err error
		t, err = decode(id[:], v)
		return err
	})
	if err != nil {
		return Template{}, fmt.Errorf("reading template %s: %w", id, storeErr(err))
	}
	return t, nil
}

// Create implements Store.
func (e *Embedded) Create(ctx context.Context, d Draft) (_ Template, err error) {
	span := startDB(ctx, "create")
	defer func() { endDB(span, err) }()
	d, err = prepare(d, e.opts)
	if err != nil {
		return Template{}, err
	}
	if err := ctx.Err(); err != nil {
		return Template{}, err
	}
	id, err := newID()
	if err != nil {
		return Template{}, err
	}
	at := now()
	t := Template{ID: id, Name: d.Name, Description: d.Description, Source: d.Source, CreatedAt: at, UpdatedAt: at}
	value, err := encode(t)
	if err != nil {
		return Template{}, fmt.Errorf("encoding template: %w", err)
	}
	err = e.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTemplates).Put(id[:], value)
	})
	if err != nil {
		return Template{}, fmt.Errorf("creating template: %w", storeErr(err))
	}
	return t, nil
}

// Update implements Store.
func (e *Embedded) Update(ctx context.Context, id uuid.UUID, d Draft) (_ Template, err error) {
	span := startDB(ctx, "update")
	defer func() { endDB(span, err) }()
	d, err = prepare(d, e.opts)
	if err != nil {
		return Template{}, err
	}
	if err := ctx.Err(); err != nil {
		return Template{}, err
	}
	var t Template
	err = e.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTemplates)
		old := b.Get(id[:])
		if old == nil {
			return ErrNotFound
		}
		prev, err := decode(id[:], old)
		if err != nil {
			return err
		}
		t = Template{ID: id, Name: d.Name, Description: d.Description, Source: d.Source,
			CreatedAt: prev.CreatedAt, UpdatedAt: now()}
		if t.UpdatedAt.Before(t.CreatedAt) {
			t.UpdatedAt = t.CreatedAt
		}
		value, err := encode(t)
		if err != nil {
			return fmt.Errorf("encoding template: %w", err)
		}
		return b.Put(id[:], value)
	})
	if err != nil {
		return Template{}, fmt.Errorf("updating template %s: %w", id, storeErr(err))
	}
	return t, nil
}

// Delete implements Store.
func (e *Embedded) Delete(ctx context.Context, id uuid.UUID) (err error) {
	span := startDB(ctx, "delete")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return err
	}
	err = e.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTemplates)
		if b.Get(id[:]) == nil {
			return ErrNotFound
		}
		return b.Delete(id[:])
	})
	if err != nil {
		return fmt.Errorf("deleting template %s: %w", id, storeErr(err))
	}
	return nil
}

// Ping implements Store.
func (e *Embedded) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := e.db.View(func(*bolt.Tx) error { return nil }); err != nil {
		return fmt.Errorf("pinging the embedded store: %w", storeErr(err))
	}
	return nil
}

// Close implements Store.
func (e *Embedded) Close() error { return e.db.Close() }
