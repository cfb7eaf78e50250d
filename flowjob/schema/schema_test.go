package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/flowscript/flowscript/flowjob/schema"
)

func TestFilesAreExported(t *testing.T) {
	for name, get := range map[string]func() []byte{schema.JobFile: schema.Job, schema.ResultFile: schema.Result} {
		fromFS, err := fs.ReadFile(schema.FS(), name)
		if err != nil {
			t.Fatalf("FS: %v", err)
		}
		b := get()
		if !bytes.Equal(b, fromFS) {
			t.Errorf("%s: the function and FS differ", name)
		}
		b[0] = 'x'
		if bytes.Equal(get(), b) {
			t.Errorf("%s: the bytes returned are shared: a caller's change leaks", name)
		}
		var doc struct {
			Schema string `json:"$schema"`
			ID     string `json:"$id"`
		}
		if err := json.Unmarshal(fromFS, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %q, want draft 2020-12", name, doc.Schema)
		}
		want := map[string]string{schema.JobFile: schema.JobID, schema.ResultFile: schema.ResultID}[name]
		if doc.ID != want {
			t.Errorf("%s: $id is %q, want %q", name, doc.ID, want)
		}
	}
}
