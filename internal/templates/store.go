package templates

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// Store keeps templates. Implementations are safe for concurrent use.
type Store interface {
	// List returns one page of templates, newest CreatedAt first (ties:
	// newer ID first), as q selects (see ListQuery and MaxPageBytes).
	List(ctx context.Context, q ListQuery) (Page, error)
	// Get returns one template, or ErrNotFound.
	Get(ctx context.Context, id uuid.UUID) (Template, error)
	// Create validates d (after Normalize) and stores it with a new ID and
	// CreatedAt = UpdatedAt = now. An invalid draft is a *ValidationError
	// and nothing is written.
	Create(ctx context.Context, d Draft) (Template, error)
	// Update stores d as the next version of a template, sets UpdatedAt
	// and returns the template; the ID, CreatedAt and the earlier versions
	// never change. A draft equal to the current content (after Normalize)
	// stores nothing and returns the template as it is. ErrNotFound when
	// it does not exist. With ifVersion above 0 it writes only while the
	// template is at that version, in the same step as the write, and
	// returns ErrVersionConflict otherwise (an author's If-Match).
	Update(ctx context.Context, id uuid.UUID, d Draft, ifVersion int) (Template, error)
	// Versions returns one page of a template's versions, newest first.
	// ErrNotFound when the template does not exist.
	Versions(ctx context.Context, id uuid.UUID, q VersionQuery) (VersionPage, error)
	// Version returns one version with its source: ErrNotFound when the
	// template does not exist, ErrVersionNotFound when it has no such
	// version.
	Version(ctx context.Context, id uuid.UUID, n int) (Version, error)
	// Delete removes a template and its versions, or returns ErrNotFound.
	// With ifVersion above 0 it removes it only while it is at that
	// version, and returns ErrVersionConflict otherwise.
	Delete(ctx context.Context, id uuid.UUID, ifVersion int) error
	// Ping reports whether the store can serve requests now.
	Ping(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

var (
	// ErrNotFound: no template has the id.
	ErrNotFound = errors.New("template not found")
	// ErrUnavailable: the store cannot be reached now; the same request may
	// succeed later without any change.
	ErrUnavailable = errors.New("template store unavailable")
	// ErrVersionConflict: the template is no longer at the version a
	// conditional Update or Delete named; nothing was written.
	ErrVersionConflict = errors.New("the template is no longer at the version named")
)

// Options configure a store.
type Options struct {
	// MaxSourceBytes is the sandbox's source cap (SANDBOX_MAX_SOURCE_BYTES);
	// 0 means the sandbox default.
	MaxSourceBytes int
}

func (o Options) maxSource() int {
	if o.MaxSourceBytes > 0 {
		return o.MaxSourceBytes
	}
	return sandbox.DefaultMaxSourceBytes
}

// prepare normalizes and validates a draft.
func prepare(d Draft, o Options) (Draft, error) {
	d = d.Normalize()
	if err := d.Validate(o.maxSource()); err != nil {
		return Draft{}, err
	}
	return d, nil
}
