package consumer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
)

// resultJSONCases are results whose encoding must be json.Marshal's, byte
// for byte: every optional field set and unset, and strings that need each
// kind of escape.
func resultJSONCases() []flowjob.Result {
	at := time.Date(2026, 12, 1, 10, 4, 5, 123456789, time.UTC)
	ok := flowjob.Result{
		Version: 1, JobID: "job-1", SessionID: "s", FlowID: "f", BlockID: "b",
		Context: flowjob.ContextFlow, Status: flowjob.StatusSucceeded,
		Variables: map[string]string{"resultado": "válido", "b": "x", "a": ""},
		Directive: flowjob.Directive{Type: flowjob.DirectiveContinue}, DurationMs: 3, Attempt: 1, CompletedAt: at,
	}
	failed := ok
	failed.Status, failed.Variables = flowjob.StatusFailed, nil
	failed.Error = &flowjob.Error{Code: flowjob.CodeScriptError, Message: "boom <b>&</b>", Line: 3, Column: 7, Reason: "MINE"}
	failed.Directive = flowjob.Directive{Type: flowjob.DirectiveRedirect, BlockID: "exc", Message: "sorry"}
	failed.Logs = []flowjob.LogEntry{{Level: flowjob.LogInfo, Message: "a\nb", Line: 2}, {Level: flowjob.LogError, Message: ""}}
	failed.LogsTruncated, failed.SourceSHA256, failed.TemplateID, failed.TemplateVersion = true, "ab12", "tpl", 4
	bareError := ok
	bareError.Error = &flowjob.Error{}
	bareError.Variables = map[string]string{}
	suspended := ok
	suspended.Status, suspended.Continuation = flowjob.StatusSuspended, "tok.en"
	suspended.Directive = flowjob.Directive{Type: flowjob.DirectiveSuspend, Request: json.RawMessage(`{ "message" : "ok?" }`)}
	zoned := ok
	zoned.CompletedAt = at.In(time.FixedZone("", -(3*3600 + 30*60)))
	farZone := ok
	farZone.CompletedAt = at.In(time.FixedZone("", 25*3600))
	farYear := ok
	farYear.CompletedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	escapes := ok
	escapes.Variables = map[string]string{
		"ctl":  "\x00\x01\b\f\n\r\t\x1f\x7f",
		"html": `<script>"a" & 'b' \ </script>`,
		"utf8": "ção 日本 😀 \u2028\u2029",
		"bad":  "\xff\xfe a \xc3 b \xed\xa0\x80",
		"k\"<": "v",
	}
	zero := flowjob.Result{}
	return []flowjob.Result{ok, failed, bareError, suspended, zoned, farZone, farYear, escapes, zero}
}

func TestMarshalResultIsFlowjobMarshal(t *testing.T) {
	for i, r := range resultJSONCases() {
		want, wantErr := flowjob.Marshal(r)
		got, err := marshalResult(&r)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Errorf("case %d:\n got %s (error %v)\nwant %s (error %v)", i, got, err, want, wantErr)
		}
	}
}

// FuzzMarshalResult checks appendResult against flowjob.Marshal on results
// built from arbitrary strings, numbers and times.
func FuzzMarshalResult(f *testing.F) {
	f.Add("válido", "<&>", "\xff\u2028", 0, 3, int64(0), 0, false)
	f.Add("", "", "", -5, 1<<40, int64(-62135596800), 3600*25, true)
	f.Fuzz(func(t *testing.T, s1, s2, s3 string, n1, n2 int, unix int64, offset int, flag bool) {
		r := flowjob.Result{
			Version: n1, JobID: s1, SessionID: s2, FlowID: s3, BlockID: s1 + s2,
			Context: flowjob.Context(s3), Status: flowjob.Status(s2),
			Variables:  map[string]string{s1: s2, s2: s3, strings.ToUpper(s3): s1},
			Directive:  flowjob.Directive{Type: flowjob.DirectiveType(s1), BlockID: s2, Message: s3},
			DurationMs: int64(n2), Attempt: n2, CompletedAt: time.Unix(unix, int64(n1)).In(time.FixedZone("", offset%(48*3600))),
			Continuation: s3, SourceSHA256: s2, TemplateID: s1, TemplateVersion: n1,
		}
		if flag {
			r.Variables = nil
			r.Error = &flowjob.Error{Code: s1, Message: s2, Line: n1, Column: n2, Reason: s3}
			r.Logs = []flowjob.LogEntry{{Level: flowjob.LogLevel(s2), Message: s3, Line: n2}, {}}
			r.LogsTruncated = true
		}
		want, wantErr := flowjob.Marshal(r)
		got, err := marshalResult(&r)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("\n got %s (error %v)\nwant %s (error %v)", got, err, want, wantErr)
		}
	})
}

func BenchmarkEncodeResult(b *testing.B) {
	r := resultJSONCases()[0]
	r.Variables = map[string]string{"resultado": "valido"}
	b.Run("appendResult", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = marshalResult(&r)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(r)
		}
	})
}
