package flowjob

// This file is a frozen copy of Decode and Salvage as they were before the
// decoder was rewritten for speed (commit 8ff794f), every name prefixed
// with ref. The differential tests in decode_reference_match_test.go hold
// the live decoder to it: the same job, the same problems in the same
// order, the same salvage, on every input. Do not change it to make a
// test pass; change it only together with a deliberate change of Decode's
// behaviour, and say so in the commit. One change was made on freezing:
// Salvage panicked on data that ends right after a member name (`{"ab`)
// when data had no spare capacity; it now stops there, as it already did
// when data had some.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// refDecode is Decode as it was (see the file comment).
func refDecode(data []byte) (*Job, error) {
	var p problems
	if len(data) > MaxJobBytes {
		p.add("", "job is %d bytes, over the %d-byte limit: move large data out of the job", len(data), MaxJobBytes)
		return refSalvage(data), p.err()
	}
	if !json.Valid(data) { // one scan, no copy: the decoder reads data itself
		err := json.Unmarshal(data, new(json.RawMessage))
		p.add("", "not valid JSON: %s", refJSONSyntax(err))
		return refSalvage(data), p.err()
	}
	raw := json.RawMessage(data)
	if k := refKindOf(raw); k != "object" {
		p.add("", "a job must be a JSON object, got %s", k)
		return nil, p.err()
	}
	job := &Job{}
	d := &refDecoder{p: &p}
	d.job(raw, job)

	var checked problems
	job.validate(&checked)
	// A field whose JSON was wrong is reported once, by the decoder, not
	// again by the rule its zero value breaks.
	decoded := len(p.list)
	for _, fe := range checked.list {
		if !refReportedWithin(p.list[:decoded], fe.Field) {
			p.add(fe.Field, "%s", fe.Message)
		}
	}
	p.more += checked.more
	return job, p.err()
}

// refSalvage is Salvage as it was.
func refSalvage(data []byte) *Job {
	var job Job
	found := false
	ids := map[string]*string{"id": &job.ID, "sessionId": &job.SessionID, "flowId": &job.FlowID,
		"blockId": &job.BlockID, "context": (*string)(&job.Context)}
	(&refDecoder{}).members(data, func(key string, v json.RawMessage) {
		dst, ok := ids[key]
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return
		}
		if s, ok := refUnquote(v); ok {
			*dst, found = s, true
		}
	})
	if !found {
		return nil
	}
	return &job
}

func refReportedWithin(list []FieldError, field string) bool {
	for _, fe := range list {
		if within(field, fe.Field) {
			return true
		}
	}
	return false
}

func refJSONSyntax(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// kindOf names the JSON type of a syntactically valid value.
func refKindOf(raw json.RawMessage) string {
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

// refDecoder turns raw JSON values into a Job, reporting each misfit by path.
type refDecoder struct{ p *problems }

func (d *refDecoder) typeError(path, want string, raw json.RawMessage) {
	d.p.add(path, "must be %s, got %s", want, refKindOf(raw))
}

// object walks the members of the object raw in document order, refusing
// duplicates and names that fields does not know, and reports which names
// it saw. ok is false (and the misfit reported) when raw is not an object.
func (d *refDecoder) object(path string, raw json.RawMessage, fields map[string]func(path string, v json.RawMessage)) (seen map[string]bool, ok bool) {
	if refKindOf(raw) != "object" {
		d.typeError(refOrRoot(path), "an object", raw)
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
			d.p.add(at, "unknown field%s", refHint(key, fields))
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
func (d *refDecoder) members(raw json.RawMessage, each func(key string, v json.RawMessage)) {
	i := refSkipJSONSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return
	}
	i++
	for {
		i = refSkipJSONSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = refSkipJSONSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] != '"' {
			return // '}'
		}
		keyEnd := refJSONStringEnd(raw, i)
		key, ok := refUnquote(raw[i:keyEnd])
		if !ok {
			return
		}
		i = refSkipJSONSpace(raw, keyEnd)
		if i >= len(raw) {
			// The one change to the frozen code: it went on past the end
			// of raw here, and panicked when cap(raw) == len(raw).
			return
		}
		i++ // past ':'
		i = refSkipJSONSpace(raw, i)
		end := refJSONValueEnd(raw, i)
		each(key, raw[i:end])
		i = end
	}
}

func refSkipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonStringEnd returns the index just past the string starting at b[i].
func refJSONStringEnd(b []byte, i int) int {
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
func refJSONValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return refJSONStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = refJSONStringEnd(b, j) - 1
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
func refUnquote(q []byte) (string, bool) {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), true
	}
	return refUnescape(q)
}

// unescape decodes the JSON string q (quotes included) as encoding/json
// does — a bad UTF-8 byte or a lone surrogate becomes U+FFFD — without its
// reflection; false when q is not a well-formed JSON string.
func refUnescape(q []byte) (string, bool) {
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
				r := refHex4(s[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if dec := utf16.DecodeRune(r, refHex4(s[i:])); dec != unicode.ReplacementChar {
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
func refHex4(s []byte) rune {
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
func (d *refDecoder) array(path string, raw json.RawMessage, want string) ([]json.RawMessage, bool) {
	switch refKindOf(raw) {
	case "null":
		return nil, false
	case "array":
	default:
		d.typeError(path, want, raw)
		return nil, false
	}
	var elems []json.RawMessage
	refElements(raw, func(v json.RawMessage) { elems = append(elems, v) })
	return elems, true
}

// elements calls each for every element of raw, a syntactically valid JSON
// array (Decode checked the whole document first), in order.
func refElements(raw json.RawMessage, each func(v json.RawMessage)) {
	i := refSkipJSONSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i++
	for {
		i = refSkipJSONSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = refSkipJSONSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] == ']' {
			return
		}
		end := refJSONValueEnd(raw, i)
		each(raw[i:end])
		i = end
	}
}

func refOrRoot(path string) string {
	if path == "" {
		return "job"
	}
	return path
}

// hint suggests the known field a misspelt one differs from only in case.
func refHint(key string, fields map[string]func(string, json.RawMessage)) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
	}
	return ""
}

func (d *refDecoder) job(raw json.RawMessage, j *Job) {
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

func (d *refDecoder) action(path string, raw json.RawMessage, a *ExecuteScriptAction) {
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
func (d *refDecoder) inputs(path string, raw json.RawMessage, dst *[]InputVariable) {
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
func (d *refDecoder) resume(path string, raw json.RawMessage, dst **Resume) {
	if refKindOf(raw) == "null" {
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
func (d *refDecoder) strs(path string, raw json.RawMessage, dst *[]string) {
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
func (d *refDecoder) variables(path string, raw json.RawMessage, dst *map[string]string) {
	switch refKindOf(raw) {
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
func (d *refDecoder) str(path string, raw json.RawMessage, optional bool, dst *string) bool {
	switch kind := refKindOf(raw); {
	case kind == "string":
		v, ok := refUnquote(bytes.TrimSpace(raw))
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
func (d *refDecoder) integer(path string, raw json.RawMessage, dst *int) {
	switch refKindOf(raw) {
	case "null":
		return
	case "number":
	default:
		d.typeError(path, "a whole number", raw)
		return
	}
	text := strings.TrimSpace(string(raw))
	n, err := strconv.Atoi(text)
	if errors.Is(err, strconv.ErrSyntax) { // 1000.0, 1e3: whole, written otherwise
		var f float64
		if f, err = strconv.ParseFloat(text, 64); err == nil {
			switch {
			case f != math.Trunc(f):
				err = strconv.ErrSyntax
			case math.Abs(f) > 1<<53:
				err = strconv.ErrRange
			default:
				n = int(f)
			}
		}
	}
	switch {
	case errors.Is(err, strconv.ErrRange):
		d.p.add(path, "%s is out of range", refQuoteRaw(text))
	case err != nil:
		d.p.add(path, "must be a whole number, got %s", refQuoteRaw(text))
	default:
		*dst = n
	}
}

func refQuoteRaw(text string) string {
	if len(text) > 40 {
		return text[:40] + "…"
	}
	return text
}

func (d *refDecoder) handoff(path string, raw json.RawMessage, dst **bool) {
	switch refKindOf(raw) {
	case "null":
		return
	case "boolean":
		b := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("true"))
		*dst = &b
	default:
		d.typeError(path, "true or false", raw)
	}
}

func (d *refDecoder) deadline(path string, raw json.RawMessage, dst **time.Time) {
	var s string
	if !d.str(path, raw, true, &s) || s == "" && refKindOf(raw) == "null" {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.p.add(path, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s", quote(s))
		return
	}
	*dst = &t
}
