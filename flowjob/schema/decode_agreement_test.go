package schema_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/flowjob/schema"
)

// The job schema and flowjob.Decode give the same answer — accept or
// refuse — on every valid job of testdata and on thousands of mutations of
// them: each member removed, set to null and to values of every JSON type,
// unknown members added, the caps reached and passed, the input-name rule,
// and every combination of the fields that decide whether
// defaultExceptionBlockId is required. That is how required-ness,
// nullability and types are tied to the decoder, not to a list kept here.
func TestJobSchemaAgreesWithDecode(t *testing.T) {
	job, _ := schemas(t)
	jobDoc := schemaDoc(t, schema.Job())
	bases := testdata(t, "jobs/valid_*.json")
	bases["job.golden.json"] = testdata(t, "job.golden.json")["job.golden.json"]
	n := 0
	for _, name := range slices.Sorted(maps.Keys(bases)) {
		var base map[string]any
		if err := json.Unmarshal(bases[name], &base); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, m := range mutations(t, jobDoc, base) {
			n++
			agree(t, job, name+": "+m.desc, m.doc)
		}
	}
	t.Logf("%d mutated jobs: the schema and flowjob.Decode agree on each", n)
}

type mutation struct {
	desc string
	doc  any
}

// probes are the values every member is set to in turn.
var probes = []any{nil, "", " ", "zz", 0, -1, 1, 2, 1.5, true, false, map[string]any{}, []any{}}

func mutations(t *testing.T, jobDoc, base map[string]any) []mutation {
	var out []mutation
	add := func(desc string, edit func(doc map[string]any)) {
		doc := clone(base).(map[string]any)
		edit(doc)
		out = append(out, mutation{desc, doc})
	}
	for _, p := range paths(base, nil) {
		add(fmt.Sprintf("remove %s", pathString(p)), func(doc map[string]any) { remove(doc, p) })
		for _, v := range probes {
			add(fmt.Sprintf("set %s to %s", pathString(p), show(v)), func(doc map[string]any) { set(doc, p, v) })
		}
	}
	for _, p := range objects(base, nil) {
		add(fmt.Sprintf("add an unknown member to %s", pathString(p)), func(doc map[string]any) {
			get(doc, p).(map[string]any)["zzUnknown"] = "x"
		})
		// Members the schema knows that this job leaves out (a field added
		// to the contract is probed even before a golden file sets it).
		props, _ := schemaAt(t, jobDoc, p)["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if _, ok := get(base, p).(map[string]any)[name]; ok {
				continue
			}
			for _, v := range probes {
				add(fmt.Sprintf("add %s as %s", pathString(append(slices.Clone(p), name)), show(v)), func(doc map[string]any) {
					get(doc, p).(map[string]any)[name] = v
				})
			}
		}
	}
	// Caps: at the cap and one past it (ASCII, so bytes = characters).
	for _, c := range []struct {
		path []any
		max  int
	}{
		{[]any{"id"}, flowjob.MaxIDBytes},
		{[]any{"sessionId"}, flowjob.MaxRefBytes},
		{[]any{"flowId"}, flowjob.MaxRefBytes},
		{[]any{"blockId"}, flowjob.MaxRefBytes},
		{[]any{"defaultExceptionBlockId"}, flowjob.MaxRefBytes},
		{[]any{"action", "source"}, flowjob.MaxSourceBytes},
		{[]any{"action", "outputVariable"}, flowjob.MaxNameBytes},
		{[]any{"action", "errorVariable"}, flowjob.MaxNameBytes},
		{[]any{"action", "errorMessage"}, flowjob.MaxErrorMessageBytes},
		{[]any{"action", "inputVariables", 0, "name"}, flowjob.MaxInputNameBytes},
	} {
		for _, n := range []int{c.max, c.max + 1} {
			add(fmt.Sprintf("set %s to %d bytes", pathString(c.path), n), func(doc map[string]any) {
				setOrCreate(doc, c.path, strings.Repeat("a", n))
			})
		}
	}
	for _, n := range []int{flowjob.MaxInputVariables, flowjob.MaxInputVariables + 1} {
		add(fmt.Sprintf("%d input variables", n), func(doc map[string]any) {
			ins := make([]any, n)
			for i := range ins {
				ins[i] = map[string]any{"name": fmt.Sprintf("in%d", i), "value": ""}
			}
			doc["action"].(map[string]any)["inputVariables"] = ins
		})
	}
	for _, n := range []int{flowjob.MaxVariables, flowjob.MaxVariables + 1} {
		add(fmt.Sprintf("%d variables", n), func(doc map[string]any) {
			vars := make(map[string]any, n)
			for i := range n {
				vars[fmt.Sprintf("v%d", i)] = "x"
			}
			doc["variables"] = vars
		})
	}
	for _, n := range []int{flowjob.MaxNameBytes, flowjob.MaxNameBytes + 1} {
		add(fmt.Sprintf("a variable name of %d bytes", n), func(doc map[string]any) {
			doc["variables"] = map[string]any{strings.Repeat("v", n): "x"}
		})
	}
	add(`an empty variable name`, func(doc map[string]any) { doc["variables"] = map[string]any{"": "x"} })
	// The input-name rule (internal/jsident): identifiers, reserved words.
	for _, name := range identifierProbes {
		add(fmt.Sprintf("input name %q", name), func(doc map[string]any) {
			setOrCreate(doc, []any{"action", "inputVariables", 0, "name"}, name)
		})
	}
	// Every combination that decides whether defaultExceptionBlockId is
	// required (a flow, blocking, errorHandoff false: the failure redirects).
	absent := struct{}{}
	for _, context := range []any{"flow", "tool"} {
		for _, onError := range []any{"blocking", "continue"} {
			for _, handoff := range []any{absent, nil, true, false} {
				for _, block := range []any{absent, nil, "", "block-x"} {
					desc := fmt.Sprintf("context %v, onError %v, errorHandoff %s, defaultExceptionBlockId %s",
						context, onError, showOpt(handoff, absent), showOpt(block, absent))
					add(desc, func(doc map[string]any) {
						doc["context"] = context
						action := doc["action"].(map[string]any)
						action["onError"] = onError
						putOpt(action, "errorHandoff", handoff, absent)
						putOpt(doc, "defaultExceptionBlockId", block, absent)
					})
				}
			}
		}
	}
	return out
}

// identifierProbes are input names on both sides of the identifier rule.
var identifierProbes = []string{
	"cpf", "_x", "$y", "nome2", "ação", "café_com_leite", "Ωmega", "x\u200d", "x\u0301", "ǅx", "ⅷ",
	"", "2x", "a-b", "a b", "a.b", "x\u00a0", "\u00a0x", "🙂", "a\u200b",
	// Every word internal/jsident reserves, and some it does not.
	"await", "break", "case", "catch", "class", "const", "continue", "debugger", "default",
	"delete", "do", "else", "enum", "export", "extends", "false", "finally", "for", "function",
	"if", "import", "in", "instanceof", "new", "null", "return", "super", "switch", "this",
	"throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "let", "static",
	"implements", "interface", "package", "private", "protected", "public", "arguments",
	"eval", "undefined", "NaN", "Infinity", "execute",
	"async", "of", "get", "set", "Execute", "nan", "infinity", "require", "process", "console",
	"$flowscript$marker", "$flowscript$x", "$flowscriptx", "x$flowscript$",
}

func agree(t *testing.T, s *jsonschema.Schema, desc string, doc any) {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, decodeErr := flowjob.Decode(data)
	schemaErr := validate(s, data)
	switch {
	case decodeErr == nil && schemaErr != nil:
		t.Errorf("%s: flowjob.Decode accepts it, the schema refuses it:\n%v", desc, schemaErr)
	case decodeErr != nil && schemaErr == nil:
		t.Errorf("%s: the schema accepts it, flowjob.Decode refuses it: %v", desc, decodeErr)
	}
}

// paths lists the path of every member and element inside v.
func paths(v any, prefix []any) [][]any {
	var out [][]any
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p := append(slices.Clone(prefix), k)
			out = append(out, p)
			out = append(out, paths(v[k], p)...)
		}
	case []any:
		for i, e := range v {
			p := append(slices.Clone(prefix), i)
			out = append(out, p)
			out = append(out, paths(e, p)...)
		}
	}
	return out
}

// objects lists the path of every object inside v, v included.
func objects(v any, prefix []any) [][]any {
	var out [][]any
	switch v := v.(type) {
	case map[string]any:
		out = append(out, slices.Clone(prefix))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, objects(v[k], append(slices.Clone(prefix), k))...)
		}
	case []any:
		for i, e := range v {
			out = append(out, objects(e, append(slices.Clone(prefix), i))...)
		}
	}
	return out
}

// schemaAt is the schema node of the value at path p of a job.
func schemaAt(t *testing.T, root map[string]any, p []any) map[string]any {
	t.Helper()
	node := resolve(t, root, root)
	for _, step := range p {
		var next any
		switch s := step.(type) {
		case string:
			props, _ := node["properties"].(map[string]any)
			next = props[s]
			if next == nil {
				next = node["additionalProperties"]
			}
		case int:
			next = node["items"]
		}
		m, ok := next.(map[string]any)
		if !ok {
			return map[string]any{}
		}
		node = resolve(t, root, m)
	}
	return node
}

func get(doc any, p []any) any {
	for _, step := range p {
		switch s := step.(type) {
		case string:
			doc = doc.(map[string]any)[s]
		case int:
			doc = doc.([]any)[s]
		}
	}
	return doc
}

func set(doc map[string]any, p []any, v any) {
	parent := get(doc, p[:len(p)-1])
	switch s := p[len(p)-1].(type) {
	case string:
		parent.(map[string]any)[s] = v
	case int:
		parent.([]any)[s] = v
	}
}

// setOrCreate sets the member at p, creating the first input variable when
// the job has none.
func setOrCreate(doc map[string]any, p []any, v any) {
	action := doc["action"].(map[string]any)
	if ins, _ := action["inputVariables"].([]any); len(ins) == 0 && len(p) > 2 && p[1] == "inputVariables" {
		action["inputVariables"] = []any{map[string]any{"name": "x", "value": ""}}
	}
	set(doc, p, v)
}

func remove(doc map[string]any, p []any) {
	parentPath := p[:len(p)-1]
	switch s := p[len(p)-1].(type) {
	case string:
		delete(get(doc, parentPath).(map[string]any), s)
	case int:
		list := get(doc, parentPath).([]any)
		set(doc, parentPath, slices.Delete(slices.Clone(list), s, s+1))
	}
}

func putOpt(m map[string]any, key string, v, absent any) {
	if v == absent {
		delete(m, key)
		return
	}
	m[key] = v
}

func showOpt(v, absent any) string {
	if v == absent {
		return "absent"
	}
	return show(v)
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func pathString(p []any) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	if b.Len() == 0 {
		return "the job"
	}
	return b.String()
}

func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = clone(e)
		}
		return out
	}
	return v
}
