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
// after a save.
type templateResponse struct {
	templates.Template
	Warnings []guardrails.Finding `json:"warnings,omitempty"`
}

// templateBodyLimit: a source at its cap, every byte escaped as \u00XX,
// plus room for the name and description.
func (s *Server) templateBodyLimit() int64 {
	return int64(6*s.cfg.Sandbox.MaxSourceBytes) + 64<<10
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	list, err := s.store.List(ctx)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	writeJSON(w, http.StatusOK, list)
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
	writeJSON(w, http.StatusOK, templateResponse{Template: t})
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) {
	d, warnings, herr := s.readDraft(w, r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	t, err := s.store.Create(ctx, d)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	w.Header().Set("Location", s.prefix+"/script-templates/"+t.ID.String())
	writeJSON(w, http.StatusCreated, templateResponse{Template: t, Warnings: warnings})
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	d, warnings, herr := s.readDraft(w, r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	t, err := s.store.Update(ctx, id, d)
	if err != nil {
		writeError(w, s.storeError(r, err))
		return
	}
	writeJSON(w, http.StatusOK, templateResponse{Template: t, Warnings: warnings})
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	id, herr := parseID(r)
	if herr != nil {
		writeError(w, herr)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if err := s.store.Delete(ctx, id); err != nil {
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

// readDraft decodes and checks a template body: the field rules, the source
// through the sandbox's builder, and the guardrails. Nothing is written
// unless it returns no error.
func (s *Server) readDraft(w http.ResponseWriter, r *http.Request) (templates.Draft, []guardrails.Finding, *httpError) {
	var body templateRequest
	if herr := decodeJSON(w, r, s.templateBodyLimit(), &body); herr != nil {
		return templates.Draft{}, nil, herr
	}
	d := templates.Draft{Name: body.Name, Description: body.Description, Source: body.Source}.Normalize()
	var fields []fieldError
	var ve *templates.ValidationError
	if err := d.Validate(s.cfg.Sandbox.MaxSourceBytes); errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fields = append(fields, fieldError{Field: f.Field, Code: f.Code, Message: f.Message})
		}
	}
	var warnings []guardrails.Finding
	if !hasField(fields, "source") {
		var sourceFields []fieldError
		sourceFields, warnings = s.checkSource(d.Source)
		fields = append(fields, sourceFields...)
	}
	if len(fields) > 0 {
		msg := "the template was not saved: " + fields[0].Message
		msg += moreProblems(len(fields) - 1)
		return templates.Draft{}, nil, newError(http.StatusUnprocessableEntity, CodeValidationFailed, msg, fields...)
	}
	return d, warnings, nil
}

// checkSource compiles source as the executor will (no inputs: a template
// is saved without them) and runs the guardrails. It returns the problems
// that refuse the save and the warnings.
func (s *Server) checkSource(source string) ([]fieldError, []guardrails.Finding) {
	var fields []fieldError
	_, compileErr := sandbox.CompileWithLimits(source, nil, s.cfg.Sandbox)
	findings, guardErr := guardrails.Check(source, nil)
	if compileErr != nil && !hasEscape(findings) {
		// An escape finding says the same as the builder's error, with its
		// own code: report it once.
		fields = append(fields, sourceError(compileErr))
	}
	if guardErr != nil && compileErr == nil {
		// The builder accepted what the guardrails' wrapper could not
		// parse: the source closes the function it runs in and goes on
		// outside it. Refuse rather than store a source nobody checked.
		f := sourceError(guardErr)
		f.Code = string(guardrails.CodeWrapperEscape)
		f.Message = "the source closes the function it runs in and goes on outside it (" + f.Message + "): check its braces"
		fields = append(fields, f)
	}
	var warnings []guardrails.Finding
	for _, f := range findings {
		if f.Severity == guardrails.SeverityError {
			fields = append(fields, fieldError{Field: "source", Code: string(f.Code), Message: f.Message, Line: f.Line, Column: f.Column})
		} else {
			warnings = append(warnings, f)
		}
	}
	return fields, warnings
}

func hasEscape(findings []guardrails.Finding) bool {
	for _, f := range findings {
		if f.Code == guardrails.CodeWrapperEscape {
			return true
		}
	}
	return false
}

func sourceError(err error) fieldError {
	if se := sandbox.AsError(err); se != nil {
		return fieldError{Field: "source", Code: string(se.Code), Message: se.Message, Line: se.Line, Column: se.Column}
	}
	return fieldError{Field: "source", Code: string(sandbox.CodeSyntaxError), Message: err.Error()}
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
