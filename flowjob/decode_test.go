package flowjob

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fullJob sets every field of the contract.
func fullJob() *Job {
	deadline := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	return &Job{
		Version:   ContractVersion,
		ID:        "01J9Z3Q4W5E6R7T8Y9U0I1O2P3",
		SessionID: "session-42",
		FlowID:    "flow-onboarding",
		BlockID:   "block-cpf",
		Context:   ContextFlow,
		Action: ExecuteScriptAction{
			Type:   ActionTypeExecuteScript,
			Source: "function execute(cpf, nome) {\n  return digitos(cpf).length === 11 ? 'valido' : 'invalido'\n}\n\nfunction digitos(v) { return String(v).replace(/\\D/g, '') }\n",
			InputVariables: []InputVariable{
				{Name: "cpf", Value: "{{cpf}}"},
				{Name: "nome", Value: "{{ contact.name }}"},
			},
			OutputVariable: "cpfStatus",
			ErrorVariable:  "cpfErro",
			OnError:        OnErrorBlocking,
			ErrorMessage:   "Não consegui validar o CPF {{cpf}}: {{cpfErro}}",
			ErrorHandoff:   ptr(false),
		},
		Variables:               map[string]string{"cpf": "123.456.789-09", "contact.name": "Ana Souza"},
		DefaultExceptionBlockID: "block-exception",
		TimeoutMs:               2000,
		Deadline:                &deadline,
		TemplateID:              "0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f",
		TemplateVersion:         3,
	}
}

func fullResult() *Result {
	return &Result{
		Version:   ContractVersion,
		JobID:     "01J9Z3Q4W5E6R7T8Y9U0I1O2P3",
		SessionID: "session-42",
		FlowID:    "flow-onboarding",
		BlockID:   "block-cpf",
		Context:   ContextFlow,
		Status:    StatusFailed,
		Variables: map[string]string{"cpfErro": "digitos is not defined"},
		Error:     &Error{Code: CodeScriptError, Message: "digitos is not defined", Line: 2, Column: 10},
		Directive: Directive{
			Type:    DirectiveRedirect,
			BlockID: "block-exception",
			Message: "Não consegui validar o CPF 123.456.789-09: digitos is not defined",
		},
		DurationMs:      12,
		Attempt:         1,
		CompletedAt:     time.Date(2026, 3, 1, 12, 0, 1, 500_000_000, time.UTC),
		SourceSHA256:    SourceSHA256(fullJob().Action.Source),
		TemplateID:      "0190c5b2-7d1e-7c3a-9b1e-3f2a1c4d5e6f",
		TemplateVersion: 3,
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file: %v (run go test ./flowjob -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the encoding (run with -update if the change is intended):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	return want
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestJobGoldenRoundTrip(t *testing.T) {
	want := fullJob()
	if err := want.Validate(); err != nil {
		t.Fatalf("the golden job must be valid: %v", err)
	}
	data := golden(t, "job.golden.json", marshal(t, want))
	got, err := Decode(data)
	if err != nil {
		t.Fatalf("Decode(golden) = %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip changed the job:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestResultGoldenRoundTrip(t *testing.T) {
	want := fullResult()
	data := golden(t, "result.golden.json", marshal(t, want))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var got Result
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decoding the golden result: %v", err)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Fatalf("round trip changed the result:\ngot  %+v\nwant %+v", got, *want)
	}
}

func TestDecodeAcceptsTestdataJobs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "jobs", "valid_*.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/jobs/valid_*.json")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// minimal is a valid job as an engine sends it; cases edit it as text.
const minimal = `{"id":"j1","sessionId":"s1","flowId":"f1","blockId":"b1","context":"flow",
"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"},
"variables":{"a":"1"}}`

func TestDecodeRefusesBadInput(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(minimal, old) {
			panic("test case edits text that is not in minimal: " + old)
		}
		return strings.Replace(minimal, old, new, 1)
	}
	for _, tc := range []struct {
		name string
		in   string
		want []string // FieldError.String() of every problem, in order
	}{
		{"not JSON", `{"id":`, []string{"not valid JSON: unexpected end of JSON input (at byte 6)"}},
		{"empty", ``, []string{"not valid JSON: unexpected end of JSON input (at byte 0)"}},
		{"trailing data", minimal + ` {}`, []string{"not valid JSON: invalid character '{' after top-level value (at byte 218)"}},
		{"array", `[1]`, []string{"a job must be a JSON object, got array"}},
		{"null", `null`, []string{"a job must be a JSON object, got null"}},
		{"unknown field", edit(`"id":"j1"`, `"id":"j1","foo":1`), []string{"foo: unknown field"}},
		{"field in the wrong case", edit(`"onError"`, `"OnError"`), []string{
			`action.OnError: unknown field (did you mean "onError"?)`, `action.onError: required: "blocking" or "continue"`}},
		{"odd unknown key", edit(`"id":"j1"`, `"id":"j1","a.b":1`), []string{`["a.b"]: unknown field`}},
		{"duplicate field", edit(`"id":"j1"`, `"id":"j1","id":"j2"`), []string{"id: duplicate field"}},
		{"number variable", edit(`{"a":"1"}`, `{"a":"1","foo":2}`), []string{"variables.foo: must be a string, got number"}},
		{"null dotted variable", edit(`{"a":"1"}`, `{"contact.name":null}`), []string{`variables["contact.name"]: must be a string, got null`}},
		{"duplicate variable", edit(`{"a":"1"}`, `{"a":"1","a":"2"}`), []string{"variables.a: duplicate variable"}},
		{"variables as array", edit(`{"a":"1"}`, `["a"]`), []string{"variables: must be an object of strings, got array"}},
		{"id as number", edit(`"id":"j1"`, `"id":7`), []string{"id: must be a string, got number"}},
		{"required string null", edit(`"sessionId":"s1"`, `"sessionId":null`), []string{"sessionId: must be a string, got null"}},
		{"action missing", `{"id":"j1","sessionId":"s1","flowId":"f1","blockId":"b1","context":"flow"}`,
			[]string{"action: required: the executeScript action to run"}},
		{"action as array", edit(`"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"}`, `"action":[]`),
			[]string{"action: must be an object, got array"}},
		{"inputVariables missing", edit(`"inputVariables":[],`, ``), []string{"action.inputVariables: required: use [] when the script takes no inputs"}},
		{"inputVariables as object", edit(`"inputVariables":[]`, `"inputVariables":{"a":"b"}`), []string{"action.inputVariables: must be an array, got object"}},
		{"input as number", edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a","value":""},5]`), []string{"action.inputVariables[1]: must be an object, got number"}},
		{"input value missing", edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a"}]`), []string{`action.inputVariables[0].value: required (it may be "")`}},
		{"input value number", edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a","value":1}]`), []string{"action.inputVariables[0].value: must be a string, got number"}},
		{"input extra field", edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a","value":"","type":"x"}]`), []string{"action.inputVariables[0].type: unknown field"}},
		{"input bad name", edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a b","value":""}]`), []string{
			`action.inputVariables[0].name: "a b" is not a JavaScript identifier: ' ' is not allowed`}},
		{"unknown type", edit(`"executeScript"`, `"runScript"`), []string{`action.type: must be "executeScript", got "runScript"`}},
		{"unknown onError", edit(`"onError":"continue"`, `"onError":"retry"`), []string{`action.onError: must be "blocking" or "continue", got "retry"`}},
		{"errorHandoff as string", edit(`"onError":"continue"`, `"onError":"continue","errorHandoff":"false"`), []string{"action.errorHandoff: must be true or false, got string"}},
		{"timeout with a fraction", edit(`"id":"j1"`, `"id":"j1","timeoutMs":1.5`), []string{"timeoutMs: must be a whole number, got 1.5"}},
		{"timeout past 2^53 in an exponent", edit(`"id":"j1"`, `"id":"j1","timeoutMs":1e30`), []string{"timeoutMs: 1e30 is out of range"}},
		{"timeout past float64", edit(`"id":"j1"`, `"id":"j1","timeoutMs":1e400`), []string{"timeoutMs: 1e400 is out of range"}},
		{"timeout out of range", edit(`"id":"j1"`, `"id":"j1","timeoutMs":99999999999999999999`), []string{"timeoutMs: 99999999999999999999 is out of range"}},
		{"version as string", edit(`"id":"j1"`, `"version":"1","id":"j1"`), []string{"version: must be a whole number, got string"}},
		{"future version", edit(`"id":"j1"`, `"version":2,"id":"j1"`), []string{"version: contract version 2 is newer than this one (1): upgrade the executor before sending such jobs"}},
		{"bad deadline", edit(`"id":"j1"`, `"id":"j1","deadline":"tomorrow"`), []string{`deadline: must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "tomorrow"`}},
		{"deadline offset of 60 minutes", edit(`"id":"j1"`, `"id":"j1","deadline":"2026-01-01T00:00:00+00:60"`), []string{
			`deadline: must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "2026-01-01T00:00:00+00:60": an offset's minutes run from 00 to 59`}},
		{"deadline with a comma before its fraction", edit(`"id":"j1"`, `"id":"j1","deadline":"2030-01-01T00:00:00,5Z"`), []string{
			`deadline: must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "2030-01-01T00:00:00,5Z": a fraction of a second follows a period, not a comma`}},
		{"deadline with an hour of one digit", edit(`"id":"j1"`, `"id":"j1","deadline":"2030-01-01T5:00:00Z"`), []string{
			`deadline: must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "2030-01-01T5:00:00Z": the hour takes two digits`}},
		{"redirect without exception block", edit(`"onError":"continue"`, `"onError":"blocking","errorHandoff":false`), []string{
			`defaultExceptionBlockId: required when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there`}},
		{"many at once", `{"id":"a.b","sessionId":1,"context":"bot","action":{"type":"x","source":"","inputVariables":[{"name":"if","value":""}],"outputVariable":"o","onError":"continue"},"variables":{"n":1},"extra":true}`,
			[]string{
				"sessionId: must be a string, got number",
				"variables.n: must be a string, got number",
				"extra: unknown field",
				`id: must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got "a.b"`,
				"flowId: required",
				"blockId: required",
				`context: must be "flow" or "tool", got "bot"`,
				`action.type: must be "executeScript", got "x"`,
				"action.source: required: write a function execute(...) or a body that returns a value",
				`action.inputVariables[0].name: "if" is a reserved word in JavaScript or in FlowScript; choose another name`,
			}},
		{"too large", `{"id":"` + strings.Repeat("x", MaxJobBytes) + `"}`, []string{
			"job is 1048585 bytes, over the 1048576-byte limit: move large data out of the job"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			var got []string
			for _, fe := range fieldErrors(t, err) {
				got = append(got, fe.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decode errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDecodeNullMeansAbsentForOptionalFields(t *testing.T) {
	in := strings.Replace(minimal, `"id":"j1"`, `"id":"j1","version":null,"timeoutMs":null,"deadline":null,"defaultExceptionBlockId":null`, 1)
	in = strings.Replace(in, `"onError":"continue"`, `"onError":"continue","errorVariable":null,"errorMessage":null,"errorHandoff":null`, 1)
	in = strings.Replace(in, `"inputVariables":[]`, `"inputVariables":null`, 1)
	in = strings.Replace(in, `"variables":{"a":"1"}`, `"variables":null`, 1)
	j, err := Decode([]byte(in))
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if j.Version != 0 || j.TimeoutMs != 0 || j.Deadline != nil || j.Action.ErrorHandoff != nil || j.Action.InputVariables != nil || j.Variables != nil {
		t.Fatalf("null must leave optional fields absent: %+v", j)
	}
}

func TestDecodeKeepsWhatDecodedOnError(t *testing.T) {
	in := strings.Replace(minimal, `"onError":"continue"`, `"onError":"sometimes"`, 1)
	j, err := Decode([]byte(in))
	if err == nil || j == nil {
		t.Fatalf("Decode = %v, %v: want the partial job and an error", j, err)
	}
	if j.ID != "j1" || j.SessionID != "s1" || j.Action.OutputVariable != "out" {
		t.Fatalf("partial job lost decoded fields: %+v", j)
	}
	if j, _ := Decode([]byte(`[]`)); j != nil {
		t.Fatalf("a non-object must give a nil job, got %+v", j)
	}
}

func TestDecodeValues(t *testing.T) {
	in := strings.Replace(minimal, `"onError":"continue"`, `"onError":"blocking","errorHandoff":false,"errorMessage":"Ops \u00e9 {{a}}"`, 1)
	in = strings.Replace(in, `"id":"j1"`, `"id":"j1","defaultExceptionBlockId":"exc","timeoutMs":250,"deadline":"2026-03-01T12:00:00.5-03:00"`, 1)
	j, err := Decode([]byte(in))
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if j.Action.ErrorHandoff == nil || *j.Action.ErrorHandoff || j.Action.Handoff() {
		t.Errorf("errorHandoff false decoded as %v", j.Action.ErrorHandoff)
	}
	if j.Action.ErrorMessage != "Ops é {{a}}" || j.TimeoutMs != 250 || j.DefaultExceptionBlockID != "exc" {
		t.Errorf("decoded %+v", j)
	}
	if want := time.Date(2026, 3, 1, 15, 0, 0, 5e8, time.UTC); j.Deadline == nil || !j.Deadline.Equal(want) {
		t.Errorf("deadline = %v, want %v", j.Deadline, want)
	}
}

// A whole number may be written with a fraction of zero or an exponent, as
// JSON Schema's "integer" (and a Python engine's json.dumps(1000.0)) allow.
func TestDecodeWholeNumbersWrittenOtherwise(t *testing.T) {
	for _, text := range []string{"1000", "1000.0", "1e3", "1E+3", "10000e-1", "1000.000"} {
		j, err := Decode([]byte(strings.Replace(minimal, `"id":"j1"`, `"id":"j1","timeoutMs":`+text, 1)))
		if err != nil || j.TimeoutMs != 1000 {
			t.Errorf("timeoutMs %s: %d, %v; want 1000", text, j.TimeoutMs, err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "job.golden.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeSalvagesTheIDsOfBrokenJSON(t *testing.T) {
	for _, tc := range []struct {
		in              string
		id, session, fl string
	}{
		{`{"id":"j1","sessionId":"s1","action":{"type":"exec`, "j1", "s1", ""},
		{`{"id":"j2","sessionId":"s2","flowId":"f2","action":{"source":"return 1`, "j2", "s2", "f2"},
		{`{"variables":{"id":"not-this"},"id":"j3"` + strings.Repeat(" ", 10) + `,"sessionId":"s`, "j3", "", ""},
		{`{"id":"j4\"`, "", "", ""},
		{`{"id":"j5","sessionId":7,"flowId":"f5",,,`, "j5", "", "f5"},
		{`not json`, "", "", ""},
	} {
		job, err := Decode([]byte(tc.in))
		if err == nil {
			t.Fatalf("%.40q: Decode accepted broken JSON", tc.in)
		}
		if tc.id == "" && tc.session == "" && tc.fl == "" {
			if job != nil {
				t.Errorf("%.40q: salvaged %+v from nothing", tc.in, job)
			}
			continue
		}
		if job == nil || job.ID != tc.id || job.SessionID != tc.session || job.FlowID != tc.fl {
			t.Errorf("%.40q: salvaged %+v, want id %q session %q flow %q", tc.in, job, tc.id, tc.session, tc.fl)
		}
	}
	big := `{"id":"huge","sessionId":"s","variables":{"x":"` + strings.Repeat("x", MaxJobBytes) + `"}}`
	if job, err := Decode([]byte(big)); err == nil || job == nil || job.ID != "huge" {
		t.Fatalf("oversized job: %+v, %v: want its id salvaged and an error", job, err)
	}
}
