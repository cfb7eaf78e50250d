package templatesapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
)

// A cursor is where the next page starts, opaque to clients: base64url of
// a kind byte, the position, and a check of 8 bytes (SHA-256 of the rest).
// The check catches a cursor that was edited, cut or pasted wrong, so it is
// answered with 400 INVALID_CURSOR instead of a page from somewhere else.
// It is not a secret and needs none: a cursor grants nothing, any position
// a client could forge is one it may list from anyway.
//
//	templates: 0x01, createdAt (µs, int64), id (16), hash of the name filter (8)
//	versions:  0x02, template id (16), the version to continue below (uint32)
const (
	cursorTemplates byte = 0x01
	cursorVersions  byte = 0x02
	cursorCheckSize      = 8
)

func cursorCheck(payload []byte) []byte {
	sum := sha256.Sum256(append([]byte("flowscript cursor\x00"), payload...))
	return sum[:cursorCheckSize]
}

func sealCursor(payload []byte) string {
	return base64.RawURLEncoding.EncodeToString(append(payload, cursorCheck(payload)...))
}

// openCursor returns the payload of a cursor of kind and size, or nil.
func openCursor(raw string, kind byte, size int) []byte {
	b, err := base64.RawURLEncoding.Strict().DecodeString(raw) // Strict: an edit of the last character's unused bits is an edit too
	if err != nil || len(b) != size+cursorCheckSize || b[0] != kind {
		return nil
	}
	payload, check := b[:size], b[size:]
	if !bytes.Equal(check, cursorCheck(payload)) {
		return nil
	}
	return payload
}

// filterHash ties a template cursor to its name filter: filters that keep
// the same templates (typed composed or not, in another case) share it.
func filterHash(name string) []byte {
	sum := sha256.Sum256([]byte(templates.NameFilterKey(name)))
	return sum[:8]
}

const templateCursorSize = 1 + 8 + 16 + 8

func templateCursor(p templates.Position, name string) string {
	b := make([]byte, 0, templateCursorSize)
	b = append(b, cursorTemplates)
	b = binary.BigEndian.AppendUint64(b, uint64(p.CreatedAt.UnixMicro()))
	b = append(b, p.ID[:]...)
	b = append(b, filterHash(name)...)
	return sealCursor(b)
}

// cursorTimeMin and cursorTimeMax bound the creation time a template
// cursor may carry: years 1 to 9999, which both stores hold.
var (
	cursorTimeMin = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	cursorTimeMax = time.Date(9999, time.December, 31, 23, 59, 59, 999999000, time.UTC)
)

func parseTemplateCursor(raw, name string) (*templates.Position, *httpError) {
	b := openCursor(raw, cursorTemplates, templateCursorSize)
	if b == nil {
		return nil, badCursor()
	}
	if !bytes.Equal(b[25:], filterHash(name)) {
		return nil, cursorError("the cursor continues a listing with another name filter: send the same name as for its first page, or leave cursor out to start from the newest")
	}
	var id uuid.UUID
	copy(id[:], b[9:25])
	at := time.UnixMicro(int64(binary.BigEndian.Uint64(b[1:9]))).UTC()
	if at.Before(cursorTimeMin) || at.After(cursorTimeMax) {
		// Only a forged cursor: the checksum is not a secret (see
		// sealCursor). PostgreSQL refuses such a time, and the stores would
		// not agree on one.
		return nil, badCursor()
	}
	return &templates.Position{CreatedAt: at, ID: id}, nil
}

const versionCursorSize = 1 + 16 + 4

func versionCursor(id uuid.UUID, before int) string {
	b := make([]byte, 0, versionCursorSize)
	b = append(b, cursorVersions)
	b = append(b, id[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(before))
	return sealCursor(b)
}

func parseVersionCursor(raw string, id uuid.UUID) (int, *httpError) {
	b := openCursor(raw, cursorVersions, versionCursorSize)
	if b == nil {
		return 0, badCursor()
	}
	if !bytes.Equal(b[1:17], id[:]) {
		return 0, cursorError("the cursor continues the versions of another template: leave cursor out to start from the newest version of this one")
	}
	before := int(binary.BigEndian.Uint32(b[17:]))
	if before < 1 || before > math.MaxInt32 {
		// Only a forged cursor (see sealCursor): versions are numbered up
		// to 2^31-1, as in the path, and PostgreSQL holds no larger one.
		return 0, badCursor()
	}
	return before, nil
}

// cursorParam is the cursor parameter and whether it was given: an empty
// cursor= is given, and refused as a cut one is, rather than read as no
// cursor (which would start the walk again from the newest).
func cursorParam(q url.Values) (string, bool) {
	_, given := q["cursor"]
	return q.Get("cursor"), given
}

func badCursor() *httpError {
	return cursorError("the cursor is not one this API gave out (it was changed or cut): pass the previous page's cursor exactly as received, or leave cursor out to start from the newest")
}

func cursorError(msg string) *httpError {
	return newError(http.StatusBadRequest, CodeInvalidCursor, msg,
		fieldError{Field: "cursor", Code: CodeInvalidCursor, Message: "cursor is not valid here"})
}
