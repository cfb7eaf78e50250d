package guardrails

import "fmt"

// Severity says whether a finding refuses the save.
type Severity string

const (
	// SeverityError refuses the save: the script would fail when it reaches
	// the line.
	SeverityError Severity = "error"
	// SeverityWarning is reported beside the saved template.
	SeverityWarning Severity = "warning"
)

// Code names a rule. Codes are part of the API: never rename one.
type Code string

// The rules. See the package documentation for what each one catches.
const (
	CodeRequire Code = "GUARDRAIL_REQUIRE"
	CodeImport  Code = "GUARDRAIL_IMPORT"
	CodeModule  Code = "GUARDRAIL_MODULE"
	CodeProcess Code = "GUARDRAIL_PROCESS"
	CodeNetwork Code = "GUARDRAIL_NETWORK"
	// CodeConsole is a console method the sandbox's console does not have
	// (console.table, console.time…): console itself is always present
	// (DESIGN.md §9).
	CodeConsole             Code = "GUARDRAIL_CONSOLE"
	CodeTimer               Code = "GUARDRAIL_TIMER"
	CodeEval                Code = "GUARDRAIL_EVAL"
	CodeFunctionConstructor Code = "GUARDRAIL_FUNCTION_CONSTRUCTOR"
	CodeBuffer              Code = "GUARDRAIL_BUFFER"
	CodeHostObject          Code = "GUARDRAIL_HOST_OBJECT"
	CodeAsyncExecute        Code = "GUARDRAIL_ASYNC_EXECUTE"
	CodeAsyncFunction       Code = "GUARDRAIL_ASYNC_FUNCTION"
	CodeGlobalThisHost      Code = "GUARDRAIL_GLOBALTHIS_HOST"
	CodeWrapperEscape       Code = "GUARDRAIL_WRAPPER_ESCAPE"
	// CodeConnectorUnknown warns that an api call's connector is not a
	// string literal, so the report of uses cannot name it.
	CodeConnectorUnknown Code = "GUARDRAIL_CONNECTOR_UNKNOWN"
	// CodeBidiControl warns of an invisible bidirectional control
	// character, which makes source display otherwise than it runs.
	CodeBidiControl Code = "GUARDRAIL_BIDI_CONTROL"
)

// Finding is one use of something the sandbox does not offer. Line and
// Column are 1-based positions in the author's source.
type Finding struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	// Name is the global the finding is about (process, import, Function,
	// api…).
	Name    string `json:"name"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%d:%d %s %s: %s", f.Line, f.Column, f.Severity, f.Code, f.Message)
}

// HasErrors reports whether any finding refuses the save.
func HasErrors(findings []Finding) bool {
	for _, f := range findings {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// MaxFindings caps how many findings one check returns: past it, the author
// has enough to fix, and a pathological source cannot make the answer huge.
const MaxFindings = 100
