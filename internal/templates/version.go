package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ErrVersionNotFound is returned when the template exists but has no
// version with that number. errors.Is(err, ErrNotFound) holds for it too.
var ErrVersionNotFound = fmt.Errorf("%w: no such version", ErrNotFound)

// VersionInfo describes one version of a template: what Versions lists.
type VersionInfo struct {
	TemplateID  uuid.UUID `json:"templateId"`
	Version     int       `json:"version"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	// SourceSHA256 is the hex SHA-256 of the version's source (its UTF-8
	// bytes): the hash a job's failure record carries.
	SourceSHA256 string    `json:"sourceSha256"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Version is one version of a template, with its source. A version never
// changes once stored.
type Version struct {
	VersionInfo
	Source string `json:"source"`
}

// VersionQuery selects one page of a template's versions, newest first.
type VersionQuery struct {
	// Limit is the page size: 0 means DefaultPageSize, more than
	// MaxPageSize means MaxPageSize.
	Limit int
	// Before, when positive, continues a listing: only versions numbered
	// below it are returned.
	Before int
}

// VersionPage is one page of a template's versions, newest first.
type VersionPage struct {
	// Versions is empty, not nil, when none.
	Versions []VersionInfo
	// Next is the Before of the next page, 0 on the last page.
	Next int
}

// SourceSHA256 is the hex SHA-256 of source's bytes.
func SourceSHA256(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}

// sameContent reports whether d would store nothing new over t.
func sameContent(t Template, d Draft) bool {
	return t.Name == d.Name && t.Description == d.Description && t.Source == d.Source
}

// versionPage cuts list (newest first, at most limit+1 long) to a page.
func versionPage(list []VersionInfo, limit int) VersionPage {
	page := VersionPage{Versions: list}
	if len(list) > limit {
		page.Versions = list[:limit]
		page.Next = list[limit-1].Version
	}
	if page.Versions == nil {
		page.Versions = []VersionInfo{}
	}
	return page
}
