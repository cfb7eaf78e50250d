package templatesapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowscript/flowscript/internal/templates"
)

// Error codes of the query parameters of reads (issue 19). Part of the
// contract, as those in errors.go.
const (
	CodeInvalidParameter = "INVALID_PARAMETER"
	CodeUnknownParameter = "UNKNOWN_PARAMETER"
	CodeInvalidCursor    = "INVALID_CURSOR"
)

// takesQuery refuses a request whose query string readQuery refuses for
// the parameters allowed, before next sees it: a DELETE with a misspelt
// parameter must not delete.
func takesQuery(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			if _, herr := readQuery(r, allowed...); herr != nil {
				writeError(w, herr)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// readQuery returns the query parameters of r, refusing one this route
// does not take (a misspelt limit would otherwise be ignored in silence)
// and one given twice.
func readQuery(r *http.Request, allowed ...string) (url.Values, *httpError) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, newError(http.StatusBadRequest, CodeInvalidParameter,
			fmt.Sprintf("the query string is not valid: %v: percent-encode the parameters' values", err))
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		switch {
		case !slices.Contains(allowed, name):
			takes := "no query parameters"
			if len(allowed) > 0 {
				takes = strings.Join(allowed, ", ")
			}
			return nil, newError(http.StatusBadRequest, CodeUnknownParameter,
				fmt.Sprintf("unknown query parameter %s: this route takes %s", quoteName(name), takes),
				fieldError{Field: shownName(name), Code: CodeUnknownParameter, Message: "unknown parameter " + quoteName(name)})
		case len(q[name]) > 1:
			return nil, paramError(name, fmt.Sprintf("%s is given %d times: give it once", name, len(q[name])))
		}
	}
	return q, nil
}

func paramError(name, msg string) *httpError {
	return newError(http.StatusBadRequest, CodeInvalidParameter, msg,
		fieldError{Field: name, Code: CodeInvalidParameter, Message: msg})
}

// readLimit reads the page size: absent is templates.DefaultPageSize.
func readLimit(q url.Values) (int, *httpError) {
	raw, ok := q["limit"]
	if !ok {
		return templates.DefaultPageSize, nil
	}
	n, err := strconv.Atoi(raw[0])
	if err != nil || n < 1 || n > templates.MaxPageSize {
		shown := raw[0]
		if len(shown) > 32 {
			shown = shown[:32] + "…"
		}
		return 0, paramError("limit", fmt.Sprintf("limit must be a whole number from 1 to %d (default %d), got %q",
			templates.MaxPageSize, templates.DefaultPageSize, shown))
	}
	return n, nil
}

// readNameFilter reads the name filter: a case-insensitive substring of
// the name, normalized as saved names are (templates.NormalizeNameFilter),
// "" for none.
func readNameFilter(q url.Values) (string, *httpError) {
	name := q.Get("name")
	if !utf8.ValidString(name) {
		return "", paramError("name", "name is not valid UTF-8 text: percent-encode its UTF-8 bytes")
	}
	name = templates.NormalizeNameFilter(name) // before its length: as a saved name is counted
	switch {
	case utf8.RuneCountInString(name) > templates.MaxNameRunes:
		return "", paramError("name", fmt.Sprintf("name is %d characters, longer than any template name (%d)", utf8.RuneCountInString(name), templates.MaxNameRunes))
	case strings.ContainsFunc(name, unicode.IsControl):
		return "", paramError("name", "name must be one line of text without control characters")
	}
	return name, nil
}

// setNextPage points the answer at the page after this one: the query q
// with cursor and limit, in the Link header (RFC 8288, rel="next") and the cursor in
// X-Next-Cursor. It returns the link, which the answer's ETag covers.
func setNextPage(w http.ResponseWriter, path string, q url.Values, cursor string, limit int) string {
	q.Set("cursor", cursor)
	q.Set("limit", strconv.Itoa(limit))
	link := "<" + path + "?" + q.Encode() + `>; rel="next"`
	w.Header().Set("Link", link)
	w.Header().Set("X-Next-Cursor", cursor)
	return link
}
