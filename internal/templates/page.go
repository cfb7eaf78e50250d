package templates

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// Paging limits of List and Versions.
const (
	// DefaultPageSize is the page size when the query gives none.
	DefaultPageSize = 50
	// MaxPageSize is the largest page a query may ask for.
	MaxPageSize = 200
	// MaxPageBytes is the default text budget of a page of templates: once
	// the names, descriptions and sources on a page reach it, counted as
	// JSON strings (a control character is six bytes there, \u0001), the
	// page ends (it always holds at least one template), so a page's JSON
	// is at most the budget plus one template whatever the sources weigh.
	MaxPageBytes = 1 << 20
)

// Position is a place in the list order (newest CreatedAt first, then
// newer ID): the keyset a page continues from.
type Position struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// PositionOf is the place of t in the list order.
func PositionOf(t Template) Position { return Position{CreatedAt: t.CreatedAt, ID: t.ID} }

// ListQuery selects one page of templates.
type ListQuery struct {
	// Limit is the page size: 0 means DefaultPageSize, more than
	// MaxPageSize means MaxPageSize.
	Limit int
	// After, when set, continues a listing: only templates after it in the
	// list order (older) are returned. Templates created meanwhile are
	// newer, so a walk from the first page to the last returns every
	// template that existed when it began exactly once.
	After *Position
	// Name, when not empty, keeps the templates whose name contains it,
	// ignoring case.
	Name string
	// MaxBytes is the page's text budget: 0 means MaxPageBytes.
	MaxBytes int
}

func (q ListQuery) limit() int { return pageLimit(q.Limit) }

// normalized is q with its name filter in the form names are stored in
// (see NormalizeNameFilter).
func (q ListQuery) normalized() ListQuery {
	q.Name = NormalizeNameFilter(q.Name)
	return q
}

// NormalizeNameFilter is a name filter in the form names are stored in
// (Draft.Normalize): surrounding spaces removed, composed (NFC). Check a
// filter's length after it: "e" + U+0301 is one character of a name.
func NormalizeNameFilter(name string) string {
	return norm.NFC.String(strings.TrimSpace(name))
}

// NameFilterKey is what tells two name filters apart: filters with the
// same key keep the same templates (a filter is normalized, and matches
// ignoring case).
func NameFilterKey(name string) string {
	return nameKey(NormalizeNameFilter(name))
}

// nameKey is what the name filter compares: a name, or a filter, in
// lowercase (Unicode's simple mapping, whatever the database's locale).
func nameKey(name string) string { return strings.ToLower(name) }

func pageLimit(n int) int {
	switch {
	case n <= 0:
		return DefaultPageSize
	case n > MaxPageSize:
		return MaxPageSize
	}
	return n
}

// matchesName reports whether a template named name passes the filter.
func (q ListQuery) matchesName(name string) bool {
	return q.Name == "" || strings.Contains(nameKey(name), nameKey(q.Name))
}

// Page is one page of templates.
type Page struct {
	// Templates are in list order; empty, not nil, when none.
	Templates []Template
	// Next is where the next page starts, nil on the last page.
	Next *Position
}

// pager fills one page in list order, the same way in every store: up to
// the limit, and no further once the page's text reaches its budget.
type pager struct {
	limit    int
	maxBytes int
	bytes    int
	page     Page
}

func newPager(q ListQuery) *pager {
	p := &pager{limit: q.limit(), maxBytes: q.MaxBytes, page: Page{Templates: []Template{}}}
	if p.maxBytes <= 0 {
		p.maxBytes = MaxPageBytes
	}
	return p
}

// add puts t on the page, or reports false when the page is full: t then
// belongs to the next page, and Next is set.
func (p *pager) add(t Template) bool {
	n := len(p.page.Templates)
	if n == p.limit || (n > 0 && p.bytes >= p.maxBytes) {
		at := PositionOf(p.page.Templates[n-1])
		p.page.Next = &at
		return false
	}
	p.page.Templates = append(p.page.Templates, t)
	p.bytes += JSONStringLen(t.Name) + JSONStringLen(t.Description) + JSONStringLen(t.Source)
	return true
}

// JSONStringLen is the length of s's text in JSON as the API writes it
// (encoding/json without HTML escaping), quotes left out: a control
// character is \u00XX, or two bytes for \n, \r, \t, \b and \f; a quote
// and a backslash two bytes; U+2028, U+2029 and an invalid UTF-8 byte
// six. Sources of control characters weighed six times their length in
// a page; counted as stored, a 1 MiB page came to 7.6 MB.
func JSONStringLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n++
			case c < 0x20:
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // \ufffd for one byte
		case r == '\u2028' || r == '\u2029':
			n += 3 // \u2028 for three bytes
		}
		i += size
	}
	return n
}
