package templatesapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
)

// writeCachedJSON answers a read with v and an ETag: the hash of the body
// and of vary (what else the answer says, such as the next page's link).
// When If-None-Match names that tag, the answer is 304 Not Modified with no
// body; when If-Match names only others, 412. Reads may be kept by the
// client (never by a shared cache: the sources are the authors') but must
// be revalidated: Cache-Control private, no-cache.
func writeCachedJSON(w http.ResponseWriter, r *http.Request, v any, vary string) {
	body, err := encodeJSON(v)
	if err != nil {
		status, body := errEncoding()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // the client is gone; nothing to do
		return
	}
	tag := entityTag(body, vary)
	// RFC 9110 §13.2.2: If-Match first, and a read whose tag it does not
	// name is 412 too (a client that reads only the version it holds).
	if values := r.Header.Values("If-Match"); len(values) > 0 {
		if star, match := ifMatch(values, tag); !star && !match {
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
	hdr.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(body) //nolint:errcheck // the client is gone; nothing to do
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

// entityTag is the strong ETag of a read's body and vary.
func entityTag(body []byte, vary string) string {
	h := sha256.New()
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(vary))
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18]) + `"`
}

// templateTag is the ETag GET /templates/{id} answers for t.
func templateTag(t templates.Template) (string, error) {
	body, err := encodeJSON(templateResponse{Template: t})
	if err != nil {
		return "", err
	}
	return entityTag(body, ""), nil
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

// precondition evaluates a write's If-Match and If-None-Match against the
// template as it is: with neither it returns 0 (write whatever the
// version); otherwise the version the write must still find (0 for "*" or
// with If-None-Match alone), 404 when the template does not exist, or 412
// PRECONDITION_FAILED when no If-Match tag matches or an If-None-Match one
// does (RFC 9110 §13.1.2: "*" matches any template). The store checks the
// version again in the write itself, so a change made between the two is
// refused too.
func (s *Server) precondition(r *http.Request, id uuid.UUID) (int, *httpError) {
	values, none := r.Header.Values("If-Match"), r.Header.Values("If-None-Match")
	if len(values) == 0 && len(none) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	cur, err := s.store.Get(ctx, id)
	if err != nil {
		return 0, s.storeError(r, err)
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
	return 0, errChanged(cur.Version)
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
