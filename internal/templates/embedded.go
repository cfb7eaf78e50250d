package templates

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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

// The embedded layout (schema 2):
//
//	script_templates          id (16 bytes) → record (JSON)
//	script_templates_by_age   createdAt (8 bytes) + id → nothing: the list order
//	script_template_versions  id + version (4 bytes) → versionRecord (JSON)
//	meta                      "schema" → "2"
//
// A file from before versions (schema 1: script_templates alone) is
// upgraded when opened: each template becomes its version 1.
var (
	bucketTemplates = []byte("script_templates")
	bucketByAge     = []byte("script_templates_by_age")
	bucketVersions  = []byte("script_template_versions")
	bucketMeta      = []byte("meta")
	keySchema       = []byte("schema")
)

// embeddedSchema is the layout this release writes.
const embeddedSchema = 2

// lockWait is how long OpenEmbedded waits for another process to release
// the file.
const lockWait = 2 * time.Second

// OpenEmbedded opens (creating if needed) the store in dir, upgrading a
// file an earlier release wrote.
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
	if err := db.Update(upgradeEmbedded); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", path, errors.Join(err, db.Close()))
	}
	return &Embedded{db: db, opts: opts}, nil
}

// upgradeEmbedded creates the buckets and brings a file of an earlier
// schema to this one, in one transaction: a failure leaves the file as it
// was.
func upgradeEmbedded(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketTemplates, bucketByAge, bucketVersions, bucketMeta} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bucketMeta)
	schema := 1
	if v := meta.Get(keySchema); v != nil {
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return fmt.Errorf("reading the schema version %q: %w", v, err)
		}
		schema = n
	}
	switch {
	case schema > embeddedSchema:
		return fmt.Errorf("the file has schema %d, written by a newer release (this one knows %d): run that release, or set TEMPLATES_DATA_DIR to another folder", schema, embeddedSchema)
	case schema == embeddedSchema:
		return nil
	}
	// Schema 1: templates without versions or the age index.
	b := tx.Bucket(bucketTemplates)
	err := b.ForEach(func(k, v []byte) error {
		t, err := decode(k, v)
		if err != nil {
			return err
		}
		if t.Version < 1 {
			t.Version = 1
		}
		return putTemplate(tx, t, true)
	})
	if err != nil {
		return fmt.Errorf("upgrading to schema %d: %w", embeddedSchema, err)
	}
	return meta.Put(keySchema, []byte(strconv.Itoa(embeddedSchema)))
}

// record is the stored form of a template, keyed by its id's 16 bytes.
// Version is absent (0) in files of schema 1.
type record struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Source      string    `json:"source"`
	Version     int       `json:"version,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// versionRecord is the stored form of a version, keyed by versionKey.
type versionRecord struct {
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Source       string    `json:"source"`
	SourceSHA256 string    `json:"sourceSha256"`
	CreatedAt    time.Time `json:"createdAt"`
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
	return Template{ID: id, Name: r.Name, Description: r.Description, Source: r.Source, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

// listCheckEvery is how many templates a listing reads between two looks
// at its context.
const listCheckEvery = 64

// recordName reads the name of a stored record from its first field
// (record is encoded name first) without reading the rest, or reports
// false when the record does not start so (decode then reads it whole).
func recordName(value []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(value))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	if t, err := dec.Token(); err != nil || t != "name" {
		return "", false
	}
	t, err := dec.Token()
	name, ok := t.(string)
	return name, err == nil && ok
}

func decodeVersion(key, value []byte) (Version, error) {
	id, n := splitVersionKey(key)
	var r versionRecord
	if err := json.Unmarshal(value, &r); err != nil {
		return Version{}, fmt.Errorf("decoding version %d of template %s: %w", n, id, err)
	}
	return Version{VersionInfo: VersionInfo{TemplateID: id, Version: n, Name: r.Name, Description: r.Description,
		SourceSHA256: r.SourceSHA256, CreatedAt: r.CreatedAt.UTC()}, Source: r.Source}, nil
}

// ageKey orders templates oldest first in bytes: createdAt in
// microseconds (sign bit flipped, big-endian), then the id.
func ageKey(t Template) []byte {
	k := make([]byte, 8, 24)
	binary.BigEndian.PutUint64(k, uint64(t.CreatedAt.UnixMicro())^(1<<63))
	return append(k, t.ID[:]...)
}

func positionKey(p Position) []byte { return ageKey(Template{ID: p.ID, CreatedAt: p.CreatedAt}) }

func versionKey(id uuid.UUID, n int) []byte {
	k := make([]byte, 16, 20)
	copy(k, id[:])
	return binary.BigEndian.AppendUint32(k, uint32(n))
}

func splitVersionKey(k []byte) (uuid.UUID, int) {
	var id uuid.UUID
	copy(id[:], k[:16])
	return id, int(binary.BigEndian.Uint32(k[16:20]))
}

// putTemplate writes t, its place in the list order and, when newVersion,
// its current content as version t.Version.
func putTemplate(tx *bolt.Tx, t Template, newVersion bool) error {
	value, err := json.Marshal(record{Name: t.Name, Description: t.Description, Source: t.Source, Version: t.Version,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
	if err != nil {
		return fmt.Errorf("encoding template: %w", err)
	}
	if err := tx.Bucket(bucketTemplates).Put(t.ID[:], value); err != nil {
		return err
	}
	if err := tx.Bucket(bucketByAge).Put(ageKey(t), nil); err != nil {
		return err
	}
	if !newVersion {
		return nil
	}
	v, err := json.Marshal(versionRecord{Name: t.Name, Description: t.Description, Source: t.Source,
		SourceSHA256: SourceSHA256(t.Source), CreatedAt: t.UpdatedAt})
	if err != nil {
		return fmt.Errorf("encoding version: %w", err)
	}
	return tx.Bucket(bucketVersions).Put(versionKey(t.ID, t.Version), v)
}

// storeErr maps bbolt's closed-database error to ErrUnavailable.
func storeErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return errors.Join(ErrUnavailable, err)
	}
	return err
}

// List implements Store. It walks the age index from q.After (or the
// newest) towards the oldest, so a page costs the same however deep it is;
// a name filter reads templates until the page is full.
func (e *Embedded) List(ctx context.Context, q ListQuery) (_ Page, err error) {
	span := startDB(ctx, "list")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	q = q.normalized()
	pg := newPager(q)
	err = e.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketByAge).Cursor()
		templates := tx.Bucket(bucketTemplates)
		var k []byte
		if q.After == nil {
			k, _ = c.Last()
		} else if k, _ = c.Seek(positionKey(*q.After)); k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev() // Seek stops at or after the position: step before it
		}
		for n := 0; k != nil; k, _ = c.Prev() {
			if n++; n%listCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err // the caller is gone: stop scanning
				}
			}
			id := k[8:]
			value := templates.Get(id)
			// A template the filter drops costs its name, not its source:
			// a scan of 250 sources of 255 KB for a name none had took
			// 0.4-0.5 s of CPU decoding them whole.
			if name, ok := recordName(value); ok && !q.matchesName(name) {
				continue
			}
			t, err := decode(id, value)
			if err != nil {
				return err
			}
			if q.matchesName(t.Name) && !pg.add(t) {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return Page{}, fmt.Errorf("listing templates: %w", storeErr(err))
	}
	return pg.page, nil
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
		t, err = getTemplate(tx, id)
		return err
	})
	if err != nil {
		return Template{}, fmt.Errorf("reading template %s: %w", id, storeErr(err))
	}
	return t, nil
}

func getTemplate(tx *bolt.Tx, id uuid.UUID) (Template, error) {
	v := tx.Bucket(bucketTemplates).Get(id[:])
	if v == nil {
		return Template{}, ErrNotFound
	}
	return decode(id[:], v)
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
	t := Template{ID: id, Name: d.Name, Description: d.Description, Source: d.Source, Version: 1, CreatedAt: at, UpdatedAt: at}
	err = e.db.Update(func(tx *bolt.Tx) error { return putTemplate(tx, t, true) })
	if err != nil {
		return Template{}, fmt.Errorf("creating template: %w", storeErr(err))
	}
	return t, nil
}

// Update implements Store.
func (e *Embedded) Update(ctx context.Context, id uuid.UUID, d Draft, ifVersion int) (_ Template, err error) {
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
		prev, err := getTemplate(tx, id)
		if err != nil {
			return err
		}
		if ifVersion > 0 && prev.Version != ifVersion {
			return ErrVersionConflict
		}
		if sameContent(prev, d) {
			t = prev
			return nil
		}
		t = Template{ID: id, Name: d.Name, Description: d.Description, Source: d.Source, Version: prev.Version + 1,
			CreatedAt: prev.CreatedAt, UpdatedAt: now()}
		if t.UpdatedAt.Before(t.CreatedAt) {
			t.UpdatedAt = t.CreatedAt
		}
		return putTemplate(tx, t, true)
	})
	if err != nil {
		return Template{}, fmt.Errorf("updating template %s: %w", id, storeErr(err))
	}
	return t, nil
}

// Versions implements Store.
func (e *Embedded) Versions(ctx context.Context, id uuid.UUID, q VersionQuery) (_ VersionPage, err error) {
	span := startDB(ctx, "versions")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return VersionPage{}, err
	}
	limit := pageLimit(q.Limit)
	before := q.Before
	if before <= 0 || before > math.MaxUint32 {
		before = math.MaxUint32
	}
	var list []VersionInfo
	err = e.db.View(func(tx *bolt.Tx) error {
		if _, err := getTemplate(tx, id); err != nil {
			return err
		}
		c := tx.Bucket(bucketVersions).Cursor()
		var raw []byte
		k, _ := c.Seek(versionKey(id, before)) // at or after "before": step back
		if k == nil {
			k, raw = c.Last()
		} else {
			k, raw = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, id[:]) && len(list) <= limit; k, raw = c.Prev() {
			v, err := decodeVersion(k, raw)
			if err != nil {
				return err
			}
			list = append(list, v.VersionInfo)
		}
		return nil
	})
	if err != nil {
		return VersionPage{}, fmt.Errorf("listing versions of template %s: %w", id, storeErr(err))
	}
	return versionPage(list, limit), nil
}

// Version implements Store.
func (e *Embedded) Version(ctx context.Context, id uuid.UUID, n int) (_ Version, err error) {
	span := startDB(ctx, "version")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return Version{}, err
	}
	var v Version
	err = e.db.View(func(tx *bolt.Tx) error {
		if _, err := getTemplate(tx, id); err != nil {
			return err
		}
		if n < 1 || n > math.MaxUint32 {
			return ErrVersionNotFound
		}
		k := versionKey(id, n)
		raw := tx.Bucket(bucketVersions).Get(k)
		if raw == nil {
			return ErrVersionNotFound
		}
		v, err = decodeVersion(k, raw)
		return err
	})
	if err != nil {
		return Version{}, fmt.Errorf("reading version %d of template %s: %w", n, id, storeErr(err))
	}
	return v, nil
}

// Delete implements Store.
func (e *Embedded) Delete(ctx context.Context, id uuid.UUID, ifVersion int) (err error) {
	span := startDB(ctx, "delete")
	defer func() { endDB(span, err) }()
	if err := ctx.Err(); err != nil {
		return err
	}
	err = e.db.Update(func(tx *bolt.Tx) error {
		t, err := getTemplate(tx, id)
		if err != nil {
			return err
		}
		if ifVersion > 0 && t.Version != ifVersion {
			return ErrVersionConflict
		}
		if err := tx.Bucket(bucketTemplates).Delete(id[:]); err != nil {
			return err
		}
		if err := tx.Bucket(bucketByAge).Delete(ageKey(t)); err != nil {
			return err
		}
		c := tx.Bucket(bucketVersions).Cursor()
		for k, _ := c.Seek(id[:]); k != nil && bytes.HasPrefix(k, id[:]); k, _ = c.Seek(id[:]) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
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
