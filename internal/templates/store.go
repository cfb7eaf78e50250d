package templates

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// Store keeps templates. Implementations are safe for concurrent use.
type Store interface {
	// List returns every template, newest CreatedAt first (ties: newer ID
	// first). An empty store gives an empty, non-nil slice.
	List(ctx context.Context) ([]Template, error)
	// Get returns one template, or ErrNotFound.
	Get(ctx context.Context, id uuid.UUID) (Template, error)
	// Create validates d (after Normalize) and stores it with a new ID and
	// CreatedAt = UpdatedAt = now. An invalid draft is a *ValidationError
	// and nothing is written.
	Create(ctx context.Context, d Draft) (Template, error)
	// Update replaces the content of a template and sets UpdatedAt; the ID
	// and CreatedAt never change. ErrNotFound when it does not exist.
	Update(ctx context.Context, id uuid.UUID, d Draft) (Template, error)
	// Delete removes a template, or returns ErrNotFound.
	Delete(ctx context.Context, id uuid.UUID) error
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
