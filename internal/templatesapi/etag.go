package templatesapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// writeCachedJSON answers a read with v and an ETag: the hash of the body
// and of vary (what else the answer says, such as the next page's link).
// When If-None-Match names that tag, the answer is 304 Not Modified with no
// body. Reads may be kept by the client (never by a shared cache: the
// sources are the authors') but must be revalidated: Cache-Control
// private, no-cache.
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
	h := sha256.New()
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(vary))
	tag := `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18]) + `"`
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
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == tag {
				return true
			}
		}
	}
	return false
}
