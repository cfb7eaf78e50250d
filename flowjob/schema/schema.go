package schema

import (
	"embed"
	"io/fs"
)

// The file names inside FS, and the schemas' $id.
const (
	JobFile    = "job.schema.json"
	ResultFile = "result.schema.json"

	JobID    = "urn:flowscript:schema:job:1"
	ResultID = "urn:flowscript:schema:result:1"
)

//go:embed job.schema.json result.schema.json
var files embed.FS

// FS holds job.schema.json and result.schema.json, for serving them as
// they are (http.FileServerFS).
func FS() fs.FS { return files }

// Job returns the JSON Schema of a job (a fresh copy: callers may keep or
// change it).
func Job() []byte { return read(JobFile) }

// Result returns the JSON Schema of a result event (a fresh copy).
func Result() []byte { return read(ResultFile) }

func read(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil { // the names are embedded above: only a broken build gets here
		panic("flowjob/schema: " + err.Error())
	}
	return b
}
