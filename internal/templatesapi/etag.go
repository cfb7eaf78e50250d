package templatesapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/textcut"
)

// writeCachedJSON answers a read of resource (see entityTag) with v and an
// ETag: its mark and the hash of the body and of vary (what else the
// answer says, such as the next page's link).
// When If-None-Match names that tag, the answer is 304 Not Modified with no
// body; when If-Match names only others, 412. Reads may be kept by the
// client (never by a shared cache: the sources are the authors') but must
// be revalidated: Cache-Control private, no-cache. A body over
// smallBodyBytes is sent only within the answer budget (answer_budget.go),
// else 503 SERVICE_BUSY.
func (s *Server) writeCachedJSON(w http.ResponseWriter, r *http.Request, resource string, v any, vary string) {
	body, err := encodeJSON(v)
	if err != nil {
		status, body := errEncoding()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // the client is gone; nothing to do
		return
	}
	tag := entityTag(resource, body, vary)
	// RFC 9110 §13.2.2: If-Match first, and a read whose tag it does not
	// name is 412 too (a client that reads only the version it holds).
	if values := r.Header.Values("If-Match"); len(values) > 0 {
		if star, match := ifMatch(values, tag); !star && !match {
			dropPageLinks(w.Header()) // a refusal names no next page
			if o := originsOf(values, resource); o.this == 0 && o.other == 0 {
				writeError(w, foreignTags(values, "send an ETag this service answered for this URL, or read without If-Match"))
				return
			}
			writeError(w, newError(http.StatusPreconditionFailed, CodePreconditionFailed,
				"If-Match names none of the current ETag ("+tag+"): what you read has changed; read it again without If-Match"))
			return
		}
	}
	hdr := w.Header()
	hdr.Set("ETag", tag)
	hdr.Set("Cache-Control", "private, no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if noneMatch(r.Header.Values("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	release, herr := s.admitAnswer(r, body)
	if herr != nil {
		hdr.Del("ETag")
		dropPageLinks(hdr)
		hdr.Set("Cache-Control", "no-store")
		writeError(w, herr)
		return
	}
	defer release()
	hdr.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(body) //nolint:errcheck // the client is gone; nothing to do
}

// dropPageLinks removes the next page's links, set before the answer was
// known, from an answer that is not the page.
func dropPageLinks(h http.Header) {
	h.Del("Link")
	h.Del("X-Next-Cursor")
}

// noneMatch reports whether If-None-Match (RFC 9110 §13.1.2) holds tag:
// "*", or tag among its entity tags, compared weakly (W/ ignored).
func noneMatch(values []string, tag string) bool {
	for t := range entityTags(values) {
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// entityTags yields the members of If-Match or If-None-Match values: the
// comma-separated entity tags (or "*") of every line of the header.
func entityTags(values []string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, v := range values {
			for _, t := range strings.Split(v, ",") {
				if !yield(strings.TrimSpace(t)) {
					return
				}
			}
		}
	}
}

// An entity tag is base64url of the mark of the resource it is of (which
// list, template or version: see the *Resource functions) and of the hash
// of a read's body and vary, quoted. Both are opaque to clients; the mark
// lets a write tell a tag of another resource from a stale one.
const (
	tagMarkSize = 6
	tagHashSize = 18
)

// entityTag is the strong ETag of a read of resource: its body and vary.
func entityTag(resource string, body []byte, vary string) string {
	h := sha256.New()
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(vary))
	b := append(resourceMark(resource), h.Sum(nil)[:tagHashSize]...)
	return `"` + base64.RawURLEncoding.EncodeToString(b) + `"`
}

func resourceMark(resource string) []byte {
	sum := sha256.Sum256([]byte("flowscript etag\x00" + resource))
	return sum[:tagMarkSize]
}

// tagMark is the resource mark of tag when it has the shape of a tag this
// service gives out, nil otherwise.
func tagMark(tag string) []byte {
	inner, quoted := strings.CutPrefix(tag, `"`)
	inner, closed := strings.CutSuffix(inner, `"`)
	if !quoted || !closed {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(inner)
	if err != nil || len(b) != tagMarkSize+tagHashSize {
		return nil
	}
	return b[:tagMarkSize]
}

// Resources an ETag can be of.
const listResource = "templates"

func templateResource(id uuid.UUID) string { return "template " + id.String() }
func versionsResource(id uuid.UUID) string { return "versions " + id.String() }
func versionResource(id uuid.UUID, n int) string {
	return "version " + id.String() + " " + strconv.Itoa(n)
}

// templateTag is the ETag GET /templates/{id} answers for t.
func templateTag(t templates.Template) (string, error) {
	body, err := encodeJSON(templateResponse{Template: t})
	if err != nil {
		return "", err
	}
	return entityTag(templateResource(t.ID), body, ""), nil
}

// tagOrigins counts the entity tags of If-Match values ("*" aside) by
// where they come from, for resource: tags of it (stale, when none
// matched), tags this service gave out for another resource, and tags it
// never gave out (another service's, or made up).
type tagOrigins struct{ this, other, foreign int }

func originsOf(values []string, resource string) tagOrigins {
	var o tagOrigins
	mark := resourceMark(resource)
	for t := range entityTags(values) {
		switch m := tagMark(t); {
		case t == "*":
		case m == nil:
			o.foreign++
		case bytes.Equal(m, mark):
			o.this++
		default:
			o.other++
		}
	}
	return o
}

// foreignTags is the 412 of an If-Match none of whose tags this service
// ever gave out (another service's, or made up): it is not that what was
// read has changed. next says what to send instead.
func foreignTags(values []string, next string) *httpError {
	got, _ := textcut.Cut(strings.Join(values, ", "), 80)
	return newError(http.StatusPreconditionFailed, CodePreconditionFailed, fmt.Sprintf(
		"If-Match holds no tag of this service (got %s): it never gave that tag out, so nothing was written; %s", got, next))
}

// ifMatch reads If-Match (RFC 9110 §13.1.1) against the current tag:
// whether it is "*" (any current template), and whether tag is among its
// entity tags, compared strongly (a weak W/ tag never matches).
func ifMatch(values []string, tag string) (star, match bool) {
	for t := range entityTags(values) {
		switch t {
		case "*":
			star = true
		case tag:
			match = true
		}
	}
	return star, match
}

// conditional reports whether a write carries If-Match or If-None-Match.
func conditional(r *http.Request) bool {
	return len(r.Header.Values("If-Match")) > 0 || len(r.Header.Values("If-None-Match")) > 0
}

// current reads the template a write is about: the answer is 404 when it
// does not exist.
func (s *Server) current(r *http.Request, id uuid.UUID) (templates.Template, *httpError) {
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	cur, err := s.store.Get(ctx, id)
	if err != nil {
		return templates.Template{}, s.storeError(r, err)
	}
	return cur, nil
}

// createPrecondition checks the conditions of a POST to the collection,
// whose target is the collection itself (RFC 9110 §13.1): it always
// exists, so If-None-Match: * fails, and it has no entity tag, so If-Match
// holds only for "*". A client that means the new template's tag has no
// tag to send yet: the answer says so rather than ignore the header.
func createPrecondition(r *http.Request) *httpError {
	if none := r.Header.Values("If-None-Match"); len(none) > 0 {
		if star, _ := ifMatch(none, ""); star {
			return newError(http.StatusPreconditionFailed, CodePreconditionFailed,
				"If-None-Match: * fails on a POST to the collection, which exists: nothing was written; "+
					"a new template always gets a new id, so drop the header")
		}
	}
	if values := r.Header.Values("If-Match"); len(values) > 0 {
		if star, _ := ifMatch(values, ""); !star {
			return newError(http.StatusPreconditionFailed, CodePreconditionFailed,
				"If-Match on a POST to the collection matches no entity tag (the collection has none): nothing was written; "+
					"drop the header, or send If-Match with a template's ETag on a PUT to that template")
		}
	}
	return nil
}

// precondition evaluates a write's If-Match and If-None-Match against the
// template as it is (cur): with neither it returns 0 (write whatever the
// version); otherwise the version the write must still find (0 for "*" or
// with If-None-Match alone), or 412 PRECONDITION_FAILED when no If-Match
// tag matches or an If-None-Match one does (RFC 9110 §13.1.2: "*" matches
// any template). The store checks the version again in the write itself,
// so a change made between the two is refused too.
func (s *Server) precondition(r *http.Request, cur templates.Template) (int, *httpError) {
	values, none := r.Header.Values("If-Match"), r.Header.Values("If-None-Match")
	if len(values) == 0 && len(none) == 0 {
		return 0, nil
	}
	tag, err := templateTag(cur)
	if err != nil {
		s.log.Error("encoding a template to check If-Match", "request_id", requestID(r), "error", err)
		return 0, newError(http.StatusInternalServerError, CodeInternal, "internal error; report request id "+requestID(r))
	}
	if len(none) > 0 && noneMatch(none, tag) {
		return 0, newError(http.StatusPreconditionFailed, CodePreconditionFailed, fmt.Sprintf(
			"the template exists at version %d and If-None-Match matches it: nothing was written; "+
				"drop If-None-Match to change it, or use If-Match with its ETag", cur.Version))
	}
	if len(values) == 0 {
		return 0, nil
	}
	switch star, match := ifMatch(values, tag); {
	case star:
		return 0, nil
	case match:
		return cur.Version, nil
	}
	if !anyStrongTag(values) {
		got := strings.Join(values, ", ")
		if len(got) > 80 {
			got = got[:80] + "…"
		}
		return 0, newError(http.StatusPreconditionFailed, CodePreconditionFailed, fmt.Sprintf(
			"If-Match holds no strong entity tag (%q): nothing was written; send the ETag a GET of the template "+
				"answered, quoted and without W/ (a weak tag never matches), or \"*\"", got))
	}
	// Only a tag of this template can be stale: for any other, "the
	// template changed" would send the author to reapply a change over
	// nothing.
	switch o := originsOf(values, templateResource(cur.ID)); {
	case o.this > 0:
		return 0, errChanged(cur.Version)
	case o.other > 0:
		return 0, newError(http.StatusPreconditionFailed, CodePreconditionFailed,
			"the If-Match tag is of another template or version, not of this template: nothing was written; "+
				"GET this template and send its ETag in If-Match")
	}
	return 0, foreignTags(values, "send the ETag a GET of this template answered, or \"*\" for whatever version it is at")
}

// anyStrongTag reports whether If-Match values hold "*" or a strong entity
// tag (a quoted string without W/).
func anyStrongTag(values []string) bool {
	for t := range entityTags(values) {
		if t == "*" || len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			return true
		}
	}
	return false
}

// errChanged is the answer to a write whose If-Match no longer holds:
// version is the template's now, 0 when not known.
func errChanged(version int) *httpError {
	now := ""
	if version > 0 {
		now = fmt.Sprintf(" (it is at version %d now)", version)
	}
	return newError(http.StatusPreconditionFailed, CodePreconditionFailed,
		"the template changed after the read your If-Match tag comes from"+now+
			": nothing was written; GET it again, reapply your change and send its new ETag in If-Match")
}
