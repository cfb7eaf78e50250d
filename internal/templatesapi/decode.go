package templatesapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// decodeJSON reads exactly one JSON object of at most limit bytes into dst,
// refusing unknown fields, and says precisely what is wrong otherwise.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) *httpError {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return newError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
				fmt.Sprintf("the body must be JSON (Content-Type: application/json), got %q", ct))
		}
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, limit)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return decodeError(err, limit)
		}
		return newError(http.StatusBadRequest, CodeInvalidJSON, "the body must hold exactly one JSON object: remove what follows it")
	}
	return nil
}

func decodeError(err error, limit int64) *httpError {
	var (
		tooLarge *http.MaxBytesError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
	)
	bad := func(format string, args ...any) *httpError {
		return newError(http.StatusBadRequest, CodeInvalidJSON, fmt.Sprintf(format, args...))
	}
	switch {
	case errors.As(err, &tooLarge):
		return newError(http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
			fmt.Sprintf("the body is over the limit of %d bytes", limit))
	case errors.Is(err, io.EOF):
		return bad("the body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bad("the body ends in the middle of a JSON value")
	case errors.As(err, &syntax):
		return bad("the body is not valid JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ):
		if typ.Field == "" {
			return bad("the body must be a JSON object, got %s", typ.Value)
		}
		return newError(http.StatusBadRequest, CodeInvalidJSON,
			fmt.Sprintf("%s must be %s, got %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value),
			fieldError{Field: typ.Field, Code: CodeInvalidJSON, Message: fmt.Sprintf("%s must be %s", typ.Field, jsonKind(typ.Type.Kind().String()))})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return newError(http.StatusBadRequest, CodeUnknownField,
			fmt.Sprintf("unknown field %q: see the OpenAPI document for the fields this route accepts", name),
			fieldError{Field: name, Code: CodeUnknownField, Message: fmt.Sprintf("unknown field %q", name)})
	}
	return bad("the body could not be read as JSON: %v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "true or false"
	}
	return "a " + goKind
}
