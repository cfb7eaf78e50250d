package flowjob

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
//
// Decode is on every job's path, so it reads data in one pass that checks
// the JSON syntax as json.Valid does and decodes the fields as it goes,
// spelling out a field's path only when it reports a problem there. Only
// data that is not JSON goes through encoding/json, which names the fault.
func Decode(data []byte) (*Job, error) {
	if err := CheckSize(data); err != nil {
		return Salvage(data), err
	}
	var p problems
	d := decoder{data: data, p: &p}
	job, valid := d.document()
	if !valid {
		return notJSON(data)
	}
	if job == nil {
		return nil, p.err() // not an object
	}

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
	p.addUnlisted(&checked)
	return job, p.err()
}

// CheckSize returns the *ValidationError Decode gives a job encoded as
// data when data is over MaxJobBytes, else nil. Validate cannot see the
// encoded size (JSON escapes control characters as six bytes each, and
// json.Marshal also < > &: encode with Marshal), so an engine checks its
// encoding too before publishing (flowclient.Client.Publish does both).
func CheckSize(data []byte) error {
	if len(data) <= MaxJobBytes {
		return nil
	}
	var p problems
	p.add("", "job is %d bytes, over the %d-byte limit: move large data out of the job", len(data), MaxJobBytes)
	return p.err()
}

// notJSON is Decode's answer to data that is not JSON: encoding/json names
// the fault, and Salvage reads what ids it can.
func notJSON(data []byte) (*Job, error) {
	var p problems
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		p.add("", "not valid JSON: %s", jsonSyntax(err))
	} else {
		// The decoder refused JSON that encoding/json reads: a bug of the
		// decoder's (FuzzDecodeMatchesReference hunts for it). The job was
		// not read, so it is refused all the same.
		p.add("", "not valid JSON: the decoder refused it, encoding/json did not (a flowjob bug)")
	}
	return Salvage(data), p.err()
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
	members(data, func(key string, v json.RawMessage) {
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

// kind names the JSON type of a value that starts with c.
func kind(c byte) string {
	switch c {
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

// maxDepth is how deeply encoding/json lets arrays and objects nest; the
// decoder refuses deeper data as json.Valid does.
const maxDepth = 10000

// decoder reads a job from data in one pass. Its scanning methods take the
// index where a value (or a separator) starts and return the index past
// it. On a syntax error they set bad and return len(data), so that every
// loop above them ends; what was read is then thrown away.
type decoder struct {
	data  []byte
	p     *problems
	depth int  // arrays and objects open at the current index
	bad   bool // data is not JSON
}

// document reads the whole of data: the job when it is an object, nil
// (with the problem reported) when it is other JSON; valid is false when
// data is not JSON.
func (d *decoder) document() (job *Job, valid bool) {
	i := d.space(0)
	if c := d.at(i); c == '{' {
		job = &Job{}
		i = d.job(i, job)
	} else {
		i = d.skip(i)
		if !d.bad {
			d.p.add("", "a job must be a JSON object, got %s", kind(c))
		}
	}
	if d.space(i) != len(d.data) {
		d.fail()
	}
	if d.bad {
		return nil, false
	}
	return job, true
}

// at is the byte at i, 0 (which no JSON value starts with) past the end.
func (d *decoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *decoder) fail() int {
	d.bad = true
	return len(d.data)
}

func (d *decoder) space(i int) int {
	for ; i < len(d.data); i++ {
		switch d.data[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return i
		}
	}
	return i
}

// open enters the array or object at i, whose closing byte is end: it
// returns the index of its first element or member name (more true), or
// the index past it when it is empty.
func (d *decoder) open(i int, end byte) (int, bool) {
	d.depth++
	if d.depth > maxDepth {
		return d.fail(), false
	}
	i = d.space(i + 1)
	if d.at(i) == end {
		d.depth--
		return i + 1, false
	}
	return i, true
}

// next reads what follows a value inside the array or object whose
// closing byte is end: a comma (more true, and the index of the next
// element or member name) or the end (the index past it).
func (d *decoder) next(i int, end byte) (int, bool) {
	i = d.space(i)
	switch d.at(i) {
	case ',':
		return d.space(i + 1), true
	case end:
		d.depth--
		return i + 1, false
	}
	return d.fail(), false
}

// name reads the member name at i and the colon after it: the name,
// decoded, and the index of the value. The name is data's own bytes when
// it needs no decoding.
func (d *decoder) name(i int) (name []byte, v int) {
	if d.at(i) != '"' {
		return nil, d.fail()
	}
	name, end := d.stringAt(i)
	return name, d.colon(end)
}

// skipName checks the member name at i and the colon after it, and
// returns the index of the value.
func (d *decoder) skipName(i int) int {
	if d.at(i) != '"' {
		return d.fail()
	}
	end, _, _ := d.stringEnd(i)
	return d.colon(end)
}

func (d *decoder) colon(i int) int {
	i = d.space(i)
	if d.at(i) != ':' {
		return d.fail()
	}
	return d.space(i + 1)
}

// stringAt reads the string at i (a '"'): its value, as data's own bytes
// when it has no escape and is valid UTF-8, else decoded as encoding/json
// decodes it, and the index past it.
func (d *decoder) stringAt(i int) (s []byte, end int) {
	q, end, plain := d.quoted(i)
	switch {
	case d.bad:
		return nil, end
	case plain:
		return q[1 : len(q)-1], end
	}
	u, _ := unescape(q) // cannot fail: stringEnd checked the syntax
	return []byte(u), end
}

// textAt is stringAt for a value the job keeps: a string.
func (d *decoder) textAt(i int) (s string, end int) {
	q, end, plain := d.quoted(i)
	switch {
	case d.bad:
		return "", end
	case plain:
		return constant(q[1 : len(q)-1]), end
	}
	s, _ = unescape(q) // cannot fail: stringEnd checked the syntax
	return s, end
}

// quoted checks the string at i (a '"') and returns it, quotes included,
// the index past it, and whether it reads as it is written (no escape,
// valid UTF-8).
func (d *decoder) quoted(i int) (q []byte, end int, plain bool) {
	end, esc, ascii := d.stringEnd(i)
	if d.bad {
		return nil, end, false
	}
	q = d.data[i:end]
	return q, end, !esc && (ascii || utf8.Valid(q))
}

// plainByte marks the bytes that stand for themselves inside a JSON string
// (no quote, backslash or control byte) and are ASCII.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stringEnd checks the string at i (a '"') and returns the index past it,
// and whether it has an escape and whether it is all ASCII.
func (d *decoder) stringEnd(i int) (end int, esc, ascii bool) {
	data := d.data
	ascii = true
	for j := i + 1; j < len(data); j++ {
		c := data[j]
		if plainByte[c] {
			continue
		}
		switch {
		case c == '"':
			return j + 1, esc, ascii
		case c == '\\':
			n := escapeLen(data[j:])
			if n == 0 {
				return d.fail(), false, false
			}
			esc = true
			j += n - 1
		case c < 0x20:
			return d.fail(), false, false
		default:
			ascii = false
		}
	}
	return d.fail(), false, false
}

// escapeLen is the length of the valid escape at the start of b (a '\'),
// 0 when it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(b) < 0 {
			return 0
		}
		return 6
	}
	return 0
}

// number checks the number at i and returns the index past it.
func (d *decoder) number(i int) int {
	data := d.data
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	switch {
	case j < len(data) && data[j] == '0':
		j++
	case j < len(data) && '1' <= data[j] && data[j] <= '9':
		j = digits(data, j+1)
	default:
		return d.fail()
	}
	if j < len(data) && data[j] == '.' {
		k := digits(data, j+1)
		if k == j+1 {
			return d.fail()
		}
		j = k
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		k := digits(data, j)
		if k == j {
			return d.fail()
		}
		j = k
	}
	return j
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// literal checks that the literal lit (true, false or null) is at i and
// returns the index past it.
func (d *decoder) literal(i int, lit string) int {
	if len(d.data)-i < len(lit) || string(d.data[i:i+len(lit)]) != lit {
		return d.fail()
	}
	return i + len(lit)
}

// skip checks the value at i, which the job does not keep, and returns the
// index past it.
func (d *decoder) skip(i int) int {
	var buf [16]byte
	open := buf[:0] // the closing bytes of the arrays and objects entered
	for {
		switch c := d.at(i); c {
		case '{', '[':
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			var more bool
			if i, more = d.open(i, end); more {
				open = append(open, end)
				if end == '}' {
					i = d.skipName(i)
				}
				continue // to the first value inside
			}
		case '"':
			i, _, _ = d.stringEnd(i)
		case 't':
			i = d.literal(i, "true")
		case 'f':
			i = d.literal(i, "false")
		case 'n':
			i = d.literal(i, "null")
		default:
			i = d.number(i)
		}
		// Past a value: leave the arrays and objects that end here.
		for {
			if len(open) == 0 {
				return i
			}
			end := open[len(open)-1]
			var more bool
			if i, more = d.next(i, end); more {
				if end == '}' {
					i = d.skipName(i)
				}
				break // to the next value
			}
			open = open[:len(open)-1]
		}
	}
}

// path is where a value is, spelled out only when a problem is reported
// there: base, then [index] when index >= 0, then the member key (keyPath)
// when hasKey.
type path struct {
	base   string
	index  int
	key    string
	hasKey bool
}

// at is the path written out in full.
func at(p string) path { return path{base: p, index: -1} }

// member is the path of the member key of the object at p.
func (p path) member(key string) path {
	if p.hasKey {
		return path{base: p.String(), index: -1, key: key, hasKey: true}
	}
	p.key, p.hasKey = key, true
	return p
}

func (p path) String() string {
	s := p.base
	if p.index >= 0 {
		s += "[" + strconv.Itoa(p.index) + "]"
	}
	if p.hasKey {
		s = keyPath(s, p.key)
	}
	return s
}

func (d *decoder) typeError(p path, want string, c byte) {
	d.p.add(p.String(), "must be %s, got %s", want, kind(c))
}

// The fields of each object: a field's index is its bit in the mask of the
// fields an object showed.
const (
	jobVersion = iota
	jobID
	jobSessionID
	jobFlowID
	jobBlockID
	jobContext
	jobAction
	jobVariables
	jobDefaultExceptionBlockID
	jobTimeoutMs
	jobDeadline
	jobTenantID
	jobCapabilities
	jobResume
	jobTemplateID
	jobTemplateVersion
	jobFieldCount
)

const (
	actionType = iota
	actionSource
	actionInputVariables
	actionOutputVariable
	actionErrorVariable
	actionOnError
	actionErrorMessage
	actionErrorHandoff
	actionFieldCount
)

const (
	inputName = iota
	inputValue
)

const (
	resumeToken = iota
	resumeResolution
)

var (
	jobFields = [jobFieldCount]string{jobVersion: "version", jobID: "id", jobSessionID: "sessionId", jobFlowID: "flowId",
		jobBlockID: "blockId", jobContext: "context", jobAction: "action", jobVariables: "variables",
		jobDefaultExceptionBlockID: "defaultExceptionBlockId", jobTimeoutMs: "timeoutMs", jobDeadline: "deadline",
		jobTenantID: "tenantId", jobCapabilities: "capabilities", jobResume: "resume", jobTemplateID: "templateId",
		jobTemplateVersion: "templateVersion"}
	actionFields = [actionFieldCount]string{actionType: "type", actionSource: "source", actionInputVariables: "inputVariables",
		actionOutputVariable: "outputVariable", actionErrorVariable: "errorVariable", actionOnError: "onError",
		actionErrorMessage: "errorMessage", actionErrorHandoff: "errorHandoff"}
	inputFields  = [...]string{inputName: "name", inputValue: "value"}
	resumeFields = [...]string{resumeToken: "token", resumeResolution: "resolution"}
)

// object reads the object at i (a '{') whose path is p and whose known
// fields are names. In document order, it refuses a repeated or unknown
// member name (reporting it and skipping the value) and lets read read the
// value (at v) of names[f]; read returns the index past the value. object
// returns the index past the object and the mask of the fields it saw.
func (d *decoder) object(i int, p path, names []string, read func(f, v int) int) (end int, seen uint32) {
	var others map[string]bool // the unknown names seen
	i, more := d.open(i, '}')
	for more && !d.bad {
		name, v := d.name(i)
		f := fieldIndex(names, name)
		switch {
		case f >= 0 && seen&(1<<f) == 0:
			seen |= 1 << f
			v = read(f, v)
		case f >= 0:
			d.p.add(p.member(names[f]).String(), "duplicate field")
			v = d.skip(v)
		case others[string(name)]:
			d.p.add(p.member(string(name)).String(), "duplicate field")
			v = d.skip(v)
		default:
			if others == nil {
				others = make(map[string]bool)
			}
			key := string(name)
			others[key] = true
			d.p.add(p.member(key).String(), "unknown field%s", hint(key, names))
			v = d.skip(v)
		}
		i, more = d.next(v, '}')
	}
	return i, seen
}

// fieldIndex is the index of name in names, -1 when it is not there.
func fieldIndex(names []string, name []byte) int {
	for f, n := range names {
		if n == string(name) {
			return f
		}
	}
	return -1
}

// hint suggests the known field a misspelt one differs from only in case.
func hint(key string, names []string) string {
	for _, name := range names {
		if strings.EqualFold(name, key) {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
	}
	return ""
}

func (d *decoder) job(i int, j *Job) int {
	end, seen := d.object(i, at(""), jobFields[:], func(f, v int) int {
		switch f {
		case jobVersion:
			return d.integer(v, at("version"), &j.Version)
		case jobID:
			return d.str(v, at("id"), false, &j.ID)
		case jobSessionID:
			return d.str(v, at("sessionId"), false, &j.SessionID)
		case jobFlowID:
			return d.str(v, at("flowId"), false, &j.FlowID)
		case jobBlockID:
			return d.str(v, at("blockId"), false, &j.BlockID)
		case jobContext:
			return d.str(v, at("context"), false, (*string)(&j.Context))
		case jobAction:
			return d.action(v, &j.Action)
		case jobVariables:
			return d.variables(v, &j.Variables)
		case jobDefaultExceptionBlockID:
			return d.str(v, at("defaultExceptionBlockId"), true, &j.DefaultExceptionBlockID)
		case jobTimeoutMs:
			return d.integer(v, at("timeoutMs"), &j.TimeoutMs)
		case jobDeadline:
			return d.deadline(v, at("deadline"), &j.Deadline)
		case jobTenantID:
			return d.str(v, at("tenantId"), true, &j.TenantID)
		case jobCapabilities:
			return d.strs(v, at("capabilities"), &j.Capabilities)
		case jobResume:
			return d.resume(v, &j.Resume)
		case jobTemplateID:
			return d.str(v, at("templateId"), true, &j.TemplateID)
		default: // jobTemplateVersion
			return d.integer(v, at("templateVersion"), &j.TemplateVersion)
		}
	})
	if seen&(1<<jobAction) == 0 {
		d.p.add("action", "required: the executeScript action to run")
	}
	return end
}

func (d *decoder) action(i int, a *ExecuteScriptAction) int {
	if c := d.at(i); c != '{' {
		d.typeError(at("action"), "an object", c)
		return d.skip(i)
	}
	end, seen := d.object(i, at("action"), actionFields[:], func(f, v int) int {
		switch f {
		case actionType:
			return d.str(v, at("action.type"), false, &a.Type)
		case actionSource:
			return d.str(v, at("action.source"), false, &a.Source)
		case actionInputVariables:
			return d.inputs(v, &a.InputVariables)
		case actionOutputVariable:
			return d.str(v, at("action.outputVariable"), false, &a.OutputVariable)
		case actionErrorVariable:
			return d.str(v, at("action.errorVariable"), true, &a.ErrorVariable)
		case actionOnError:
			return d.str(v, at("action.onError"), false, (*string)(&a.OnError))
		case actionErrorMessage:
			return d.str(v, at("action.errorMessage"), true, &a.ErrorMessage)
		default: // actionErrorHandoff
			return d.handoff(v, at("action.errorHandoff"), &a.ErrorHandoff)
		}
	})
	if seen&(1<<actionInputVariables) == 0 {
		d.p.add("action.inputVariables", "required: use [] when the script takes no inputs")
	}
	return end
}

// inputs reads action.inputVariables. null is no inputs (what a Go engine's
// nil slice encodes to). An element that does not decode still takes its
// index, so later paths stay right.
func (d *decoder) inputs(i int, dst *[]InputVariable) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case '[':
	default:
		d.typeError(at("action.inputVariables"), "an array", c)
		return d.skip(i)
	}
	var buf [8]InputVariable
	ins := buf[:0]
	i, more := d.open(i, ']')
	for n := 0; more && !d.bad; n++ {
		ins = append(ins, InputVariable{})
		i, more = d.next(d.input(i, n, &ins[n]), ']')
	}
	*dst = make([]InputVariable, len(ins))
	copy(*dst, ins)
	return i
}

func (d *decoder) input(i, n int, in *InputVariable) int {
	p := path{base: "action.inputVariables", index: n}
	if c := d.at(i); c != '{' {
		d.typeError(p, "an object", c)
		return d.skip(i)
	}
	end, seen := d.object(i, p, inputFields[:], func(f, v int) int {
		if f == inputName {
			return d.str(v, p.member("name"), false, &in.Name)
		}
		return d.str(v, p.member("value"), false, &in.Value)
	})
	if seen&(1<<inputValue) == 0 {
		d.p.add(p.member("value").String(), `required (it may be "")`)
	}
	return end
}

// resume reads a job's resume: {token, resolution}; null is none.
func (d *decoder) resume(i int, dst **Resume) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case '{':
	default:
		d.typeError(at("resume"), "an object", c)
		return d.skip(i)
	}
	r := &Resume{}
	end, seen := d.object(i, at("resume"), resumeFields[:], func(f, v int) int {
		if f == resumeToken {
			return d.str(v, at("resume.token"), false, &r.Token)
		}
		end := d.skip(v)
		r.Resolution = append(json.RawMessage(nil), d.data[v:end]...)
		return end
	})
	if seen&(1<<resumeResolution) == 0 {
		d.p.add("resume.resolution", "required: the answer to the approval request (any JSON, null included)")
	}
	*dst = r
	return end
}

// strs reads an array of strings; null or absent is none.
func (d *decoder) strs(i int, p path, dst *[]string) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case '[':
	default:
		d.typeError(p, "an array of strings", c)
		return d.skip(i)
	}
	var buf [8]string
	list := buf[:0]
	i, more := d.open(i, ']')
	for n := 0; more && !d.bad; n++ {
		list = append(list, "")
		i, more = d.next(d.str(i, path{base: p.base, index: n}, false, &list[n]), ']')
	}
	*dst = make([]string, len(list))
	copy(*dst, list)
	return i
}

// variables reads the session variables: an object of strings. null or
// absent is no variables.
func (d *decoder) variables(i int, dst *map[string]string) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case '{':
	default:
		d.typeError(at("variables"), "an object of strings", c)
		return d.skip(i)
	}
	vars := make(map[string]string)
	var refused map[string]bool // the names whose value is not a string
	i, more := d.open(i, '}')
	for more && !d.bad {
		name, v := d.name(i)
		key := string(name) // the map's key: the one copy of the name
		p := at("variables").member(key)
		if _, dup := vars[key]; dup || refused[key] {
			d.p.add(p.String(), "duplicate variable")
			v = d.skip(v)
		} else {
			var s string
			var ok bool
			if v, ok = d.text(v, p, false, &s); ok {
				vars[key] = s
			} else {
				if refused == nil {
					refused = make(map[string]bool)
				}
				refused[key] = true
			}
		}
		i, more = d.next(v, '}')
	}
	*dst = vars
	return i
}

// str reads a string; null is absent when optional.
func (d *decoder) str(i int, p path, optional bool, dst *string) int {
	end, _ := d.text(i, p, optional, dst)
	return end
}

// text is str, and reports whether it read a string (or an optional null).
func (d *decoder) text(i int, p path, optional bool, dst *string) (end int, ok bool) {
	switch c := d.at(i); {
	case c == '"':
		s, end := d.textAt(i)
		*dst = s
		return end, true
	case c == 'n' && optional:
		return d.literal(i, "null"), true
	default:
		d.typeError(p, "a string", c)
		return d.skip(i), false
	}
}

// constant is s as a string, without a copy when it is one of the
// contract's constants.
func constant(s []byte) string {
	switch string(s) {
	case ActionTypeExecuteScript:
		return ActionTypeExecuteScript
	case string(ContextFlow):
		return string(ContextFlow)
	case string(ContextTool):
		return string(ContextTool)
	case string(OnErrorBlocking):
		return string(OnErrorBlocking)
	case string(OnErrorContinue):
		return string(OnErrorContinue)
	case CapabilityAPI:
		return CapabilityAPI
	case CapabilityKV:
		return CapabilityKV
	case CapabilityApproval:
		return CapabilityApproval
	}
	return string(s)
}

// integer reads a whole number; null is absent (every integer field is
// optional).
func (d *decoder) integer(i int, p path, dst *int) int {
	switch c := d.at(i); {
	case c == 'n':
		return d.literal(i, "null")
	case c == '-' || '0' <= c && c <= '9':
	default:
		d.typeError(p, "a whole number", c)
		return d.skip(i)
	}
	end := d.number(i)
	if d.bad {
		return end
	}
	if n, ok := smallInt(d.data[i:end]); ok {
		*dst = n
		return end
	}
	text := string(d.data[i:end])
	n, err := wholeNumber(text)
	switch {
	case errors.Is(err, strconv.ErrRange):
		d.p.add(p.String(), "%s is out of range", quoteRaw(text))
	case err != nil:
		d.p.add(p.String(), "must be a whole number, got %s", quoteRaw(text))
	default:
		*dst = n
	}
	return end
}

// maxExactWhole is 2^53: past it a number written with a fraction or an
// exponent no longer names one whole number.
const maxExactWhole = 1 << 53

// wholeNumber reads a JSON number whose value is whole, however it is
// written ("1000", "1000.0", "1e3"), as JSON Schema's "integer" does. A
// fraction is strconv.ErrSyntax; a value past int, or past 2^53 when
// written with a fraction or an exponent, is strconv.ErrRange.
func wholeNumber(text string) (int, error) {
	n, err := strconv.Atoi(text)
	if !errors.Is(err, strconv.ErrSyntax) {
		return n, err
	}
	f, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil:
		return 0, err
	case f != math.Trunc(f):
		return 0, strconv.ErrSyntax
	case math.Abs(f) > maxExactWhole:
		return 0, strconv.ErrRange
	}
	return int(f), nil
}

// smallInt reads an optional minus and up to 18 digits, what strconv.Atoi
// reads the same way without a chance of overflow.
func smallInt(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func quoteRaw(text string) string {
	if len(text) > 40 {
		return text[:40] + "…"
	}
	return text
}

func (d *decoder) handoff(i int, p path, dst **bool) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case 't', 'f':
		b := c == 't'
		*dst = &b
		if b {
			return d.literal(i, "true")
		}
		return d.literal(i, "false")
	default:
		d.typeError(p, "true or false", c)
		return d.skip(i)
	}
}

func (d *decoder) deadline(i int, p path, dst **time.Time) int {
	switch c := d.at(i); c {
	case 'n':
		return d.literal(i, "null")
	case '"':
	default:
		d.typeError(p, "a string", c)
		return d.skip(i)
	}
	s, end := d.stringAt(i)
	if d.bad {
		return end
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		d.p.add(p.String(), "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s", quote(string(s)))
		return end
	}
	// time.Parse takes a comma before the fraction of a second and an hour
	// of one digit; RFC 3339, the job schema and the TypeScript client take
	// only a period and two digits.
	if bytes.IndexByte(s, ',') >= 0 {
		d.p.add(p.String(), "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s: a fraction of a second follows a period, not a comma", quote(string(s)))
		return end
	}
	if len(s) < 14 || s[13] != ':' { // 2026-01-02T15: the year and the rest have their digits already
		d.p.add(p.String(), "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s: the hour takes two digits", quote(string(s)))
		return end
	}
	// time.Parse takes an offset's minutes up to 60 (+00:60 is an hour);
	// RFC 3339, JavaScript's Date and the TypeScript client stop at 59.
	if n := len(s); n >= 6 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':' && string(s[n-2:]) >= "60" {
		d.p.add(p.String(), "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s: an offset's minutes run from 00 to 59", quote(string(s)))
		return end
	}
	*dst = &t
	return end
}

// members calls each for every member of raw, a JSON object or the start
// of one (Salvage reads broken JSON with it), in document order, up to
// where it breaks. It splits the members itself instead of running a
// json.Decoder over raw.
func members(raw json.RawMessage, each func(key string, v json.RawMessage)) {
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
		i = skipJSONSpace(raw, keyEnd)
		if i >= len(raw) {
			return // the document ends after the name
		}
		i++ // past ':'
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
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if plainByte[s[i]] { // a run that reads as it is written
			j := i + 1
			for j < len(s) && plainByte[s[j]] {
				j++
			}
			b.Write(s[i:j])
			i = j
			continue
		}
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
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
				b.WriteRune(r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(s[i : i+size])
			}
			i += size
		}
	}
	return b.String(), true
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
