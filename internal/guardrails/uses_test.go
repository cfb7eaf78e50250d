package guardrails

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestScanReportsUses(t *testing.T) {
	tests := []struct {
		name       string
		source     string
		inputs     []string
		caps       []string
		connectors []string
		want       []at // findings
	}{
		{"nothing", "return 1", nil, nil, nil, nil},
		{"api call", "return api.get('crm', '/x').json", nil, []string{"api"}, []string{"crm"}, nil},
		{"every method, bracket and template", "api.post('b', '/', {})\napi['put'](\"a\", '/')\napi.patch(`c`, '/')\napi.delete('b', '/x')",
			nil, []string{"api"}, []string{"a", "b", "c"}, nil},
		{"optional chaining", "api?.get('x', '/')\napi.get?.('y', '/')\napi?.['get']('z', '/')", nil, []string{"api"}, []string{"x", "y", "z"}, nil},
		{"through globalThis", "globalThis.api.get('g', '/')\nglobalThis['kv'].get('k')", nil, []string{"api", "kv"}, []string{"g"}, nil},
		{"kv and approval", "kv.set('a', 1)\nconst ok = approval.request({amount: 10})\nkv['delete']('a')", nil, []string{"approval", "kv"}, nil, nil},
		{"connector not a literal", "const c = 'crm'\napi.get(c, '/')\napi.post('a' + 'b', '/')\napi.get(`${c}`)\napi.get()",
			nil, []string{"api"}, nil, []at{{CodeConnectorUnknown, 2, 9}, {CodeConnectorUnknown, 3, 10}, {CodeConnectorUnknown, 4, 9}, {CodeConnectorUnknown, 5, 8}}},
		{"spread arguments", "const a = ['crm']\napi.get(...a)", nil, []string{"api"}, nil, []at{{CodeConnectorUnknown, 2, 12}}}, // at the spread expression
		{"api used indirectly", "const g = api.get\nhelper(api)\nconst {post} = api", nil, []string{"api"}, nil,
			[]at{{CodeConnectorUnknown, 1, 11}, {CodeConnectorUnknown, 2, 8}, {CodeConnectorUnknown, 3, 16}}},
		{"computed method", "const m = 'get'\napi[m]('crm', '/')", nil, []string{"api"}, nil, []at{{CodeConnectorUnknown, 2, 1}}},
		{"kv indirectly is still a use", "const store = kv\nreturn store.get('a')", nil, []string{"kv"}, nil, nil},
		{"arguments are walked", "api.get('crm', process.env.X)", nil, []string{"api"}, []string{"crm"}, []at{{CodeProcess, 1, 16}}},
		{"a local api is the author's", "const api = {get: (a) => a}\nreturn api.get('crm')", nil, nil, nil, nil},
		{"a parameter kv is the author's", "function f(kv) { return kv.get('a') }\nreturn f(new Map())", nil, nil, nil, nil},
		{"an input named api is the author's", "return api.get('crm')", []string{"api"}, nil, nil, nil},
		{"a shadowed globalThis is the author's", "const globalThis = {api: {get() {}}}\nglobalThis.api.get('crm')", nil, nil, nil, nil},
		{"shadowing ends with its block", "{ let kv = 1 }\nkv.get('a')", nil, []string{"kv"}, nil, nil},
		{"properties are not uses", "const o = {api: 1, kv: 2}\nreturn [o.api, o.kv, o.approval]", nil, nil, nil, nil},
		{"typeof is a feature test", "return [typeof api, typeof globalThis.kv, typeof approval]", nil, nil, nil, nil},
		{"capabilities and console need no grant", "console.log(capabilities.join(','))", nil, nil, nil, nil},
		{"strings and comments", "// api.get('crm')\nreturn 'kv.set(1)'", nil, nil, nil, nil},
		{"duplicates once", "api.get('crm', '/a')\napi.post('crm', '/b')\nkv.get('a')\nkv.get('b')", nil, []string{"api", "kv"}, []string{"crm"}, nil},
		{"a long name is no connector", "api.get('" + strings.Repeat("c", MaxConnectorBytes+1) + "', '/')", nil, []string{"api"}, nil, []at{{CodeConnectorUnknown, 1, 9}}},
		{"in nested functions and classes", "class C { m() { return api.get('in-class', '/') } }\nconst f = () => kv.get('a')", nil, []string{"api", "kv"}, []string{"in-class"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings, uses, err := Scan(tt.source, tt.inputs)
			if err != nil {
				t.Fatalf("Scan(%q): %v", tt.source, err)
			}
			if uses.Capabilities == nil || uses.Connectors == nil {
				t.Fatalf("nil slices in %+v", uses)
			}
			if !slices.Equal(uses.Capabilities, orEmpty(tt.caps)) || !slices.Equal(uses.Connectors, orEmpty(tt.connectors)) {
				t.Errorf("Scan(%q) uses %+v, want capabilities %v connectors %v", tt.source, uses, tt.caps, tt.connectors)
			}
			if fmt.Sprint(positions(findings)) != fmt.Sprint(tt.want) {
				t.Errorf("Scan(%q) findings\n got %v\nwant %v", tt.source, positions(findings), tt.want)
			}
			for _, f := range findings {
				if f.Code == CodeConnectorUnknown && (f.Severity != SeverityWarning || !strings.Contains(f.Message, "connector")) {
					t.Errorf("finding %+v: want a warning about the connector", f)
				}
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestScanCapsConnectors(t *testing.T) {
	var b strings.Builder
	for i := range MaxConnectors + 10 {
		fmt.Fprintf(&b, "api.get('c%03d', '/')\n", i)
	}
	findings, uses, err := Scan(b.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(uses.Connectors) != MaxConnectors || uses.Connectors[0] != "c000" {
		t.Errorf("%d connectors listed (first %q), want the first %d", len(uses.Connectors), uses.Connectors[0], MaxConnectors)
	}
	if want := []at{{CodeConnectorUnknown, MaxConnectors + 1, 9}}; fmt.Sprint(positions(findings)) != fmt.Sprint(want) {
		t.Errorf("findings %v, want %v", positions(findings), want)
	}
}

// The report a worker sends back stays small whatever the source: the
// uses are bounded like the findings (see workerpool's report frame).
func TestReportUsesStaySmall(t *testing.T) {
	var b strings.Builder
	for i := range 3 * MaxConnectors {
		fmt.Fprintf(&b, "api.get('%s%03d', '/')\n", strings.Repeat("\u0001", MaxConnectorBytes-3), i)
	}
	b.WriteString("kv.get('a'); approval.request({})\n")
	r := Inspect(b.String(), nil, sandbox.Limits{}.WithDefaults())
	out, err := json.Marshal(r.Uses)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 48<<10 {
		t.Errorf("the uses of a report are %d bytes of JSON, over 48 KiB", len(out))
	}
	if len(r.Uses.Capabilities) != 3 || len(r.Uses.Connectors) != MaxConnectors {
		t.Errorf("uses %d capabilities, %d connectors", len(r.Uses.Capabilities), len(r.Uses.Connectors))
	}
}

func TestInspectUsesAreNeverNil(t *testing.T) {
	l := sandbox.Limits{}.WithDefaults()
	for _, src := range []string{"", "return (", "}; x()", "return 1"} {
		r := Inspect(src, nil, l)
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"uses":{"capabilities":[],"connectors":[]}`) {
			t.Errorf("Inspect(%q) = %s, want empty uses", src, out)
		}
	}
}
