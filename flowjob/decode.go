package flowjob

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode reads a job strictly and validates it. Strictly: the input must be
// one JSON object of at most MaxJobBytes; unknown and duplicate fields are
// refused; every value must have its field's JSON type (a variable that is
// a number is refused, not converted); null means "absent" only for the
// optional fields. Every problem is collected into one *ValidationError
// whose entries name the field (`variables.foo: must be a string, got
// number`).
//
// When data is a JSON object, the returned job holds every field that did
// decode even when err is not nil, so that the caller can still answer the
// session of a bad job (it carries the ids). When data is too large or not
// valid JSON, the job holds what Salvage reads of it (nil when nothing).
// A job returned with an error must never be run.
func Decode(data []byte) (*Job, error) {
	var p problems
	if len(data) > MaxJobBytes {
		p.add("", "job is %d bytes, over the %d-byte limit: move large data out of the job", len(data), MaxJobBytes)
		return Salvage(data), p.err()
	}
	if !json.Valid(data) { // one scan, no copy: the decoder reads data itself
		err := json.Unmarshal(data, new(json.RawMessage))
		p.add("", "not valid JSON: %s", jsonSyntax(err))
		return Salvage(data), p.err()
	}
	raw := json.RawMessage(data)
	if k := kindOf(raw); k != "object" {
		p.add("", "a job must be a JSON object, got %s", k)
		return nil, p.err()
	}
	job := &Job{}
	d := &decoder{p: &p}
	d.job(raw, job)

	var checked problems
	job.validate(&checked)
	// A field whose JSON was wrong is reported once, by the decoder, not
	// again by the rule its zero value breaks.
	decoded := len(p.list)
	for _, fe := range checked.list {
		if !reportedWithin(p.list[:decoded], fe.Field) {
			p.add(fe.Field, "%s", fe.Message)
		}
	}
	p.more += checked.more
	return job, p.err()
}

// Salvage reads the ids of a job that cannot be decoded (too large, cut
// short, broken JSON): the top-level string members id, sessionId, flowId,
// blockId and context that come before the document breaks, in one pass
// that allocates nothing for the members it skips. It is how an executor
// still answers the session of a job it cannot read; the job it returns
// must never be run. It returns nil when it reads none of them.
func Salvage(data []byte) *Job {
	var job Job
	found := false
	ids := map[string]*string{"id": &job.ID, "sessionId": &job.SessionID, "flowId": &job.FlowID,
		"blockId": &job.BlockID, "context": (*string)(&job.Context)}
	(&decoder{}).members(data, func(key string, v json.RawMessage) {
		dst, ok := ids[key]
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return
		}
		if s, ok := unquote(v); ok {
			*dst, found = s, true
		}
	})
	if !found {
		return nil
	}
	return &job
}

func reportedWithin(list []FieldError, field string) bool {
	for _, fe := range list {
		if within(field, fe.Field) {
			return true
		}
	}
	return false
}

func jsonSyntax(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// kindOf names the JSON type of a syntactically valid value.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// decoder turns raw JSON values into a Job, reporting each misfit by path.
type decoder struct{ p *problems }

func (d *decoder) typeError(path, want string, raw json.RawMessage) {
	d.p.add(path, "must be %s, got %s", want, kindOf(raw))
}

// object walks the members of the object raw in document order, refusing
// duplicates and names that fields does not know, and reports which names
// it saw. ok is false (and the misfit reported) when raw is not an object.
func (d *decoder) object(path string, raw json.RawMessage, fields map[string]func(path string, v json.RawMessage)) (seen map[string]bool, ok bool) {
	if kindOf(raw) != "object" {
		d.typeError(orRoot(path), "an object", raw)
		return nil, false
	}
	seen = make(map[string]bool, len(fields))
	d.members(raw, func(key string, v json.RawMessage) {
		at := keyPath(path, key)
		if seen[key] {
			d.p.add(at, "duplicate field")
			return
		}
		seen[key] = true
		f, known := fields[key]
		if !known {
			d.p.add(at, "unknown field%s", hint(key, fields))
			return
		}
		f(at, v)
	})
	return seen, true
}

// members calls each for every member of raw, a syntactically valid JSON
// object (Decode checked the whole document first), in document order. It
// splits the members itself instead of running a json.Decoder over raw:
// decoding a job is on every job's path.
func (d *decoder) members(raw json.RawMessage, each func(key string, v json.RawMessage)) {
	i := skipJSONSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return
	}
	i++
	for {
		i = skipJSONSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] != '"' {
			return // '}'
		}
		keyEnd := jsonStringEnd(raw, i)
		key, ok := unquote(raw[i:keyEnd])
		if !ok {
			return
		}
		i = skipJSONSpace(raw, keyEnd) + 1 // past ':'
		i = skipJSONSpace(raw, i)
		end := jsonValueEnd(raw, i)
		each(key, raw[i:end])
		i = end
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonStringEnd returns the index just past the string starting at b[i].
func jsonStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// jsonValueEnd returns the index just past the value starting at b[i].
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = jsonStringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
			j++
		}
		return j
	}
}

// unquote decodes the JSON string q (quotes included). A string without
// escapes that is valid UTF-8 is copied as it is; anything else goes
// through encoding/json, so the result is always what json.Unmarshal gives.
func unquote(q []byte) (string, bool) {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), true
	}
	return unescape(q)
}

// unescape decodes the JSON string q (quotes included) as encoding/json
// does — a bad UTF-8 byte or a lone surrogate becomes U+FFFD — without its
// reflection; false when q is not a well-formed JSON string.
func unescape(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	s := q[1 : len(q)-1]
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if dec := utf16.DecodeRune(r, hex4(s[i:])); dec != unicode.ReplacementChar {
						r = dec
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(b), true
}

// hex4 reads the escape \uXXXX at the start of s, -1 when there is none.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// array returns the elements of raw when it is an array; null is none (ok
// false, no problem), anything else a type problem naming want.
func (d *decoder) array(path string, raw json.RawMessage, want string) ([]json.RawMessage, bool) {
	switch kindOf(raw) {
	case "null":
		return nil, false
	case "array":
	default:
		d.typeError(path, want, raw)
		return nil, false
	}
	var elems []json.RawMessage
	elements(raw, func(v json.RawMessage) { elems = append(elems, v) })
	return elems, true
}

// elements calls each for every element of raw, a syntactically valid JSON
// array (Decode checked the whole document first), in order.
func elements(raw json.RawMessage, each func(v json.RawMessage)) {
	i := skipJSONSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i++
	for {
		i = skipJSONSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] == ']' {
			return
		}
		end := jsonValueEnd(raw, i)
		each(raw[i:end])
		i = end
	}
}

func orRoot(path string) string {
	if path == "" {
		return "job"
	}
	return path
}

// hint suggests the known field a misspelt one differs from only in case.
func hint(key string, fields map[string]func(string, json.RawMessage)) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
	}
	return ""
}

func (d *decoder) job(raw json.RawMessage, j *Job) {
	seen, _ := d.object("", raw, map[string]func(string, json.RawMessage){
		"version":                 func(at string, v json.RawMessage) { d.integer(at, v, &j.Version) },
		"id":                      func(at string, v json.RawMessage) { d.str(at, v, false, &j.ID) },
		"sessionId":               func(at string, v json.RawMessage) { d.str(at, v, false, &j.SessionID) },
		"flowId":                  func(at string, v json.RawMessage) { d.str(at, v, false, &j.FlowID) },
		"blockId":                 func(at string, v json.RawMessage) { d.str(at, v, false, &j.BlockID) },
		"context":                 func(at string, v json.RawMessage) { d.str(at, v, false, (*string)(&j.Context)) },
		"action":                  func(at string, v json.RawMessage) { d.action(at, v, &j.Action) },
		"variables":               func(at string, v json.RawMessage) { d.variables(at, v, &j.Variables) },
		"defaultExceptionBlockId": func(at string, v json.RawMessage) { d.str(at, v, true, &j.DefaultExceptionBlockID) },
		"timeoutMs":               func(at string, v json.RawMessage) { d.integer(at, v, &j.TimeoutMs) },
		"deadline":                func(at string, v json.RawMessage) { d.deadline(at, v, &j.Deadline) },
		"tenantId":                func(at string, v json.RawMessage) { d.str(at, v, true, &j.TenantID) },
		"capabilities":            func(at string, v json.RawMessage) { d.strs(at, v, &j.Capabilities) },
		"resume":                  func(at string, v json.RawMessage) { d.resume(at, v, &j.Resume) },
		"templateId":              func(at string, v json.RawMessage) { d.str(at, v, true, &j.TemplateID) },
		"templateVersion":         func(at string, v json.RawMessage) { d.integer(at, v, &j.TemplateVersion) },
	})
	if !seen["action"] {
		d.p.add("action", "required: the executeScript action to run")
	}
}

func (d *decoder) action(path string, raw json.RawMessage, a *ExecuteScriptAction) {
	seen, ok := d.object(path, raw, map[string]func(string, json.RawMessage){
		"type":           func(at string, v json.RawMessage) { d.str(at, v, false, &a.Type) },
		"source":         func(at string, v json.RawMessage) { d.str(at, v, false, &a.Source) },
		"inputVariables": func(at string, v json.RawMessage) { d.inputs(at, v, &a.InputVariables) },
		"outputVariable": func(at string, v json.RawMessage) { d.str(at, v, false, &a.OutputVariable) },
		"errorVariable":  func(at string, v json.RawMessage) { d.str(at, v, true, &a.ErrorVariable) },
		"onError":        func(at string, v json.RawMessage) { d.str(at, v, false, (*string)(&a.OnError)) },
		"errorMessage":   func(at string, v json.RawMessage) { d.str(at, v, true, &a.ErrorMessage) },
		"errorHandoff":   func(at string, v json.RawMessage) { d.handoff(at, v, &a.ErrorHandoff) },
	})
	if ok && !seen["inputVariables"] {
		d.p.add(path+".inputVariables", "required: use [] when the script takes no inputs")
	}
}

// inputs reads action.inputVariables. null is no inputs (what a Go engine's
// nil slice encodes to). An element that does not decode still takes its
// index, so later paths stay right.
func (d *decoder) inputs(path string, raw json.RawMessage, dst *[]InputVariable) {
	elems, ok := d.array(path, raw, "an array")
	if !ok {
		return
	}
	*dst = make([]InputVariable, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", path, i)
		in := &(*dst)[i]
		seen, ok := d.object(at, e, map[string]func(string, json.RawMessage){
			"name":  func(at string, v json.RawMessage) { d.str(at, v, false, &in.Name) },
			"value": func(at string, v json.RawMessage) { d.str(at, v, false, &in.Value) },
		})
		if ok && !seen["value"] {
			d.p.add(at+".value", `required (it may be "")`)
		}
	}
}

// resume reads a job's resume: {token, resolution}; null is none.
func (d *decoder) resume(path string, raw json.RawMessage, dst **Resume) {
	if kindOf(raw) == "null" {
		return
	}
	r := &Resume{}
	seen, ok := d.object(path, raw, map[string]func(string, json.RawMessage){
		"token":      func(at string, v json.RawMessage) { d.str(at, v, false, &r.Token) },
		"resolution": func(_ string, v json.RawMessage) { r.Resolution = append(json.RawMessage(nil), v...) },
	})
	if !ok {
		return
	}
	if !seen["resolution"] {
		d.p.add(path+".resolution", "required: the answer to the approval request (any JSON, null included)")
	}
	*dst = r
}

// strs reads an array of strings; null or absent is none.
func (d *decoder) strs(path string, raw json.RawMessage, dst *[]string) {
	elems, ok := d.array(path, raw, "an array of strings")
	if !ok {
		return
	}
	*dst = make([]string, len(elems))
	for i, e := range elems {
		d.str(fmt.Sprintf("%s[%d]", path, i), e, false, &(*dst)[i])
	}
}

// variables reads the session variables: an object of strings. null or
// absent is no variables.
func (d *decoder) variables(path string, raw json.RawMessage, dst *map[string]string) {
	switch kindOf(raw) {
	case "null":
		return
	case "object":
	default:
		d.typeError(path, "an object of strings", raw)
		return
	}
	vars := make(map[string]string)
	seen := make(map[string]bool)
	d.members(raw, func(key string, v json.RawMessage) {
		at := keyPath(path, key)
		if seen[key] {
			d.p.add(at, "duplicate variable")
			return
		}
		seen[key] = true
		var s string
		if d.str(at, v, false, &s) {
			vars[key] = s
		}
	})
	*dst = vars
}

// str reads a string; null is absent when optional.
func (d *decoder) str(path string, raw json.RawMessage, optional bool, dst *string) bool {
	switch kind := kindOf(raw); {
	case kind == "string":
		v, ok := unquote(bytes.TrimSpace(raw))
		if !ok {
			d.p.add(path, "is not a valid JSON string")
			return false
		}
		*dst = v
		return true
	case kind == "null" && optional:
		return true
	default:
		d.typeError(path, "a string", raw)
		return false
	}
}

// integer reads a whole number; null is absent (every integer field is
// optional).
func (d *decoder) integer(path string, raw json.RawMessage, dst *int) {
	switch kindOf(raw) {
	case "null":
		return
	case "number":
	default:
		d.typeError(path, "a whole number", raw)
		return
	}
	text := strings.TrimSpace(string(raw))
	n, err := strconv.Atoi(text)
	switch {
	case errors.Is(err, strconv.ErrRange):
		d.p.add(path, "%s is out of range", quoteRaw(text))
	case err != nil:
		d.p.add(path, "must be a whole number, got %s", quoteRaw(text))
	default:
		*dst = n
	}
}

func quoteRaw(text string) string {
	if len(text) > 40 {
		return text[:40] + "…"
	}
	return text
}

func (d *decoder) handoff(path string, raw json.RawMessage, dst **bool) {
	switch kindOf(raw) {
	case "null":
		return
	case "boolean":
		b := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("true"))
		*dst = &b
	default:
		d.typeError(path, "true or false", raw)
	}
}

func (d *decoder) deadline(path string, raw json.RawMessage, dst **time.Time) {
	var s string
	if !d.str(path, raw, true, &s) || s == "" && kindOf(raw) == "null" {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.p.add(path, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s", quote(s))
		return
	}
	*dst = &t
}
