package schema_test

import (
	"testing"

	"github.com/flowscript/flowscript/flowjob"
)

// The golden files flowjob's own tests use (and valid_from_typescript.json,
// written by the TypeScript client's tests) are what the schemas describe.
func TestGoldenJobsValidate(t *testing.T) {
	job, _ := schemas(t)
	files := testdata(t, "jobs/valid_*.json")
	for name, data := range testdata(t, "job.golden.json") {
		files[name] = data
	}
	if _, ok := files["valid_from_typescript.json"]; !ok {
		t.Error("flowjob/testdata/jobs/valid_from_typescript.json is missing: run the TypeScript client's tests (clients/typescript: npm test)")
	}
	for name, data := range files {
		if _, err := flowjob.Decode(data); err != nil {
			t.Errorf("%s: flowjob.Decode refuses it: %v", name, err)
		}
		if err := validate(job, data); err != nil {
			t.Errorf("%s: the job schema refuses it:\n%v", name, err)
		}
	}
}

// Every invalid job of testdata breaks a rule the schema can say.
func TestInvalidJobsFail(t *testing.T) {
	job, _ := schemas(t)
	for name, data := range testdata(t, "jobs/invalid_*.json") {
		if _, err := flowjob.Decode(data); err == nil {
			t.Errorf("%s: flowjob.Decode accepts it", name)
		}
		if err := validate(job, data); err == nil {
			t.Errorf("%s: the job schema accepts it", name)
		}
	}
}

func TestGoldenResultValidates(t *testing.T) {
	_, result := schemas(t)
	for name, data := range testdata(t, "result.golden.json") {
		if err := validate(result, data); err != nil {
			t.Errorf("%s: the result schema refuses it:\n%v", name, err)
		}
	}
}
