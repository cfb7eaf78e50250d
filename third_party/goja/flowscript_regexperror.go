package goja

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	r2syntax "github.com/dlclark/regexp2/v2/syntax"
)

// FlowScript patch 99: a pattern neither regexp engine can compile is
// V8's SyntaxError, "Invalid regular expression: /[z-a]/: Range out of
// order in character class", in V8's words where the two engines' reasons
// have one, and otherwise in the engine's words without its wrapping.
// Upstream named the engine and nested its message in itself:
// "Invalid regular expression (regexp2): a{2,1} (Invalid regular
// expression (regexp2): a{2,1} (error parsing regexp: invalid repeat count
// in `a{2,1}`))".

// v8RegexpReasons are V8's words for the engines' reasons (Go's regexp
// and regexp2 share most of theirs), by the reason's start.
var v8RegexpReasons = []struct{ engine, v8 string }{
	{"invalid character class range", "Range out of order in character class"},
	{"[", "Range out of order in character class"}, // regexp2's "[z-a] range in reverse order"
	{"invalid repeat count", "numbers out of order in {} quantifier"},
	{"missing closing )", "Unterminated group"},
	{"unexpected )", "Unmatched ')'"},
	{"missing closing ]", "Unterminated character class"},
	{"unterminated [] set", "Unterminated character class"},
	{"missing argument to repetition operator", "Nothing to repeat"},
	{"invalid nested repetition operator", "Nothing to repeat"},
	{"trailing backslash at end of expression", "\\ at end of pattern"},
	{"illegal \\ at end of pattern", "\\ at end of pattern"},
	{"unknown unicode category, script, or property", "Invalid property name"},
	{"invalid character class", "Invalid property name"},
	{"malformed \\p{X} character escape", "Invalid property name"},
	{"incomplete \\p{X} character escape", "Invalid property name"},
	{"invalid capture group name", "Invalid capture group name"},
	{"invalid named capture", "Invalid capture group name"},
	{"duplicate capture group name", "Duplicate capture group name"},
	{"invalid or unsupported Perl syntax", "Invalid group"},
	{"unrecognized grouping construct", "Invalid group"},
	{"invalid escape sequence", "Invalid escape"},
	{"unrecognized escape sequence", "Invalid escape"},
}

// regexpSyntaxError is the error of pattern src with flags, which an
// engine refused with err.
func regexpSyntaxError(src, flags string, err error) error {
	return fmt.Errorf("Invalid regular expression: /%s/%s: %s", src, flags, regexpReason(err))
}

// regexpReason is why an engine refused a pattern, in V8's words where
// they are known.
func regexpReason(err error) string {
	var reason string
	var goErr *syntax.Error
	var r2Err *r2syntax.Error
	switch {
	case errors.As(err, &goErr):
		reason = string(goErr.Code)
	case errors.As(err, &r2Err):
		reason = r2Err.Code.String()
		if len(r2Err.Args) > 0 {
			reason = fmt.Sprintf(reason, r2Err.Args...)
		}
	default:
		reason = strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		if i := strings.LastIndex(reason, " in `"); i >= 0 && strings.HasSuffix(reason, "`") {
			reason = reason[:i]
		}
	}
	for _, r := range v8RegexpReasons {
		if strings.HasPrefix(reason, r.engine) {
			return r.v8
		}
	}
	first, n := utf8.DecodeRuneInString(reason)
	return string(unicode.ToUpper(first)) + reason[n:]
}
