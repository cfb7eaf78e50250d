package templatesapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/templates"
)

// storeTimeout bounds one store call, so a database that hangs answers 503
// instead of holding the request.
const storeTimeout = 10 * time.Second

// templateRequest is the body of POST and PUT.
type templateRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

// templateResponse is a template, with the guardrail warnings of the source
// and the capabilities and connectors it uses after a save.
type templateResponse struct {
	templates.Template
	Warnings []guardrails.Finding `json:"warnings,omitempty"`
	Uses     *guardrails.Uses     `json:"uses,omitempty"`
}

// saveNotes is what a save tells the author beside the template.
type saveNotes struct {
	warnings []guardrails.Finding
	uses     *guardrails.Uses
	// capped: the guardrails stopped at MaxFindings, so there may be more.
	capped bool
}

// listTemplates answers one page of templates, newest first: an array, as
// before paging, with the next page in the Link header (rel="next") and
// its cursor in X-Next-Cursor; neither on the last page.
func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) {
	q, herr := readQuery(r, "limit", "cursor", "name")
	if herr != nil {
		writeError(w, herr)
		return
	}
	query := templates.ListQuery{}
	if query.Limit, herr = readLimit(q); herr != nil {
		writeError(w, herr)
		return
	}
	if query.Name, herr = readNameFilter(q); herr != nil {
		writeError(w, herr)
		return
	}
	if raw, given := cursorParam(q); given {
		if query.After, herr = parseTemplateCursor(raw, query.Name); herr != nil {
			writeError(w, herr)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	page, err := s.store.List(ctx, query)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	var link string
	if page.Next != nil {
		link = setNextPage(w, s.prefix+"/script-templates", q, templateCursor(*page.Next, query.Name), query.Limit)
	}
	s.writeCachedJSON(w, r, listResource, page.Templates, link)
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	t, err := s.store.Get(ctx, id)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	s.writeCachedJSON(w, r, templateResource(id), templateResponse{Template: t}, "")
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) {
	if herr := createPrecondition(r); herr != nil {
		writeError(w, herr)
		return
	}
	d, notes, release, herr := s.readDraft(w, r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	t, err := s.store.Create(ctx, d)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	w.Header().Set("Location", s.prefix+"/script-templates/"+t.ID.String())
	if tag, err := templateTag(t); err == nil {
		w.Header().Set("ETag", tag) // the If-Match of the author's first update
	}
	writeJSON(w, http.StatusCreated, templateResponse{Template: t, Warnings: notes.warnings, Uses: notes.uses})
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	// The template is read first, by its id: a PUT to none is 404 before
	// its source waits for a sandbox worker to be checked. The write
	// checks again that it exists (a delete may come in between).
	cur, herr := s.current(r, id)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ifVersion, herr := s.precondition(r, cur)
	if herr != nil {
		writeError(w, herr)
		return
	}
	d, notes, release, herr := s.readDraft(w, r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	t, err := s.store.Update(ctx, id, d, ifVersion)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	// The tag a GET of the template now answers: the If-Match of the
	// author's next save.
	if tag, err := templateTag(t); err == nil {
		w.Header().Set("ETag", tag)
	}
	writeJSON(w, http.StatusOK, templateResponse{Template: t, Warnings: notes.warnings, Uses: notes.uses})
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ifVersion := 0
	if conditional(r) {
		cur, herr := s.current(r, id)
		if herr != nil {
			writeError(w, herr)
			return
		}
		if ifVersion, herr = s.precondition(r, cur); herr != nil {
			writeError(w, herr)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if err := s.store.Delete(ctx, id, ifVersion); err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// parseID reads the {id} path segment: a UUID in its 36-character form.
func parseID(r *http.Request) (uuid.UUID, *httpError) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		shown := raw
		if len(shown) > 64 {
			shown = shown[:64] + "…"
		}
		return uuid.Nil, newError(http.StatusBadRequest, CodeInvalidID,
			fmt.Sprintf("the template id must be a UUID such as 0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f, got %q", shown),
			fieldError{Field: "id", Code: CodeInvalidID, Message: "id must be a UUID"})
	}
	return id, nil
}

// readDraft reads a template body (readJSON) and checks it (checkDraft).
// Nothing is written unless it returns no error. Defer release when herr
// is nil: the body's bytes stay held from the body budget until the
// handler ends.
func (s *Server) readDraft(w http.ResponseWriter, r *http.Request) (d templates.Draft, notes saveNotes, release func(), herr *httpError) {
	var body templateRequest
	held, herr := s.readJSON(w, r, s.cfg.templateBodyBytes(), &body)
	if herr != nil {
		return d, notes, nil, herr
	}
	defer func() {
		if release == nil { // an error, or a panic: the caller has nothing to release
			held()
		}
	}()
	if d, notes, herr = s.checkDraft(r.Context(), body); herr != nil {
		return d, notes, nil, herr
	}
	return d, notes, held, nil
}

// checkDraft checks a template body: the field rules, then the source
// through the sandbox's builder and the guardrails, in a sandbox worker
// (the checker).
func (s *Server) checkDraft(ctx context.Context, body templateRequest) (templates.Draft, saveNotes, *httpError) {
	d := templates.Draft{Name: body.Name, Description: body.Description, Source: body.Source}.Normalize()
	var fields []fieldError
	var ve *templates.ValidationError
	if err := d.Validate(s.cfg.Sandbox.MaxSourceBytes); errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fields = append(fields, fieldError{Field: f.Field, Code: f.Code, Message: f.Message})
		}
	}
	var notes saveNotes
	if !hasField(fields, "source") {
		sourceFields, found, herr := s.checkSource(ctx, d.Source)
		if herr != nil {
			return templates.Draft{}, saveNotes{}, herr
		}
		fields, notes = append(fields, sourceFields...), found
	}
	if len(fields) > 0 {
		msg := "the template was not saved: " + fields[0].Message
		msg += moreProblems(len(fields) - 1)
		if notes.capped {
			msg += fmt.Sprintf("; the check reports at most %d findings, so fix these and save again to see any others", guardrails.MaxFindings)
		}
		return templates.Draft{}, saveNotes{}, newError(http.StatusUnprocessableEntity, CodeValidationFailed, msg, fields...)
	}
	return d, notes, nil
}

// checkWait bounds a check request: waiting for a free sandbox worker and
// the check itself (which has the sandbox's time limit).
func (s *Server) checkWait() time.Duration { return 2*s.cfg.Sandbox.Timeout + time.Second }

// check asks the checker about a source, once more when its worker crashed:
// a crash is retryable once; a second in a row is the source's doing, and
// its answer stands.
func (s *Server) check(ctx context.Context, req guardrails.CheckRequest) guardrails.CheckResult {
	ctx, cancel := context.WithTimeout(ctx, s.checkWait())
	defer cancel()
	res := s.checker.Check(ctx, req)
	if res.Err != nil && res.Err.Code == sandbox.CodeCrash && ctx.Err() == nil {
		res = s.checker.Check(ctx, req)
	}
	return res
}

// checkSource compiles source as the executor will (no inputs: a template
// is saved without them) and runs the guardrails, through the checker. It
// returns the problems that refuse the save, and the warnings and uses, or
// the answer to give when the source could not be checked now (busy).
func (s *Server) checkSource(ctx context.Context, source string) ([]fieldError, saveNotes, *httpError) {
	res := s.check(ctx, guardrails.CheckRequest{Source: source})
	if res.Err != nil {
		if res.Err.Code == sandbox.CodeBusy {
			return nil, saveNotes{}, busy(s.cfg.Sandbox.MaxParallel)
		}
		return []fieldError{uncheckable(res.Err)}, saveNotes{}, nil
	}
	rep := res.Report
	var fields []fieldError
	if rep.Compile != nil && !hasEscape(rep.Findings) {
		// An escape finding says the same as the builder's error, with its
		// own code: report it once.
		fields = append(fields, sourceError(rep.Compile))
	}
	if rep.Parse != nil && rep.Compile == nil {
		// The builder accepted what the guardrails' wrapper could not
		// parse: the source closes the function it runs in and goes on
		// outside it. Refuse rather than store a source nobody checked.
		f := sourceError(rep.Parse)
		f.Code = string(guardrails.CodeWrapperEscape)
		f.Message = "the source closes the function it runs in and goes on outside it (" + f.Message + "): check its braces"
		fields = append(fields, f)
	}
	notes := saveNotes{uses: &rep.Uses, capped: len(rep.Findings) >= guardrails.MaxFindings}
	for _, f := range rep.Findings {
		if f.Severity == guardrails.SeverityError {
			fields = append(fields, fieldError{Field: "source", Code: string(f.Code), Message: f.Message, Line: f.Line, Column: f.Column})
		} else {
			notes.warnings = append(notes.warnings, f)
		}
	}
	return fields, notes, nil
}

// uncheckable is the field error for a source the sandbox could not compile
// within its limits: the source's doing, so the save is refused.
func uncheckable(e *sandbox.Error) fieldError {
	f := sourceError(e)
	switch e.Code {
	case sandbox.CodeTimeout:
		f.Message = "compiling the source took longer than the sandbox's time limit (SANDBOX_TIMEOUT_MS): split it into smaller scripts"
	case sandbox.CodeMemoryLimit:
		f.Message = "compiling the source took more memory than the sandbox's limit (SANDBOX_MEMORY_MB): make it smaller"
	case sandbox.CodeCrash:
		f.Message = "the sandbox failed twice in a row while checking this source, which is refused: " + e.Message
	}
	return f
}

func hasEscape(findings []guardrails.Finding) bool {
	for _, f := range findings {
		if f.Code == guardrails.CodeWrapperEscape {
			return true
		}
	}
	return false
}

func sourceError(e *sandbox.Error) fieldError {
	return fieldError{Field: "source", Code: string(e.Code), Message: e.Message, Line: e.Line, Column: e.Column}
}

func hasField(fields []fieldError, name string) bool {
	for _, f := range fields {
		if f.Field == name {
			return true
		}
	}
	return false
}

// storeError maps a store error to its answer and logs what the caller is
// not told.
func (s *Server) storeError(r *http.Request, err error) *httpError {
	var ve *templates.ValidationError
	switch {
	case errors.Is(err, templates.ErrNotFound):
		return newError(http.StatusNotFound, CodeNotFound, fmt.Sprintf("no template has id %s", r.PathValue("id")))
	case errors.Is(err, templates.ErrVersionConflict):
		return errChanged(0)
	case errors.As(err, &ve):
		fields := make([]fieldError, len(ve.Fields))
		for i, f := range ve.Fields {
			fields[i] = fieldError{Field: f.Field, Code: f.Code, Message: f.Message}
		}
		return newError(http.StatusUnprocessableEntity, CodeValidationFailed, "the template was not saved: "+ve.Error(), fields...)
	case errors.Is(err, templates.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("template store unavailable", "request_id", requestID(r), "error", err)
		return newError(http.StatusServiceUnavailable, CodeStoreUnavailable,
			"the template store is unavailable right now: try again in a few seconds").with("Retry-After", "2")
	case errors.Is(err, context.Canceled):
		return newError(http.StatusServiceUnavailable, CodeStoreUnavailable, "the request was canceled before the store answered")
	}
	s.log.Error("template store failed", "request_id", requestID(r), "error", err)
	return newError(http.StatusInternalServerError, CodeInternal, "internal error; report request id "+requestID(r))
}

func requestID(r *http.Request) string {
	if info := infoFrom(r.Context()); info != nil {
		return info.id
	}
	return ""
}
