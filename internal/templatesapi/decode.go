package templatesapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/flowscript/flowscript/internal/textcut"
)

// decodeJSON reads exactly one JSON object of at most limit bytes into dst
// and says precisely what is wrong otherwise. It is stricter than
// encoding/json, which would pass these silently: bytes that are not
// UTF-8 (replaced by U+FFFD), a key given twice (the last one wins) and a
// field name in another case ("Name" for "name") are refused with a 400
// naming the problem; unknown fields too.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) *httpError {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return newError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
				fmt.Sprintf("the body must be JSON (Content-Type: application/json), got %q", ct))
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return newError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
				fmt.Sprintf("the body must be UTF-8 JSON, got charset %q: send UTF-8 (or leave the charset out)", cs))
		}
	}
	for _, ce := range r.Header.Values("Content-Encoding") {
		for c := range strings.SplitSeq(ce, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return newError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
					fmt.Sprintf("the body must not be compressed, got Content-Encoding %q: send it as plain JSON", ce))
			}
		}
	}
	if r.ContentLength > limit {
		// Refused on its declared length, before any of it is read: a client
		// that sent Expect: 100-continue is not invited to upload it.
		return newError(http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
			fmt.Sprintf("the body is %d bytes, over the limit of %d bytes", r.ContentLength, limit))
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return readError(err, limit)
	}
	if at := textcut.InvalidAt(raw); at >= 0 {
		return newError(http.StatusBadRequest, CodeInvalidUTF8,
			fmt.Sprintf("the body is not valid UTF-8 (first bad byte at offset %d): send UTF-8 text", at))
	}
	if at, found := loneSurrogate(raw); found {
		return newError(http.StatusBadRequest, CodeInvalidUTF8,
			fmt.Sprintf("the body escapes half of a UTF-16 surrogate pair at offset %d, which is no character: send UTF-8 text", at))
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) { // encoding/json would leave dst as it is
		return newError(http.StatusBadRequest, CodeInvalidJSON, "the body must be a JSON object, got null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) || strings.HasPrefix(err.Error(), "json: unknown field ") {
			// encoding/json names neither the array index nor, for an
			// unknown field, the object it is in: checkKeys finds the value.
			if herr := checkKeys(raw, reflect.TypeOf(dst)); herr != nil {
				return herr
			}
		}
		return decodeError(err, limit)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return newError(http.StatusBadRequest, CodeInvalidJSON, "the body must hold exactly one JSON object: remove what follows it")
	}
	// The body is valid JSON for dst: now the keys encoding/json forgave.
	return checkKeys(raw, reflect.TypeOf(dst))
}

// checkKeys reads raw, valid JSON, as encoding/json decodes it into t, and
// returns its first problem in document order, named by its whole path
// ("inputVariables[2].value"): a key given twice in an object, or matching
// a field of t only when case is ignored (both of which encoding/json
// forgives), a key t has no field for, or a value of another kind (both of
// which encoding/json names without array indexes). nil when there is none.
func checkKeys(raw []byte, t reflect.Type) *httpError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a number too large for float64 is still a token
	herr, err := walkValue(dec, t, "")
	if err != nil { // raw was valid JSON: cannot happen
		return newError(http.StatusBadRequest, CodeInvalidJSON, fmt.Sprintf("the body could not be read as JSON: %v", err))
	}
	return herr
}

// walkValue is checkKeys for the value at path; t is nil where anything
// fits: an interface, or a type that decodes itself (json.RawMessage).
func walkValue(dec *json.Decoder, t reflect.Type, path string) (*httpError, error) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t != wholeNumberType && (t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) ||
		reflect.PointerTo(t).Implements(textUnmarshalerType)) {
		t = nil
	}
	tok, err := dec.Token()
	if err != nil || tok == nil { // null fits anything
		return nil, err
	}
	if t != nil && !fits(t, tok) {
		if n, ok := tok.(json.Number); ok {
			if lo, hi, ok := integerRange(t); ok && isWhole(string(n)) {
				return rangeError(path, lo, hi, string(n)), nil
			} else if ok {
				return fractionError(path, string(n)), nil
			}
		}
		return kindError(path, t, tokenKind(tok)), nil
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil, nil
	}
	var elem reflect.Type
	if delim == '[' && t != nil {
		elem = t.Elem()
	}
	seen := map[string]bool{}
	for i := 0; dec.More(); i++ {
		name := fmt.Sprintf("%s[%d]", path, i)
		if delim == '{' {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			name = joinPath(path, key)
			if seen[key] {
				shown := shownName(name)
				return newError(http.StatusBadRequest, CodeDuplicateField,
					fmt.Sprintf("%s appears twice in the same object: send each field once", shown),
					fieldError{Field: shown, Code: CodeDuplicateField, Message: fmt.Sprintf("%s appears twice", shown)}), nil
			}
			seen[key] = true
			var herr *httpError
			if elem, herr = memberType(t, name, key); herr != nil {
				return herr, nil
			}
		}
		if herr, err := walkValue(dec, elem, name); herr != nil || err != nil {
			return herr, err
		}
	}
	_, err = dec.Token() // the closing delimiter
	return nil, err
}

// memberType is the type the member key (at name) of an object of type t
// decodes into, nil where anything fits; or the error for a key t has no
// field for, or spells in another case.
func memberType(t reflect.Type, name, key string) (reflect.Type, *httpError) {
	if t == nil {
		return nil, nil
	}
	if t.Kind() == reflect.Map {
		return t.Elem(), nil
	}
	field, exact := jsonField(t, key)
	switch {
	case field == "":
		return nil, unknownField(name)
	case !exact:
		spelled := name[:len(name)-len(key)] + field
		return nil, newError(http.StatusBadRequest, CodeFieldCase,
			fmt.Sprintf("unknown field %s: field names are case-sensitive, did you mean %s?", quoteName(name), quoteName(spelled)),
			fieldError{Field: shownName(name), Code: CodeFieldCase, Message: fmt.Sprintf("spell it %q", field)})
	}
	sf, _ := structField(t, field)
	return sf.Type, nil
}

// fits reports whether a value whose first token is tok decodes into t.
func fits(t reflect.Type, tok json.Token) bool {
	n, isNumber := tok.(json.Number)
	delim, isDelim := tok.(json.Delim)
	switch t.Kind() {
	case reflect.String:
		_, ok := tok.(string)
		return ok
	case reflect.Bool:
		_, ok := tok.(bool)
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t == wholeNumberType {
			_, ok := parseWhole(string(n))
			return isNumber && ok
		}
		_, err := strconv.ParseInt(string(n), 10, t.Bits())
		return isNumber && err == nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		_, err := strconv.ParseUint(string(n), 10, t.Bits())
		return isNumber && err == nil
	case reflect.Float32, reflect.Float64:
		_, err := strconv.ParseFloat(string(n), t.Bits())
		return isNumber && err == nil
	case reflect.Slice, reflect.Array:
		return isDelim && delim == '['
	case reflect.Struct, reflect.Map:
		return isDelim && delim == '{'
	}
	return true // a kind the request types do not use: encoding/json decides
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// tokenKind names the JSON kind of a value's first token, as encoding/json's
// type errors do.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case json.Delim:
		if v == '[' {
			return "array"
		}
		return "object"
	}
	return "null"
}

// loneSurrogate finds a \uD800-\uDFFF escape inside a JSON string that
// is not half of a high-low pair; encoding/json would turn it into U+FFFD.
func loneSurrogate(raw []byte) (offset int, found bool) {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(raw):
			if raw[i+1] != 'u' {
				i++ // a one-character escape, \" included
				continue
			}
			r, ok := hex4(raw, i+2)
			if !ok {
				continue // a syntax error, reported by the decoder
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := hex4(raw, i+8)
				if i+7 >= len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i, true
				}
				i += 11
			case r >= 0xDC00 && r <= 0xDFFF:
				return i, true
			default:
				i += 5
			}
		}
	}
	return 0, false
}

// hex4 reads the four hex digits at raw[at:].
func hex4(raw []byte, at int) (rune, bool) {
	if at < 0 || at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonField finds the field of struct t that key decodes into: its JSON
// name, and whether key spells it exactly. "" when there is none.
func jsonField(t reflect.Type, key string) (name string, exact bool) {
	for _, f := range reflect.VisibleFields(t) {
		n, ok := jsonName(f)
		if !ok {
			continue
		}
		if n == key {
			return n, true
		}
		if strings.EqualFold(n, key) {
			name = n
		}
	}
	return name, false
}

func structField(t reflect.Type, key string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if n, ok := jsonName(f); ok && n == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonName is the name encoding/json uses for f, and false for a field it
// skips (unexported, tagged "-", or an embedded struct whose fields are
// promoted).
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// readError is the answer to a body that could not be read: one that did
// not arrive in time, or a connection that failed, is not bad JSON, and
// the network error's text (the sockets' addresses) is not the client's.
func readError(err error, limit int64) *httpError {
	var netErr net.Error
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		return newError(http.StatusRequestTimeout, CodeRequestTimeout, fmt.Sprintf(
			"the body did not arrive in time (a request has %s plus the sandbox timeout to arrive whole): send it at once", connReadTimeout))
	case errors.As(err, new(*net.OpError)):
		return newError(http.StatusBadRequest, CodeInvalidJSON, "the body could not be read: the connection failed while it arrived")
	}
	return decodeError(err, limit)
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
	case errors.As(err, &syntax) && syntax.Offset == 1 && strings.HasPrefix(syntax.Error(), "invalid character 'ï'"):
		return bad("the body starts with a byte order mark (EF BB BF): send the JSON without it")
	case errors.As(err, &syntax):
		return bad("the body is not valid JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ): // checkKeys found nothing: encoding/json's own path
		return kindError(typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return unknownField(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return bad("the body could not be read as JSON: %v", err)
}

// kindError says the value at path ("" for the body) is got (a JSON kind)
// where a value decoding into t belongs.
func kindError(path string, t reflect.Type, got string) *httpError {
	if path == "" {
		return newError(http.StatusBadRequest, CodeInvalidJSON, "the body must be a JSON object, got "+got)
	}
	return mustBe(path, jsonKind(t.Kind().String()), got)
}

// integerRange is the range of the integer type t as text, ok false when t
// is no integer type.
func integerRange(t reflect.Type) (lo, hi string, ok bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t == wholeNumberType {
			return "-9007199254740992", "9007199254740992", true // ±2^53, parseWhole
		}
		return strconv.FormatInt(-1<<(t.Bits()-1), 10), strconv.FormatInt(1<<(t.Bits()-1)-1, 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "0", strconv.FormatUint(1<<t.Bits()-1, 10), true
	}
	return "", "", false
}

// isWhole reports whether the JSON number text is a whole number, however
// large (1e400 is one).
func isWhole(text string) bool {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	return math.IsInf(f, 0) || f == math.Trunc(f)
}

// fractionError is the answer to a number with a fraction where a whole
// number belongs ("must be an integer, got number" named no fault).
func fractionError(path, got string) *httpError {
	return mustBe(path, "a whole number", shortNumber(got))
}

// rangeError is the answer to a whole number outside its field's range.
func rangeError(path, lo, hi, got string) *httpError {
	return mustBe(path, fmt.Sprintf("an integer from %s to %s", lo, hi), shortNumber(got))
}

// shortNumber is a JSON number's text as an answer quotes it: cut at 32
// bytes (its characters are ASCII).
func shortNumber(text string) string {
	if len(text) > 32 {
		return text[:32] + "…"
	}
	return text
}

// mustBe is the answer to the value got (a JSON kind, or a number's text)
// at path where want belongs.
func mustBe(path, want, got string) *httpError {
	path = shownName(path)
	return newError(http.StatusBadRequest, CodeInvalidJSON, fmt.Sprintf("%s must be %s, got %s", path, want, got),
		fieldError{Field: path, Code: CodeInvalidJSON, Message: fmt.Sprintf("%s must be %s", path, want)})
}

func unknownField(name string) *httpError {
	quoted := quoteName(name)
	return newError(http.StatusBadRequest, CodeUnknownField,
		fmt.Sprintf("unknown field %s: see the OpenAPI document for the fields this route accepts", quoted),
		fieldError{Field: shownName(name), Code: CodeUnknownField, Message: "unknown field " + quoted})
}

// maxShownName is the most of a field's path or a parameter's name, as the
// request spelled them, that an answer echoes.
const maxShownName = 64

// shownName is name (a field's path or a parameter's name: the client
// chose it, and may have made it megabytes long) cut for an answer to echo.
func shownName(name string) string {
	shown, _ := textcut.Cut(name, maxShownName)
	return shown
}

// quoteName is name quoted for a message, cut as shownName cuts it.
func quoteName(name string) string { return textcut.Quote(name, maxShownName) }

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
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "a " + goKind
}

// wholeNumber is an integer field that JSON may write as 1000, 1000.0 or
// 1e3, as JSON Schema's "integer" (and a job's flowjob.Decode) allow; a
// fraction, or a value past 2^53 written so, is a wrong kind. checkKeys
// reads it as an int.
type wholeNumber int

var wholeNumberType = reflect.TypeFor[wholeNumber]()

func (n *wholeNumber) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v, ok := parseWhole(string(b))
	if !ok {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: wholeNumberType}
	}
	*n = wholeNumber(v)
	return nil
}

// parseWhole reads a JSON number whose value is a whole number within
// ±2^53 (exactly, whatever its notation).
func parseWhole(text string) (int, bool) {
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return int(v), v >= -1<<53 && v <= 1<<53
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}
