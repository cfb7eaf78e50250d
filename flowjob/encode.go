package flowjob

import (
	"bytes"
	"encoding/json"
)

// Marshal is the wire encoding of a job, a result or a resolution: JSON as
// json.Marshal writes it, but with < > & as themselves rather than as
// HTML-safe \u003c escapes, as JavaScript's JSON.stringify writes them.
// A job's size (CheckSize, MAX_JOB_BYTES) and a result's size against the
// broker's message limit are then the same in every engine, whatever
// markup the text holds: json.Marshal makes each of those characters six
// bytes, so a job of HTML that a TypeScript engine publishes at 300 KB
// was 1.3 MB from Go.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
