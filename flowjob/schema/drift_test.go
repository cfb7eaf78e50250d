package schema_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/flowjob/schema"
)

// The schemas follow the Go types field by field: a field added to,
// renamed in or removed from flowjob.Job or flowjob.Result (or any struct
// inside them) without the same change to the schema fails here, and so
// does a change of JSON type. The walk is by reflection, so new types
// inside a Job or Result are covered without touching this test.
func TestSchemasCoverGoTypes(t *testing.T) {
	consts := goConstants(t)
	jobDoc := schemaDoc(t, schema.Job())
	resultDoc := schemaDoc(t, schema.Result())
	(&walker{t: t, root: jobDoc, consts: consts}).check("job", jobDoc, reflect.TypeFor[flowjob.Job](), false)
	(&walker{t: t, root: resultDoc, consts: consts}).check("result", resultDoc, reflect.TypeFor[flowjob.Result](), true)
}

// walker compares one Go type with one schema node, recursively.
type walker struct {
	t      *testing.T
	root   map[string]any
	consts map[string][]string // named string type → its constants' values
	// encoded: the JSON is what encoding/json writes (results), so a field
	// without omitempty is always present and must be required. For jobs
	// required-ness is what flowjob.Decode enforces: TestJobSchemaAgreesWithDecode.
	encoded bool
}

func (w *walker) check(path string, node map[string]any, typ reflect.Type, encoded bool) {
	w.encoded = encoded
	w.walk(path, node, typ)
}

func (w *walker) walk(path string, node map[string]any, typ reflect.Type) {
	t := w.t
	t.Helper()
	node = resolve(t, w.root, node)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == reflect.TypeFor[json.RawMessage]() {
		// Any JSON value: the schema must not narrow it.
		if _, ok := node["type"]; ok {
			t.Errorf("%s: Go type json.RawMessage holds any JSON value, but the schema says type %v", path, node["type"])
		}
		return
	}
	want := jsonType(typ)
	if want == "" {
		t.Errorf("%s: Go type %s has no JSON Schema mapping: teach jsonType in drift_test.go", path, typ)
		return
	}
	got := schemaTypes(node)
	if !slices.Contains(got, want) {
		t.Errorf("%s: Go type %s encodes as %q, but the schema says type %v", path, typ, want, got)
	}
	for _, g := range got {
		if g != want && g != "null" {
			t.Errorf("%s: the schema also allows type %q, which Go type %s never is", path, g, typ)
		}
	}
	switch {
	case typ == reflect.TypeFor[time.Time]():
		if node["format"] != "date-time" {
			t.Errorf("%s: a time.Time needs \"format\": \"date-time\"", path)
		}
	case typ.Kind() == reflect.Struct:
		w.object(path, node, typ)
	case typ.Kind() == reflect.Map:
		if typ.Key().Kind() != reflect.String {
			t.Errorf("%s: map key %s is not a string", path, typ.Key())
		}
		sub, ok := node["additionalProperties"].(map[string]any)
		if !ok {
			t.Errorf("%s: a map needs \"additionalProperties\" with the values' schema", path)
			return
		}
		w.walk(path+"[*]", sub, typ.Elem())
	case typ.Kind() == reflect.Slice:
		sub, ok := node["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: a slice needs \"items\"", path)
			return
		}
		w.walk(path+"[]", sub, typ.Elem())
	case typ.Kind() == reflect.String && typ.PkgPath() != "":
		w.enum(path, node, typ.Name())
	}
}

func (w *walker) object(path string, node map[string]any, typ reflect.Type) {
	t := w.t
	props, _ := node["properties"].(map[string]any)
	fields := jsonFields(typ)
	for name := range fields {
		if _, ok := props[name]; !ok {
			t.Errorf("%s: Go field %s.%s (json %q) is missing from the schema's properties", path, typ.Name(), fields[name].goName, name)
		}
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			t.Errorf("%s: schema property %q has no field in Go type %s", path, name, typ.Name())
		}
	}
	required := map[string]bool{}
	if list, ok := node["required"].([]any); ok {
		for _, r := range list {
			required[r.(string)] = true
		}
	}
	for name := range required {
		if _, ok := fields[name]; !ok {
			t.Errorf("%s: required %q has no field in Go type %s", path, name, typ.Name())
		}
	}
	for name, f := range fields {
		sub, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		if w.encoded && required[name] == f.omitempty {
			t.Errorf("%s.%s: Go writes it %s, so the schema must %s require it", path, name,
				map[bool]string{true: "only when set (omitempty)", false: "always"}[f.omitempty],
				map[bool]string{true: "not", false: ""}[f.omitempty])
		}
		w.walk(path+"."+name, sub, f.typ)
	}
}

// enum checks that a named string type's constants are the schema's enum
// (or const). The schema may add "" where Go writes the zero value (a
// result's context when the job's was invalid).
func (w *walker) enum(path string, node map[string]any, typeName string) {
	values, ok := w.consts[typeName]
	if !ok {
		w.t.Errorf("%s: Go type %s has no constants: an enum-like type needs them, or teach drift_test.go", path, typeName)
		return
	}
	got := enumOf(node)
	got = slices.DeleteFunc(got, func(s string) bool { return s == "" })
	slices.Sort(got)
	want := slices.Sorted(slices.Values(values))
	if !slices.Equal(got, want) {
		w.t.Errorf("%s: the schema's enum %q differs from the constants of Go type %s %q", path, got, typeName, want)
	}
}

func enumOf(node map[string]any) []string {
	var out []string
	if list, ok := node["enum"].([]any); ok {
		for _, v := range list {
			out = append(out, fmt.Sprint(v))
		}
	}
	if c, ok := node["const"].(string); ok {
		out = append(out, c)
	}
	return out
}

type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("%s: not loaded", path)
}

type goField struct {
	goName    string
	typ       reflect.Type
	omitempty bool
}

// jsonFields lists the JSON members of struct typ as encoding/json sees
// them (embedded structs flattened, "-" skipped).
func jsonFields(typ reflect.Type) map[string]goField {
	out := map[string]goField{}
	for _, f := range reflect.VisibleFields(typ) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = goField{goName: f.Name, typ: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")}
	}
	return out
}

// jsonType is the JSON Schema type encoding/json gives a Go type.
func jsonType(typ reflect.Type) string {
	if typ == reflect.TypeFor[time.Time]() {
		return "string"
	}
	switch typ.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

func schemaTypes(node map[string]any) []string {
	switch v := node["type"].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			out = append(out, fmt.Sprint(s))
		}
		return out
	}
	return nil
}

// goConstants reads package flowjob's string constants from its source
// (reflection cannot list constants): typed ones grouped by their type's
// name, and the error codes (untyped, named Code...) under "errorCode".
func goConstants(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join("..", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// Imports are not needed for constants: none is loaded, and the errors
	// of the code that uses them are ignored.
	conf := types.Config{Importer: noImports{}, Error: func(error) {}}
	pkg, _ := conf.Check("github.com/flowscript/flowscript/flowjob", fset, files, nil)
	out := map[string][]string{}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			continue
		}
		switch typ := c.Type().(type) {
		case *types.Named:
			if typ.Obj().Pkg() == pkg {
				out[typ.Obj().Name()] = append(out[typ.Obj().Name()], constant.StringVal(c.Val()))
			}
		case *types.Basic:
			if strings.HasPrefix(name, "Code") {
				out["errorCode"] = append(out["errorCode"], constant.StringVal(c.Val()))
			}
		}
	}
	if len(out["Status"]) == 0 || len(out["errorCode"]) == 0 {
		t.Fatalf("reading flowjob's constants found too little: %v", out)
	}
	return out
}

// Constants that are not a Go type's: the error codes and the action type.
func TestSchemasListGoConstants(t *testing.T) {
	consts := goConstants(t)
	jobDoc, resultDoc := schemaDoc(t, schema.Job()), schemaDoc(t, schema.Result())

	codes := enumOf(at(t, resultDoc, "error", "code"))
	slices.Sort(codes)
	want := slices.Sorted(slices.Values(consts["errorCode"]))
	if !slices.Equal(codes, want) {
		t.Errorf("result error.code enum %q differs from flowjob's Code constants %q", codes, want)
	}
	if got := enumOf(at(t, jobDoc, "action", "type")); !slices.Equal(got, []string{flowjob.ActionTypeExecuteScript}) {
		t.Errorf("job action.type is %q, want const %q", got, flowjob.ActionTypeExecuteScript)
	}
}

// The caps the schema can say are flowjob's caps. maxLength counts
// characters where flowjob counts bytes: the same number is a ceiling that
// refuses nothing flowjob accepts.
func TestSchemaCapsAreFlowjobs(t *testing.T) {
	jobDoc, resultDoc := schemaDoc(t, schema.Job()), schemaDoc(t, schema.Result())
	for _, c := range []struct {
		doc     map[string]any
		path    []string
		keyword string
		want    int
	}{
		{jobDoc, []string{"version"}, "maximum", flowjob.ContractVersion},
		{jobDoc, []string{"id"}, "maxLength", flowjob.MaxIDBytes},
		{jobDoc, []string{"sessionId"}, "maxLength", flowjob.MaxRefBytes},
		{jobDoc, []string{"flowId"}, "maxLength", flowjob.MaxRefBytes},
		{jobDoc, []string{"blockId"}, "maxLength", flowjob.MaxRefBytes},
		{jobDoc, []string{"defaultExceptionBlockId"}, "maxLength", flowjob.MaxRefBytes},
		{jobDoc, []string{"variables"}, "maxProperties", flowjob.MaxVariables},
		{jobDoc, []string{"variables", "propertyNames"}, "maxLength", flowjob.MaxNameBytes},
		{jobDoc, []string{"action", "source"}, "maxLength", flowjob.MaxSourceBytes},
		{jobDoc, []string{"action", "inputVariables"}, "maxItems", flowjob.MaxInputVariables},
		{jobDoc, []string{"action", "inputVariables", "items", "name"}, "maxLength", flowjob.MaxInputNameBytes},
		{jobDoc, []string{"action", "outputVariable"}, "maxLength", flowjob.MaxNameBytes},
		{jobDoc, []string{"action", "errorVariable"}, "maxLength", flowjob.MaxNameBytes},
		{jobDoc, []string{"action", "errorMessage"}, "maxLength", flowjob.MaxErrorMessageBytes},
		{resultDoc, []string{"jobId"}, "maxLength", flowjob.MaxIDBytes},
	} {
		node := at(t, c.doc, c.path...)
		got, ok := node[c.keyword].(float64)
		if !ok || int(got) != c.want {
			t.Errorf("%s %s is %v, want %d", strings.Join(c.path, "."), c.keyword, node[c.keyword], c.want)
		}
	}
}

// at walks from doc through property names ("items" and "propertyNames"
// step into those keywords), resolving $ref on the way.
func at(t *testing.T, doc map[string]any, path ...string) map[string]any {
	t.Helper()
	node := resolve(t, doc, doc)
	for _, step := range path {
		var next any
		switch step {
		case "items", "propertyNames":
			next = node[step]
		default:
			props, _ := node["properties"].(map[string]any)
			next = props[step]
		}
		m, ok := next.(map[string]any)
		if !ok {
			t.Fatalf("the schema has nothing at %s", strings.Join(path, "."))
		}
		node = resolve(t, doc, m)
	}
	return node
}
