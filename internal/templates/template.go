package templates

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// Template is a stored script template.
type Template struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Source      string    `json:"source"`
	// Version is the number of the current version: 1 when created, one
	// more at each update that changes the content.
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is when the current version was stored.
	UpdatedAt time.Time `json:"updatedAt"`
}

// Draft is what an author writes: a new template or the new content of an
// existing one.
type Draft struct {
	Name        string
	Description string
	Source      string
}

// Field limits. The source cap is the sandbox's (SANDBOX_MAX_SOURCE_BYTES)
// and is passed to Validate.
const (
	MaxNameRunes        = 120
	MaxDescriptionRunes = 2000
)

// FieldError is one broken rule, named by the JSON field it is about.
type FieldError struct {
	Field   string
	Code    string
	Message string
}

// Field error codes.
const (
	CodeRequired    = "REQUIRED"
	CodeTooLong     = "TOO_LONG"
	CodeInvalidText = "INVALID_TEXT"
)

// ValidationError lists every broken rule of a draft.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		msgs[i] = f.Message
	}
	return "invalid template: " + strings.Join(msgs, "; ")
}

// Normalize returns d with the surrounding spaces of its name and
// description removed, both in Unicode's composed form (NFC), so that a
// name typed with a combining accent ("cafe" + U+0301) is the name typed
// with the accented letter, and a name filter finds either. The source is
// kept byte for byte: positions in it must not move.
func (d Draft) Normalize() Draft {
	d.Name = norm.NFC.String(strings.TrimSpace(d.Name))
	d.Description = norm.NFC.String(strings.TrimSpace(d.Description))
	return d
}

// Validate checks d (normalize it first) and returns a *ValidationError
// naming every broken rule, or nil. maxSourceBytes is the sandbox's source
// cap.
func (d Draft) Validate(maxSourceBytes int) error {
	var fields []FieldError
	add := func(field, code, format string, args ...any) {
		fields = append(fields, FieldError{Field: field, Code: code, Message: fmt.Sprintf(format, args...)})
	}

	switch {
	case d.Name == "":
		add("name", CodeRequired, "name is required: give the template a short name authors will recognize")
	case !utf8.ValidString(d.Name):
		add("name", CodeInvalidText, "name is not valid UTF-8 text")
	case utf8.RuneCountInString(d.Name) > MaxNameRunes:
		add("name", CodeTooLong, "name is %d characters, over the limit of %d", utf8.RuneCountInString(d.Name), MaxNameRunes)
	case hasControl(d.Name, false) || strings.ContainsFunc(d.Name, hiddenInName):
		add("name", CodeInvalidText, "name must be one line of text without control characters, line separators or bidirectional overrides")
	case !HasVisible(d.Name):
		add("name", CodeInvalidText, "name must hold a visible character: it is only invisible format characters or combining marks")
	}

	switch {
	case !utf8.ValidString(d.Description):
		add("description", CodeInvalidText, "description is not valid UTF-8 text")
	case utf8.RuneCountInString(d.Description) > MaxDescriptionRunes:
		add("description", CodeTooLong, "description is %d characters, over the limit of %d", utf8.RuneCountInString(d.Description), MaxDescriptionRunes)
	case hasControl(d.Description, true):
		add("description", CodeInvalidText, "description must not contain control characters other than line breaks and tabs")
	case strings.ContainsFunc(d.Description, bidiControl):
		add("description", CodeInvalidText, "description must not contain bidirectional embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069): "+
			"they make text read otherwise than it is stored")
	}

	fields = append(fields, ValidateSource(d.Source, maxSourceBytes)...)

	if len(fields) == 0 {
		return nil
	}
	return &ValidationError{Fields: fields}
}

// ValidateSource checks a script source against the rules every stored
// source follows (ValidateRunnableSource's, and no NUL: PostgreSQL text
// cannot hold one), without compiling it.
func ValidateSource(source string, maxSourceBytes int) []FieldError {
	if fields := ValidateRunnableSource(source, maxSourceBytes); fields != nil {
		return fields
	}
	if strings.IndexByte(source, 0) >= 0 {
		return []FieldError{{Field: "source", Code: CodeInvalidText,
			Message: "source contains a NUL character (U+0000), which a template cannot store: write it as \\0 inside a string literal"}}
	}
	return nil
}

// ValidateRunnableSource checks a source as a job's is checked before it
// runs (required, under maxSourceBytes, UTF-8), without compiling it: the
// rules of a test run, which may run what a job may carry.
func ValidateRunnableSource(source string, maxSourceBytes int) []FieldError {
	bad := func(code, format string, args ...any) []FieldError {
		return []FieldError{{Field: "source", Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	switch {
	case strings.TrimSpace(source) == "":
		return bad(CodeRequired, "source is required: write a function execute(...) or a body that returns a value")
	case len(source) > maxSourceBytes:
		return bad(CodeTooLong, "source is %d bytes, over the limit of %d (SANDBOX_MAX_SOURCE_BYTES): move data out of the script into input variables", len(source), maxSourceBytes)
	case !utf8.ValidString(source):
		return bad(CodeInvalidText, "source is not valid UTF-8 text")
	}
	return nil
}

func hasControl(s string, multiline bool) bool {
	for _, r := range s {
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// hiddenInName reports a character a name may not hold though it is not a
// control character: a line or paragraph separator (a name is one line)
// and the bidirectional embeddings, overrides and isolates, which make a
// name read otherwise than it sorts and matches.
func hiddenInName(r rune) bool {
	return r == '\u2028' || r == '\u2029' || bidiControl(r)
}

// bidiControl reports a bidirectional embedding, override or isolate, which
// other authors would read in an order the text is not in (the marks
// U+200E and U+200F only set a direction, and are allowed).
func bidiControl(r rune) bool {
	return '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069'
}

// HasVisible reports whether s holds a character that shows (visible):
// text made only of spaces and invisible characters is blank.
func HasVisible(s string) bool { return strings.ContainsFunc(s, visible) }

// visible reports a character that shows: not a space, not a format
// character (zero-width space and joiners, marks of direction), not one
// Unicode says to draw as nothing (Hangul fillers, variation selectors:
// Default_Ignorable_Code_Point), not the blank braille pattern, not a
// nonspacing or enclosing mark, which shows only on a character before it.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) &&
		!unicode.Is(unicode.Variation_Selector, r) && r != '\u2800' && !unicode.In(r, unicode.Mn, unicode.Me)
}

// now is the store clock: UTC at the precision PostgreSQL keeps, so both
// stores return the same instants they were given.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// newID returns a time-ordered id: ties between equal createdAt values sort
// in creation order.
func newID() (uuid.UUID, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.Nil, fmt.Errorf("generating template id: %w", err)
	}
	return id, nil
}
