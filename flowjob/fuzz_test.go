package flowjob

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode: Decode never panics, the same bytes always give the same
// verdict (job and errors), every error is a *ValidationError, and an
// accepted job reads the same through encoding/json and survives
// re-encoding unchanged.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "jobs", "*.json"))
	files = append(files, filepath.Join("testdata", "job.golden.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(minimal))
	f.Add([]byte(`{"variables":{"a":"{{{{a}}}}"},"action":{"inputVariables":[{"name":"x","value":"{{a}}"}]}}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		job1, err1 := Decode(data)
		job2, err2 := Decode(data)
		if !reflect.DeepEqual(verdict(t, job1, err1), verdict(t, job2, err2)) {
			t.Fatalf("same bytes, two verdicts:\n%v\n%v", err1, err2)
		}
		if err1 != nil {
			var ve *ValidationError
			if !errors.As(err1, &ve) || len(ve.Errors) == 0 || len(ve.Errors) > MaxFieldErrors+1 {
				t.Fatalf("error %v (%T) is not a non-empty, capped *ValidationError", err1, err1)
			}
			return
		}
		if err := job1.Validate(); err != nil {
			t.Fatalf("Decode accepted a job Validate refuses: %v", err)
		}
		// Decode splits JSON itself: what it accepts must read the same
		// through encoding/json.
		var std Job
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("Decode accepted what encoding/json refuses: %v\n%s", err, data)
		}
		if !reflect.DeepEqual(verdict(t, job1, nil), verdict(t, &std, nil)) {
			t.Fatalf("Decode and encoding/json read the job differently:\n%s", data)
		}
		again, err := json.Marshal(job1)
		if err != nil {
			t.Fatalf("encoding an accepted job: %v", err)
		}
		job3, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded job refused: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(verdict(t, job1, nil), verdict(t, job3, nil)) {
			t.Fatalf("re-encoding changed the job:\n%s", again)
		}
	})
}

// verdict is what Decode answered, in a comparable form (the job as JSON,
// so that equal times in different *time.Location values compare equal).
func verdict(t *testing.T, job *Job, err error) [2]string {
	t.Helper()
	var j, e string
	if job != nil {
		b, merr := json.Marshal(job)
		if merr != nil {
			t.Fatalf("encoding a decoded job: %v", merr)
		}
		j = string(b)
	}
	if err != nil {
		e = err.Error()
	}
	return [2]string{j, e}
}

// FuzzUnescape: the decoder's string decoding agrees with encoding/json on
// every input, well-formed or not.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"c\"\\"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\udc00\ud800"`, "\"\xff\xfe\"", `"\x"`, `"\u12"`, "\"a\x01\"", `"abc\"`, `"`, `"\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		if len(bytes.Trim(q, " \t\r\n")) != len(q) {
			return // the decoder passes strings without the space around them
		}
		got, ok := unescape(q)
		var want string
		err := json.Unmarshal(q, &want)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("unescape(%q) = %q, %t; encoding/json: %q, %v", q, got, ok, want, err)
		}
	})
}
