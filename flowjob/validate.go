package flowjob

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flowscript/flowscript/internal/jsident"
)

// Caps on a job (DESIGN.md §1: "size-capped"). An executor's sandbox may be
// configured stricter (SANDBOX_MAX_SOURCE_BYTES, SANDBOX_MAX_INPUT_BYTES);
// these are the contract's ceilings, the same for every executor.
const (
	// MaxJobBytes caps the encoded job Decode accepts.
	MaxJobBytes = 1 << 20
	// MaxIDBytes caps the job id, which becomes a NATS subject token.
	MaxIDBytes = 128
	// MaxRefBytes caps sessionId, flowId, blockId and defaultExceptionBlockId.
	MaxRefBytes = 256
	// MaxSourceBytes caps action.source (the sandbox's default source cap).
	MaxSourceBytes = 256 << 10
	// MaxInputVariables caps how many inputs a script takes.
	MaxInputVariables = 128
	// MaxInputNameBytes caps an input name (a JavaScript parameter name).
	MaxInputNameBytes = jsident.MaxLen
	// MaxInputBytes caps the sum of the input names and their interpolated
	// values: what enters the sandbox (the sandbox's default input cap).
	MaxInputBytes = 1 << 20
	// MaxNameBytes caps outputVariable, errorVariable and variable names.
	MaxNameBytes = 256
	// MaxErrorMessageBytes caps action.errorMessage; the executor also cuts
	// the interpolated message to this size.
	MaxErrorMessageBytes = 4 << 10
	// MaxVariables caps how many session variables a job carries.
	MaxVariables = 4096
	// MaxVariablesBytes caps the sum of the variables' names and values.
	MaxVariablesBytes = MaxJobBytes
	// MaxFieldErrors caps how many problems one ValidationError lists.
	MaxFieldErrors = 50
	// MaxTokenBytes caps a continuation token.
	MaxTokenBytes = 4 << 10
	// MaxResolutionNesting caps how deeply a resume's resolution nests
	// arrays and objects: the sandbox's JSON.parse reads no deeper.
	MaxResolutionNesting = 500
)

// FieldError is one broken rule. Field is the JSON path of the field
// ("action.inputVariables[1].name", `variables["contact.name"]`); it is empty
// when the problem is the whole document (not JSON, too large).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) String() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// ValidationError is a job that breaks the contract: every problem found,
// in field order, not only the first. Such a job is bad input: never run,
// never retried.
type ValidationError struct {
	Errors []FieldError `json:"errors"`

	// unlisted is set when the last of Errors is the "N more problems not
	// listed" line: where those problems are, for Has.
	unlisted *unlistedFields
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.String()
	}
	return "invalid job: " + strings.Join(parts, "; ")
}

// Has reports whether field, or a field inside it, broke a rule. A problem
// of the whole document (empty Field) makes Has true for every field. The
// problems past MaxFieldErrors count too: Has knows the top-level field
// (or action's field) of each, so a job with many bad inputs still has a
// usable id.
func (e *ValidationError) Has(field string) bool {
	listed := e.Errors
	if u := e.unlisted; u != nil && len(listed) > 0 {
		listed = listed[:len(listed)-1] // the "N more problems" line
		if u.has(field) {
			return true
		}
	}
	for _, fe := range listed {
		if fe.Field == "" || within(fe.Field, field) {
			return true
		}
	}
	return false
}

// unlistedFields is where the problems past MaxFieldErrors are: each one's
// field cut to its top-level field, or to action's field ("action.
// inputVariables[3].name" is "action.inputVariables"). all is set by a
// problem of the whole document, or when there are too many distinct
// fields to keep.
type unlistedFields struct {
	fields []string
	all    bool
}

// maxUnlistedFields bounds unlistedFields: past it, every field counts as
// having a problem (a job of thousands of unknown members).
const maxUnlistedFields = 64

func (u *unlistedFields) add(field string) {
	if u.all {
		return
	}
	if field == "" {
		u.all = true
		return
	}
	field = fieldHead(field)
	if slices.Contains(u.fields, field) {
		return
	}
	if len(u.fields) == maxUnlistedFields {
		u.all, u.fields = true, nil
		return
	}
	u.fields = append(u.fields, field)
}

func (u *unlistedFields) has(field string) bool {
	if u.all {
		return true
	}
	for _, f := range u.fields {
		if within(f, field) || within(field, f) {
			return true
		}
	}
	return false
}

// fieldHead cuts a field path to its top-level field, or to action's
// field for a path inside action.
func fieldHead(path string) string {
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		return path
	}
	if path[:end] == "action" && path[end] == '.' {
		if rest := strings.IndexAny(path[end+1:], ".["); rest >= 0 {
			return path[:end+1+rest]
		}
		return path
	}
	return path[:end]
}

// within reports whether path is field itself or a path inside it.
func within(path, field string) bool {
	if !strings.HasPrefix(path, field) {
		return false
	}
	rest := path[len(field):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// problems collects FieldErrors up to MaxFieldErrors, and counts the rest
// and where they are.
type problems struct {
	list     []FieldError
	more     int
	unlisted unlistedFields
}

func (p *problems) add(field, format string, args ...any) {
	if len(p.list) >= MaxFieldErrors {
		p.more++
		p.unlisted.add(field)
		return
	}
	p.list = append(p.list, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// addUnlisted counts the problems q did not list as p's.
func (p *problems) addUnlisted(q *problems) {
	p.more += q.more
	if q.unlisted.all {
		p.unlisted.add("")
	}
	for _, f := range q.unlisted.fields {
		p.unlisted.add(f)
	}
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	e := &ValidationError{Errors: p.list}
	if p.more > 0 {
		e.Errors = append(e.Errors, FieldError{Message: fmt.Sprintf("%d more problems not listed", p.more)})
		e.unlisted = &p.unlisted
	}
	return e
}

// Validate checks every rule of the contract (DESIGN.md §1) and returns nil
// or a *ValidationError listing every problem. Engines call it before
// publishing, and CheckSize on the encoded job; executors call both
// (through Decode) before running anything.
// It never changes the job and never fills in a default.
func (j *Job) Validate() error {
	var p problems
	if j == nil {
		p.add("", "job is missing")
		return p.err()
	}
	j.validate(&p)
	return p.err()
}

func (j *Job) validate(p *problems) {
	switch {
	case j.Version < 0:
		p.add("version", "must be %d or more (or absent), got %d", 1, j.Version)
	case j.Version > ContractVersion:
		p.add("version", "contract version %d is newer than this one (%d): upgrade the executor before sending such jobs", j.Version, ContractVersion)
	}
	checkID(p, j.ID)
	checkRef(p, "sessionId", j.SessionID, true)
	checkRef(p, "flowId", j.FlowID, true)
	checkRef(p, "blockId", j.BlockID, true)
	switch j.Context {
	case ContextFlow, ContextTool:
	case "":
		p.add("context", `required: "flow" or "tool"`)
	default:
		p.add("context", `must be "flow" or "tool", got %s`, quote(string(j.Context)))
	}
	j.Action.validate(p, j.Variables)
	checkRef(p, "defaultExceptionBlockId", j.DefaultExceptionBlockID, false)
	if j.Context == ContextFlow && j.Action.OnError == OnErrorBlocking && !j.Action.Handoff() && j.DefaultExceptionBlockID == "" {
		p.add("defaultExceptionBlockId", `required when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there`)
	}
	if j.Deadline != nil {
		// RFC 3339 offsets run to ±23:59; Go's time.Parse also takes
		// +24:00, which JavaScript's Date and the TypeScript client refuse.
		if _, off := j.Deadline.Zone(); off <= -24*3600 || off >= 24*3600 {
			p.add("deadline", "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got an offset of %d hours: offsets run from -23:59 to +23:59", off/3600)
		}
	}
	if j.TimeoutMs < 0 {
		p.add("timeoutMs", "must be 0 (the executor's limit) or a positive number of milliseconds, got %d", j.TimeoutMs)
	}
	checkVariables(p, j.Variables)
	checkRef(p, "tenantId", j.TenantID, false)
	checkCapabilities(p, j.Capabilities)
	checkRef(p, "templateId", j.TemplateID, false)
	switch {
	case j.TemplateVersion < 0:
		p.add("templateVersion", "must be 1 or more (or absent), got %d", j.TemplateVersion)
	case j.TemplateVersion > 0 && j.TemplateID == "":
		p.add("templateVersion", "needs templateId: name the template the version belongs to")
	}
	if r := j.Resume; r != nil {
		switch {
		case r.Token == "":
			p.add("resume.token", "required: the continuation of the suspended job's result")
		case len(r.Token) > MaxTokenBytes:
			p.add("resume.token", "is %d bytes, over the %d-byte limit: pass the continuation as the executor gave it", len(r.Token), MaxTokenBytes)
		}
		switch {
		case r.Resolution != nil && !json.Valid(r.Resolution):
			p.add("resume.resolution", "must be JSON")
		case JSONNesting(r.Resolution) > MaxResolutionNesting:
			p.add("resume.resolution", "nests arrays and objects more than %d levels deep: resume with a flatter resolution", MaxResolutionNesting)
		}
	}
}

// checkCapabilities refuses unknown and repeated capability names.
func checkCapabilities(p *problems, caps []string) {
	seen := make(map[string]int, len(caps))
	for i, c := range caps {
		field := fmt.Sprintf("capabilities[%d]", i)
		if first, dup := seen[c]; dup {
			p.add(field, "%s is already capabilities[%d]", quote(c), first)
			continue
		}
		seen[c] = i
		if !slices.Contains(KnownCapabilities, c) {
			p.add(field, "unknown capability %s: known are %s (console needs none)", quote(c), strings.Join(KnownCapabilities, ", "))
		}
	}
}

func (a *ExecuteScriptAction) validate(p *problems, vars map[string]string) {
	switch a.Type {
	case ActionTypeExecuteScript:
	case "":
		p.add("action.type", "required: %q", ActionTypeExecuteScript)
	default:
		p.add("action.type", "must be %q, got %s", ActionTypeExecuteScript, quote(a.Type))
	}
	switch {
	case strings.TrimSpace(a.Source) == "":
		p.add("action.source", "required: write a function execute(...) or a body that returns a value")
	case len(a.Source) > MaxSourceBytes:
		p.add("action.source", "is %d bytes, over the %d-byte limit: move data out of the script into input variables", len(a.Source), MaxSourceBytes)
	}
	a.validateInputs(p, vars)
	checkName(p, "action.outputVariable", a.OutputVariable, true)
	checkName(p, "action.errorVariable", a.ErrorVariable, false)
	switch a.OnError {
	case OnErrorBlocking, OnErrorContinue:
	case "":
		p.add("action.onError", `required: "blocking" or "continue"`)
	default:
		p.add("action.onError", `must be "blocking" or "continue", got %s`, quote(string(a.OnError)))
	}
	if len(a.ErrorMessage) > MaxErrorMessageBytes {
		p.add("action.errorMessage", "is %d bytes, over the %d-byte limit", len(a.ErrorMessage), MaxErrorMessageBytes)
	}
}

func (a *ExecuteScriptAction) validateInputs(p *problems, vars map[string]string) {
	if n := len(a.InputVariables); n > MaxInputVariables {
		p.add("action.inputVariables", "has %d inputs, over the limit of %d", n, MaxInputVariables)
		return
	}
	seen := make(map[string]int, len(a.InputVariables))
	total := 0
	for i, in := range a.InputVariables {
		// The path is spelled out only for a problem: this runs for every job.
		field := func() string { return fmt.Sprintf("action.inputVariables[%d].name", i) }
		if err := jsident.Check(in.Name); err != nil {
			p.add(field(), "%v", err)
		} else if first, dup := seen[in.Name]; dup {
			p.add(field(), "%q is already the name of action.inputVariables[%d]; each input needs its own name", in.Name, first)
		} else {
			seen[in.Name] = i
		}
		total += len(in.Name) + interpolatedLen(in.Value, vars, MaxInputBytes+1)
		if total > MaxInputBytes {
			p.add("action.inputVariables", "interpolated inputs exceed %d bytes (from inputVariables[%d] on): pass less data to the script", MaxInputBytes, i)
			return
		}
	}
}

// checkID enforces that the job id is usable as a NATS subject token, a
// KV key and a Nats-Msg-Id: ASCII letters, digits, '-' and '_'.
func checkID(p *problems, id string) {
	switch {
	case id == "":
		p.add("id", "required: a unique id such as a UUID")
		return
	case len(id) > MaxIDBytes:
		p.add("id", "is %d bytes, over the %d-byte limit", len(id), MaxIDBytes)
		return
	}
	if !ValidID(id) {
		p.add("id", "must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got %s", quote(id))
	}
}

// ValidID reports whether id can be a job id: 1 to MaxIDBytes ASCII
// letters, digits, '-' or '_', so that it is a safe NATS subject token.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// checkRef checks an id of the engine's. One of only white space is
// refused like a missing one: it names nothing the engine could find.
func checkRef(p *problems, field, v string, required bool) {
	switch {
	case v == "" && required:
		p.add(field, "required")
	case len(v) > MaxRefBytes:
		p.add(field, "is %d bytes, over the %d-byte limit", len(v), MaxRefBytes)
	case v != "" && strings.TrimSpace(v) == "" && required:
		p.add(field, "is only white space, got %s: send the id", quote(v))
	case v != "" && strings.TrimSpace(v) == "":
		p.add(field, "is only white space, got %s: send the id, or leave the field out", quote(v))
	}
}

// checkName checks a session variable's name. One of only white space is
// refused: the value would be written where no flow can read it.
func checkName(p *problems, field, v string, required bool) {
	switch {
	case v == "" && required:
		p.add(field, "required: the session variable to write")
	case len(v) > MaxNameBytes:
		p.add(field, "is %d bytes, over the %d-byte limit", len(v), MaxNameBytes)
	case v != "" && strings.TrimSpace(v) == "":
		p.add(field, "is only white space, got %s: name the session variable to write", quote(v))
	}
}

func checkVariables(p *problems, vars map[string]string) {
	if len(vars) > MaxVariables {
		p.add("variables", "has %d variables, over the limit of %d: send only the ones the action uses", len(vars), MaxVariables)
		return
	}
	total := 0
	var long []string
	for k, v := range vars {
		total += len(k) + len(v)
		if len(k) > MaxNameBytes {
			long = append(long, k)
		}
	}
	if _, ok := vars[""]; ok {
		p.add(`variables[""]`, "a variable name must not be empty")
	}
	slices.Sort(long)
	for _, k := range long {
		p.add(keyPath("variables", k), "name is %d bytes, over the %d-byte limit", len(k), MaxNameBytes)
	}
	if total > MaxVariablesBytes {
		p.add("variables", "total %d bytes, over the %d-byte limit: send only the ones the action uses", total, MaxVariablesBytes)
	}
}

// keyPath is the path of key inside the object at parent: parent.key for a
// plain key, parent["odd key"] otherwise (dotted names included, so that
// the path stays unambiguous). Long keys are cut.
func keyPath(parent, key string) string {
	plain := key != ""
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$') {
			plain = false
			break
		}
	}
	if plain && len(key) <= 64 {
		if parent == "" {
			return key
		}
		return parent + "." + key
	}
	return parent + "[" + quote(key) + "]"
}

// quote returns s quoted for a message, cut to 40 bytes on a rune boundary.
func quote(s string) string {
	const maxQuoted = 40
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// JSONNesting is how deeply valid JSON text nests arrays and objects: 0
// for a scalar.
func JSONNesting(data []byte) int {
	deep, most, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			deep++
			most = max(most, deep)
		case c == ']' || c == '}':
			deep--
		}
	}
	return most
}
