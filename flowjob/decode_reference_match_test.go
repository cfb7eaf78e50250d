package flowjob

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// sameAsReference fails t unless Decode and Salvage answer data exactly as
// the frozen reference (decode_reference_test.go) does: deeply equal jobs,
// the same problems in the same order, the same error text. It also checks
// that the job does not alias data: a caller may reuse its buffer.
func sameAsReference(t *testing.T, data []byte) {
	t.Helper()
	data = data[:len(data):len(data)] // no spare capacity to read past the end into
	wantJob, wantErr := refDecode(data)

	buf := make([]byte, len(data))
	copy(buf, data)
	gotJob, gotErr := Decode(buf)
	for i := range buf {
		buf[i] = 'X'
	}

	if !reflect.DeepEqual(gotJob, wantJob) {
		t.Fatalf("Decode(%.200q) job:\n got %+v\nwant %+v", data, gotJob, wantJob)
	}
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("Decode(%.200q) error:\n got %v\nwant %v", data, gotErr, wantErr)
	}
	if gotErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("Decode(%.200q) error:\n got %s\nwant %s", data, gotErr, wantErr)
		}
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("Decode(%.200q) error value:\n got %#v\nwant %#v", data, gotErr, wantErr)
		}
	}
	if got, want := Salvage(data), refSalvage(data); !reflect.DeepEqual(got, want) {
		t.Fatalf("Salvage(%.200q):\n got %+v\nwant %+v", data, got, want)
	}
}

// referenceSeeds are the inputs every differential test starts from: the
// testdata corpus, FuzzDecode's seeds, and cases written for the corners of
// the decoder (escaped and duplicate keys, every JSON type in every field,
// the problem cap, broken and oversized JSON).
func referenceSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "jobs", "*.json"))
	files = append(files, filepath.Join("testdata", "job.golden.json"))
	var seeds [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	edit := func(old, new string) string {
		if !strings.Contains(minimal, old) {
			panic("seed edits text that is not in minimal: " + old)
		}
		return strings.Replace(minimal, old, new, 1)
	}
	action := `"action":{"type":"executeScript","source":"return 1","inputVariables":[],"outputVariable":"out","onError":"continue"}`
	many := make([]string, 0, 80)
	for i := range 80 {
		many = append(many, `"x`+strings.Repeat("y", i)+`":1`)
	}
	for _, s := range []string{
		minimal,
		`{"variables":{"a":"{{{{a}}}}"},"action":{"inputVariables":[{"name":"x","value":"{{a}}"}]}}`,
		// Not objects, not JSON, too large.
		``, ` `, `null`, ` null `, `1`, `-0.5e3`, `"s"`, `true`, `false`, `[]`, `[{}]`, `{}`, " \t\r\n{} \n",
		`{"id":`, `{"id":"j1",}`, `{"id" "j1"}`, `{'id':1}`, `{"id":"a\qb"}`, "{\"id\":\"a\x01b\"}", `{"id":"\ud800"}`,
		`{"id":01}`, `{"id":1.}`, `{"id":tru}`, `{} {}`, `{}x`, `{"a":[1,]}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"id":"` + strings.Repeat("x", MaxJobBytes) + `"}`,
		`{"id":"j1","sessionId":"s1","action":{"type":"exec`,
		`{"variables":{"id":"not-this"},"id":"j3"          ,"sessionId":"s`,
		`{"id":"j5","sessionId":7,"flowId":"f5",,,`, `{"000000`, `{"id"`,
		"{\"id\":\"\xff\xfe\",\"flowId\":\"f\\u00e9\",\"context\":\"flow\",\"blockId\":\"b\"",
		// Keys: escaped, duplicate, unknown, odd, in the wrong case.
		edit(`"id":"j1"`, `"i\u0064":"j1"`),
		edit(`"id":"j1"`, `"id":"j1","i\u0064":"j2"`),
		edit(`"id":"j1"`, `"id":"j1","foo":1,"foo":2,"foo":3`),
		edit(`"id":"j1"`, "\"id\":\"j1\",\"\xff\":1,\"\xfe\":2"),
		edit(`"id":"j1"`, `"id":"j1","":1,"":2`),
		edit(`"id":"j1"`, `"id":"j1","`+strings.Repeat("k", 65)+`":1,"`+strings.Repeat("k", 64)+`":1`),
		edit(`"id":"j1"`, `"id":"j1","ID":"j2","SESSIONID":1,"Action":{}`),
		edit(`"source"`, `"\u017Fource"`),
		edit(`"source"`, `"source":"x","SOURCE"`),
		edit(`"onError"`, `"\u006fnError"`),
		edit(`"outputVariable":"out"`, `"outputVariable":"out","outputVariable":"o2","x y":1,"a.b":2,"$x":3,"é":4`),
		edit(`"id":"j1"`, `"id":"j1","context":"tool","context":null`),
		edit(`"action":`, `"action":{},"action":`),
		edit(`"variables":{"a":"1"}`, `"variables":{"a":"1"},"variables":{"b":"2"}`),
		// Every JSON type in fields of each kind.
		edit(`"id":"j1"`, `"id":null,"version":"1","timeoutMs":true,"templateVersion":[],"tenantId":1,"templateId":{}`),
		edit(`"id":"j1"`, `"id":"j1","version":-1,"timeoutMs":-5,"templateVersion":-2,"templateId":"t"`),
		edit(`"id":"j1"`, `"id":"j1","version":1e0,"timeoutMs":1E3,"templateVersion":-0`),
		edit(`"id":"j1"`, `"id":"j1","timeoutMs":123456789012345678901234567890123456789012345678901234567890`),
		edit(`"id":"j1"`, `"id":"j1","timeoutMs":0.000000000000000000000000000000000000000000000000001`),
		edit(`"id":"j1"`, `"id":"j1","timeoutMs":9223372036854775807,"templateVersion":-9223372036854775808`),
		edit(`"id":"j1"`, `"id":"j1","timeoutMs":9223372036854775808,"templateVersion":3`),
		edit(`"id":"j1"`, `"id":"j1","deadline":null`),
		edit(`"id":"j1"`, `"id":"j1","deadline":""`),
		edit(`"id":"j1"`, `"id":"j1","deadline":1`),
		edit(`"id":"j1"`, `"id":"j1","deadline":"2026-03-01T12:00:00.5-03:00"`),
		edit(`"id":"j1"`, `"id":"j1","deadline":"2026-03-01T12:00:00Z","deadline":"x"`),
		edit(`"id":"j1"`, `"id":"j1","deadline":"`+strings.Repeat("é", 50)+`"`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":null`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":[]`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":["api","kv","api","x",1,null,"approval"]`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":"api"`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":{"a":"api"}`),
		edit(`"id":"j1"`, `"id":"j1","capabilities":[ "api" , "kv" ]`),
		edit(`"id":"j1"`, `"id":"j1","resume":null`),
		edit(`"id":"j1"`, `"id":"j1","resume":{}`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":"t"}`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":"t","resolution":null}`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":"t","resolution": {"a":[1,2,{"b":"}"}]} }`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":1,"resolution":1,"resolution":2,"x":1,"Token":2}`),
		edit(`"id":"j1"`, `"id":"j1","resume":[]`),
		edit(`"id":"j1"`, `"id":"j1","resume":"t"`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":"`+strings.Repeat("t", MaxTokenBytes+1)+`","resolution":"r"}`),
		edit(`"id":"j1"`, `"id":"j1","resume":{"token":null,"resolution":true}`),
		edit(`"onError":"continue"`, `"onError":"continue","errorHandoff":true`),
		edit(`"onError":"continue"`, `"onError":"blocking","errorHandoff":false`),
		edit(`"onError":"continue"`, `"onError":"blocking","errorHandoff":null`),
		edit(`"onError":"continue"`, `"onError":"continue","errorHandoff":0`),
		edit(`"onError":"continue"`, `"onError":"continue","errorHandoff":"true"`),
		edit(`"onError":"continue"`, `"onError":"continue","errorHandoff":[true]`),
		edit(`"onError":"continue"`, `"onError":"continue","errorVariable":null,"errorMessage":null`),
		edit(`"onError":"continue"`, `"onError":"continue","errorVariable":1,"errorMessage":{}`),
		edit(`"onError":"continue"`, `"onError":null`),
		edit(`"onError":"continue"`, `"onError":1`),
		edit(`"type":"executeScript"`, `"type":null`),
		edit(`"source":"return 1"`, `"source":" \n "`),
		edit(`"source":"return 1"`, `"source":"return \"\\u00e9\\ud83d\\ude00\\ud800\\n\\/\\\\\""`),
		edit(`"source":"return 1"`, "\"source\":\"return '\xff\xc3'\""),
		edit(action, `"action":null`),
		edit(action, `"action":"x"`),
		edit(action, `"action":[{}]`),
		edit(action, `"action":{}`),
		edit(action, `"action":{"inputVariables":null}`),
		edit(`"inputVariables":[]`, `"inputVariables":null`),
		edit(`"inputVariables":[]`, `"inputVariables":"x"`),
		edit(`"inputVariables":[]`, `"inputVariables":[null,1,"a",[],{},{"name":"a"},{"value":"v"},{"name":1,"value":2}]`),
		edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a","value":"b","name":"c","value":"d","x":1,"Name":2}]`),
		edit(`"inputVariables":[]`, `"inputVariables":[{"name":"a","value":"{{a}}"},{"name":"a","value":""},{"name":"if","value":""},{"name":"1x","value":""}]`),
		edit(`"inputVariables":[]`, `"inputVariables":[`+strings.Repeat(`{"name":"a","value":""},`, 130)+`{"name":"z","value":""}]`),
		edit(`"inputVariables":[]`, `"inputVariables":[ { "name" : "a" , "value" : "b" } , { "name":"c","value":null } ]`),
		edit(`"inputVariables":[],`, ``),
		edit(`{"a":"1"}`, `null`),
		edit(`{"a":"1"}`, `{}`),
		edit(`{"a":"1"}`, `[]`),
		edit(`{"a":"1"}`, `"a"`),
		edit(`{"a":"1"}`, `{"a":null,"b":1,"c":true,"d":[],"e":{},"f":"ok","a":"2","":"e","contact.name":"x","x y":1}`),
		edit(`{"a":"1"}`, `{"a\u0062":"1","ab":"2","\u00e9":"3","é":"4"}`),
		edit(`{"a":"1"}`, "{\"\xff\":\"1\",\"\xfe\":\"2\",\"\\ud800\":\"3\",\"\\udc00\":4}"),
		edit(`{"a":"1"}`, `{"`+strings.Repeat("v", MaxNameBytes+1)+`":"1","`+strings.Repeat("w", 70)+`":2}`),
		// Cross-checks between fields, and the problem cap.
		edit(`"context":"flow"`, `"context":"tool"`),
		edit(`"context":"flow"`, `"context":7`),
		edit(`"id":"j1"`, `"id":"a.b"`),
		edit(`"id":"j1"`, `"id":"`+strings.Repeat("i", MaxIDBytes+1)+`"`),
		edit(`"id":"j1"`, `"id":"j1",`+strings.Join(many, ",")),
		`{"id":"a.b","sessionId":1,"context":"bot","action":{"type":"x","source":"","inputVariables":[{"name":"if","value":""}],"outputVariable":"o","onError":"continue"},"variables":{"n":1},"extra":true}`,
		`{"action":{"type":"executeScript","source":"x","inputVariables":[],"outputVariable":"o","onError":"continue"},"action":null}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestDecodeMatchesReferenceOnSeeds(t *testing.T) {
	for _, data := range referenceSeeds(t) {
		sameAsReference(t, data)
	}
}

// TestDecodeMatchesReferenceOnPrefixes cuts every seed short at every byte:
// how a job that was cut in transit reads (Salvage).
func TestDecodeMatchesReferenceOnPrefixes(t *testing.T) {
	for _, data := range referenceSeeds(t) {
		if len(data) > 4<<10 {
			continue
		}
		for n := range len(data) {
			sameAsReference(t, data[:n])
		}
	}
}

// TestSalvageStopsWhereTheDocumentEnds: data that ends right after a member
// name made Salvage read past its end (a panic when data had no spare
// capacity).
func TestSalvageStopsWhereTheDocumentEnds(t *testing.T) {
	for _, s := range []string{`{"000000`, `{"id"`, `{"id" `, `{"id":"j1","sessionId"`, `{"id":"j1" , "x"`} {
		data := []byte(s)[:len(s):len(s)]
		job, err := Decode(data)
		if err == nil {
			t.Fatalf("Decode(%q) accepted broken JSON", s)
		}
		if want := strings.HasPrefix(s, `{"id":"j1"`); (job != nil) != want || want && job.ID != "j1" {
			t.Errorf("Decode(%q) salvaged %+v", s, job)
		}
	}
}

// TestDecodeMatchesReferenceAtTheDepthLimit: encoding/json refuses arrays
// and objects nested more than 10000 deep, wherever they are in the job.
func TestDecodeMatchesReferenceAtTheDepthLimit(t *testing.T) {
	// nest(n) is n arrays and objects, nested.
	nest := func(n int) string {
		s := strings.Repeat(`[{"a":`, n/2) + `0` + strings.Repeat(`}]`, n/2)
		if n%2 == 1 {
			s = "[" + s + "]"
		}
		return s
	}
	for _, place := range []string{`%s`, `{"x":%s}`, `{"resume":{"token":"t","resolution":%s}}`, `{"variables":%s}`,
		`{"action":{"inputVariables":[{"name":"a","value":%s}]}}`, `{"action":{"inputVariables":[%s]}}`} {
		verdicts := map[bool]bool{}
		for depth := 9994; depth <= 10001; depth++ {
			data := []byte(strings.Replace(place, "%s", nest(depth), 1))
			sameAsReference(t, data)
			verdicts[json.Valid(data)] = true
		}
		if len(verdicts) != 2 {
			t.Errorf("%s: the depths tried do not straddle the limit", place)
		}
	}
}

// TestDecodeMatchesReferenceOnEveryByte puts every byte value, and every
// byte after a backslash or inside a \u escape, in each place where the
// decoder scans JSON itself: a string it keeps, a member name, a value it
// skips, between tokens, and in a number.
func TestDecodeMatchesReferenceOnEveryByte(t *testing.T) {
	places := []string{
		`{"id":"j%s1"}`, `{"i%sd":"j1"}`, `{"id":"j1","x":["%s"]}`, `{"id":"j1","x":{"%s":1}}`,
		`{"variables":{"a%s":"b%s"}}`, `{"id":"j1"%s}`, `{"id":"j1",%s"x":1}`, `{"timeoutMs":1%s}`,
		`{"timeoutMs":-%s1}`, `{"version":1.%s}`, `{"version":1e%s1}`, `{"resume":{"token":"t","resolution":[1,%s2]}}`,
		`{"action":{"errorHandoff":t%srue}}`, `{"id":"j1","x":nul%s}`, `%s{"id":"j1"}`,
	}
	for c := range 256 {
		b := string([]byte{byte(c)})
		for _, place := range places {
			sameAsReference(t, []byte(strings.ReplaceAll(place, "%s", b)))
			sameAsReference(t, []byte(strings.ReplaceAll(place, "%s", `\`+b)))
			for _, u := range []string{`\u` + b + `abc`, `\u0` + b + `bc`, `\u00` + b + `c`, `\u00e` + b, `\ud83d\u` + b + `e00`} {
				sameAsReference(t, []byte(strings.ReplaceAll(place, "%s", u)))
			}
		}
	}
}

// TestDecodeMatchesReferenceOnLookalikes: values near the contract's
// constants, which the decoder does not copy, in the fields that take them
// and in one that does not.
func TestDecodeMatchesReferenceOnLookalikes(t *testing.T) {
	for _, c := range []string{ActionTypeExecuteScript, string(ContextFlow), string(ContextTool), string(OnErrorBlocking),
		string(OnErrorContinue), CapabilityAPI, CapabilityKV, CapabilityApproval} {
		for _, v := range []string{c, strings.ToUpper(c), strings.ToUpper(c[:1]) + c[1:], c[:len(c)-1], c + " ", " " + c,
			c[:len(c)-1] + strings.ToUpper(c[len(c)-1:]), `\u00` + strconv.FormatInt(int64(c[0]), 16) + c[1:]} {
			for _, place := range []string{`"context":"%s"`, `"action":{"type":"%s","onError":"%[1]s"}`,
				`"capabilities":["%s"]`, `"variables":{"%s":"%[1]s"}`} {
				sameAsReference(t, []byte(`{"id":"j1",`+fmt.Sprintf(place, v)+`}`))
			}
		}
	}
}

// TestDecodeMatchesReferenceOnMutations edits every seed that is a JSON
// object at every value (each replaced by values of every JSON type) and in
// every object (each member dropped, repeated, renamed in another case, and
// an unknown member added), and compares each edit with the reference.
func TestDecodeMatchesReferenceOnMutations(t *testing.T) {
	replacements := []string{`null`, `0`, `-1`, `1.5`, `2e3`, `99999999999999999999`, `""`, `"x"`, `"a.b"`,
		`"2026-03-01T12:00:00Z"`, `"\u0041"`, `true`, `false`, `[]`, `[null]`, `["api"]`, `[{"name":"n","value":"v"}]`,
		`{}`, `{"k":"v"}`, `{"name":"n","value":"v"}`, `{"token":"t","resolution":{}}`}
	n := 0
	for _, data := range referenceSeeds(t) {
		if len(data) > 64<<10 || !json.Valid(data) || refKindOf(data) != "object" {
			continue
		}
		walkJSON(data, refSkipJSONSpace(data, 0), func(start, end int) {
			for _, r := range replacements {
				sameAsReference(t, splice(data, start, end, r))
				n++
			}
		}, func(keyStart, valueEnd int, key []byte, next int) {
			member := string(data[keyStart:valueEnd])
			sameAsReference(t, splice(data, keyStart, next, ""))
			sameAsReference(t, splice(data, keyStart, keyStart, member+","))
			sameAsReference(t, splice(data, keyStart, keyStart, `"zz":1,`))
			upper := `"` + strings.ToUpper(string(key[1:len(key)-1])) + `"`
			sameAsReference(t, splice(data, keyStart, keyStart+len(key), upper))
			n += 4
		})
	}
	if n < 1000 {
		t.Fatalf("only %d mutations: the walk is broken", n)
	}
}

func splice(data []byte, start, end int, with string) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(with))
	out = append(out, data[:start]...)
	out = append(out, with...)
	return append(out, data[end:]...)
}

// walkJSON calls value for every value inside the valid JSON value at
// data[i:] (not for that value itself) and member for every object member:
// where its key starts, where its value ends, the key as written, and
// where the next member starts (or the closing brace when it is the last;
// a dropped last member then leaves a trailing comma, which is an input
// like any other).
func walkJSON(data []byte, i int, value func(start, end int), member func(keyStart, valueEnd int, key []byte, next int)) int {
	end := refJSONValueEnd(data, i)
	switch data[i] {
	case '{':
		j := refSkipJSONSpace(data, i+1)
		for data[j] == '"' {
			keyEnd := refJSONStringEnd(data, j)
			v := refSkipJSONSpace(data, refSkipJSONSpace(data, keyEnd)+1)
			vEnd := walkJSON(data, v, value, member)
			value(v, vEnd)
			next := refSkipJSONSpace(data, vEnd)
			if data[next] == ',' {
				next = refSkipJSONSpace(data, next+1)
			}
			member(j, vEnd, data[j:keyEnd], next)
			j = next
		}
	case '[':
		j := refSkipJSONSpace(data, i+1)
		for data[j] != ']' {
			vEnd := walkJSON(data, j, value, member)
			value(j, vEnd)
			j = refSkipJSONSpace(data, vEnd)
			if data[j] == ',' {
				j = refSkipJSONSpace(data, j+1)
			}
		}
	}
	return end
}

// FuzzDecodeMatchesReference: on any input, Decode and Salvage answer as
// the frozen reference does.
func FuzzDecodeMatchesReference(f *testing.F) {
	for _, data := range referenceSeeds(f) {
		if len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsReference(t, data)
	})
}

func BenchmarkDecodeReference(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "job.golden.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := refDecode(data); err != nil {
			b.Fatal(err)
		}
	}
}
