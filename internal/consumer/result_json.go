package consumer

import (
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/flowscript/flowscript/flowjob"
)

// appendResult appends r's JSON encoding, byte for byte what flowjob.Marshal
// gives (field order, omitempty, sorted variables, < > & as themselves,
// invalid UTF-8 as U+FFFD), without reflection: every job encodes one
// result, and json.Marshal was a twentieth of the executor's CPU per job.
// ok is false for what it leaves to json.Marshal: an approval request
// (json.RawMessage, which json.Marshal compacts and checks) and a time that
// is not RFC 3339 (a year outside 0–9999 or a zone 24 hours or more away,
// which json.Marshal refuses).
func appendResult(b []byte, r *flowjob.Result) (_ []byte, ok bool) {
	_, offset := r.CompletedAt.Zone()
	if len(r.Directive.Request) > 0 || r.CompletedAt.Year() < 0 || r.CompletedAt.Year() > 9999 ||
		offset <= -24*3600 || offset >= 24*3600 {
		return b, false
	}
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	b = appendField(b, "jobId", r.JobID)
	b = appendField(b, "sessionId", r.SessionID)
	b = appendField(b, "flowId", r.FlowID)
	b = appendField(b, "blockId", r.BlockID)
	b = appendField(b, "context", string(r.Context))
	b = appendField(b, "status", string(r.Status))
	b = append(b, `,"variables":`...)
	b = appendVariables(b, r.Variables)
	if e := r.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = appendString(b, e.Code)
		b = appendField(b, "message", e.Message)
		b = appendIntField(b, "line", e.Line)
		b = appendIntField(b, "column", e.Column)
		if e.Reason != "" {
			b = appendField(b, "reason", e.Reason)
		}
		b = append(b, '}')
	}
	b = append(b, `,"directive":{"type":`...)
	b = appendString(b, string(r.Directive.Type))
	if r.Directive.BlockID != "" {
		b = appendField(b, "blockId", r.Directive.BlockID)
	}
	if r.Directive.Message != "" {
		b = appendField(b, "message", r.Directive.Message)
	}
	b = append(b, `},"durationMs":`...)
	b = strconv.AppendInt(b, r.DurationMs, 10)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(r.Attempt), 10)
	b = append(b, `,"completedAt":"`...)
	b = r.CompletedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if len(r.Logs) > 0 {
		b = append(b, `,"logs":[`...)
		for i, l := range r.Logs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"level":`...)
			b = appendString(b, string(l.Level))
			b = appendField(b, "message", l.Message)
			b = appendIntField(b, "line", l.Line)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.LogsTruncated {
		b = append(b, `,"logsTruncated":true`...)
	}
	if r.Continuation != "" {
		b = appendField(b, "continuation", r.Continuation)
	}
	if r.SourceSHA256 != "" {
		b = appendField(b, "sourceSha256", r.SourceSHA256)
	}
	if r.TemplateID != "" {
		b = appendField(b, "templateId", r.TemplateID)
	}
	b = appendIntField(b, "templateVersion", r.TemplateVersion)
	return append(b, '}'), true
}

// marshalResult is r's JSON encoding: appendResult's, or flowjob.Marshal's
// for what appendResult leaves to it.
func marshalResult(r *flowjob.Result) ([]byte, error) {
	if b, ok := appendResult(make([]byte, 0, 512), r); ok {
		return b, nil
	}
	return flowjob.Marshal(r)
}

// appendField appends `,"name":` and s as a JSON string; name needs no
// escaping.
func appendField(b []byte, name, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendIntField appends `,"name":n`, or nothing for 0 (omitempty).
func appendIntField(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(n), 10)
}

// appendVariables appends vars as a JSON object with its keys sorted, or
// null for a nil map, as json.Marshal does.
func appendVariables(b []byte, vars map[string]string) []byte {
	if vars == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	var few [8]string
	keys := few[:0]
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, vars[k])
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, escaped as flowjob.Marshal
// escapes it: the short escapes of \b \f \n \r \t, \u00XX for the other
// control characters, \u2028 and \u2029, and U+FFFD for each invalid UTF-8
// byte; < > & stay as they are.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
