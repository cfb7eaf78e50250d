package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/flowscript/flowscript/flowjob/schema"
)

// The validator is github.com/santhosh-tekuri/jsonschema/v6, in tests only:
// it implements draft 2020-12 completely (if/then/else, $defs, $ref,
// propertyNames, unicode-aware maxLength) and passes the official
// JSON-Schema-Test-Suite, it is pure Go with no dependency beyond
// golang.org/x/text (already in go.mod), and it validates the schemas
// themselves against the 2020-12 meta-schema when compiling them. Package
// schema itself imports nothing but embed and io/fs.

var compiled struct {
	once        sync.Once
	job, result *jsonschema.Schema
	err         error
}

// schemas compiles both embedded schemas once (checking them against the
// 2020-12 meta-schema on the way).
func schemas(t testing.TB) (job, result *jsonschema.Schema) {
	t.Helper()
	compiled.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		for id, data := range map[string][]byte{schema.JobID: schema.Job(), schema.ResultID: schema.Result()} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				compiled.err = err
				return
			}
			if compiled.err = c.AddResource(id, doc); compiled.err != nil {
				return
			}
		}
		if compiled.job, compiled.err = c.Compile(schema.JobID); compiled.err != nil {
			return
		}
		compiled.result, compiled.err = c.Compile(schema.ResultID)
	})
	if compiled.err != nil {
		t.Fatalf("compiling the schemas: %v", compiled.err)
	}
	return compiled.job, compiled.result
}

// validate reports nil when data is valid for s.
func validate(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// schemaDoc is a schema decoded into plain maps, for walking.
func schemaDoc(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("decoding a schema: %v", err)
	}
	return doc
}

// resolve follows a local "$ref" ("#/$defs/x") of node within root.
func resolve(t testing.TB, root, node map[string]any) map[string]any {
	t.Helper()
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		if !strings.HasPrefix(ref, "#/") {
			t.Fatalf("only local $ref are supported, got %q", ref)
		}
		var cur any = root
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("$ref %q does not resolve", ref)
			}
			cur = m[tok]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("$ref %q does not resolve to a schema", ref)
		}
		node = next
	}
}

// testdata reads files of flowjob/testdata matching pattern (relative to it).
func testdata(t testing.TB, pattern string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", pattern))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no flowjob/testdata/%s (err %v)", pattern, err)
	}
	out := make(map[string][]byte, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}
