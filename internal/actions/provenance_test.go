package actions

import (
	"testing"

	"github.com/flowscript/flowscript/flowjob"
)

// A failed result says which code failed: the SHA-256 of the job's source
// and the template (and version) the job names; a success carries none of
// it, nor does a bad job's result carry a template field that broke a rule.
func TestFailedResultsCarryProvenance(t *testing.T) {
	job := baseJob()
	job.TemplateID, job.TemplateVersion = "tpl-1", 2
	failure := Failed(flowjob.CodeScriptError, "boom", 1)

	got := testPolicy().Decide(job, failure).Result
	if got.SourceSHA256 != flowjob.SourceSHA256(job.Action.Source) || len(got.SourceSHA256) != 64 {
		t.Errorf("sourceSha256 = %q, want the SHA-256 of the source", got.SourceSHA256)
	}
	if got.TemplateID != "tpl-1" || got.TemplateVersion != 2 {
		t.Errorf("template = %q v%d, want tpl-1 v2", got.TemplateID, got.TemplateVersion)
	}

	ok := testPolicy().Decide(job, Report{Output: "x", Attempt: 1}).Result
	if ok.SourceSHA256 != "" || ok.TemplateID != "" || ok.TemplateVersion != 0 {
		t.Errorf("a success carries provenance: %+v", ok)
	}

	bad := baseJob()
	bad.TemplateID, bad.TemplateVersion = "", 4 // a version without its template
	res := testPolicy().Decide(bad, Failed(flowjob.CodeInvalidJob, "templateVersion", 1), BadInput(bad.Validate())).Result
	if res.TemplateVersion != 0 || res.TemplateID != "" {
		t.Errorf("a bad job's result carries its broken template fields: %q v%d", res.TemplateID, res.TemplateVersion)
	}
	if res.SourceSHA256 == "" {
		t.Error("a bad job whose source is fine should still carry the source's hash")
	}
}
