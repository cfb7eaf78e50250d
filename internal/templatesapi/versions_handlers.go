package templatesapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/flowscript/flowscript/internal/templates"
)

// listVersions answers one page of a template's versions, newest first,
// without their sources: an array, with the next page in the Link header
// and X-Next-Cursor as for the template list.
func (s *Server) listVersions(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	q, herr := readQuery(r, "limit", "cursor")
	if herr != nil {
		writeError(w, herr)
		return
	}
	query := templates.VersionQuery{}
	if query.Limit, herr = readLimit(q); herr != nil {
		writeError(w, herr)
		return
	}
	if raw, given := cursorParam(q); given {
		if query.Before, herr = parseVersionCursor(raw, id); herr != nil {
			writeError(w, herr)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	page, err := s.store.Versions(ctx, id, query)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	var link string
	if page.Next > 0 {
		link = setNextPage(w, s.prefix+"/script-templates/"+id.String()+"/versions", q, versionCursor(id, page.Next), query.Limit)
	}
	s.writeCachedJSON(w, r, versionsResource(id), page.Versions, link)
}

// getVersion answers one version of a template, with its source.
func (s *Server) getVersion(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	raw := r.PathValue("version")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 1<<31-1 || raw != strconv.Itoa(n) {
		if len(raw) > 32 {
			raw = raw[:32] + "…"
		}
		writeError(w, paramError("version", fmt.Sprintf("the version must be a whole number from 1 (the first version) to %d, got %q", 1<<31-1, raw)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	v, err := s.store.Version(ctx, id, n)
	if errors.Is(err, templates.ErrVersionNotFound) {
		writeError(w, newError(http.StatusNotFound, CodeNotFound,
			fmt.Sprintf("template %s has no version %d: GET %s/script-templates/%s/versions lists its versions", id, n, s.prefix, id)))
		return
	}
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	s.writeCachedJSON(w, r, versionResource(id, n), v, "")
}
