package sandbox

import (
	"strings"
	"testing"
)

func TestFeaturesAreReadFromTheTree(t *testing.T) {
	for _, c := range []struct {
		src  string
		want features
	}{
		{"return 1 + 1", features{}},
		{"return 'console api kv JSON eval this globalThis' // console", features{}},
		{"console.log(1)", features{host: true}},
		{"return typeof api", features{host: true}},
		{"return kv && capabilities && approval", features{host: true}},
		{"return JSON.stringify({})", features{}},
		{"return typeof eval", features{}},
		{"return typeof GoError", features{}},
		{"return globalThis", features{host: true}},
		{"return (function () { return this })()", features{host: true}},
		{"class A { m() { return this } } return 1", features{host: true}},
		{"function* g() {} return 1", features{generators: true}},
		{"return ({ *g() {} })", features{generators: true}},
		{"return ({ async f() {} })", features{generators: true}},
		{"class A { async m() {} static *g() {} } return 1", features{generators: true}},
		{"const f = async () => 1; return 1", features{generators: true}},
	} {
		p, err := Compile(c.src, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if p.features != c.want {
			t.Errorf("%s: features %+v, want %+v", c.src, p.features, c.want)
		}
	}
	// An input named like a host global counts: it is in the tree.
	p, err := Compile("return 1", []string{"console"})
	if err != nil || !p.features.host {
		t.Errorf("an input named console: features %+v, %v", p.features, err)
	}
}

// TestPiecesLeftOutAreUnreachable: what a runtime leaves out for a program
// that cannot reach it is still locked on every path a program can take.
func TestPiecesLeftOutAreUnreachable(t *testing.T) {
	for name, src := range map[string]string{
		"generator method":       "return Object.getPrototypeOf(({ *g() {} }).g).constructor('yield 1')",
		"async method":           "return Object.getPrototypeOf(({ async f() {} }).f).constructor('return 1')",
		"async class method":     "class A { async m() {} } return Object.getPrototypeOf(new A().m).constructor('return 1')",
		"static generator":       "class A { static *g() {} } return Object.getPrototypeOf(A.g).constructor('yield 1')",
		"async arrow":            "return Object.getPrototypeOf(async () => 1).constructor('return 1')",
		"async generator":        "return Object.getPrototypeOf(async function* () {}).constructor('yield 1')",
		"plain function":         "return (function () {}).constructor('return 1')()",
		"arrow function":         "return (() => 1).constructor('return 1')()",
		"a class":                "return (class {}).constructor('return 1')()",
		"a built-in's ctor":      "return [].map.constructor('return 1')()",
		"a bound function":       "return (function () {}).bind(null).constructor('return 1')()",
		"Function by its name":   "return Function('return 1')()",
		"the prototype's ctor":   "return Object.getPrototypeOf(Math.max).constructor('return 1')()",
		"a getter of a built-in": "return Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get.constructor('return 1')()",
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, src)
			if res.Err == nil || !strings.Contains(res.Err.Message, "Code generation from strings") {
				if res.Err != nil && (res.Err.Code == CodeSyntaxError || res.Err.Code == CodeAsyncUnsupported) {
					return // this engine lacks the syntax: nothing to reach
				}
				t.Fatalf("got %q, %+v; want the code generation error", res.Output, res.Err)
			}
		})
	}
	for name, c := range map[string]struct{ src, want string }{
		"the global object through this": {"return [typeof this.console, typeof this.api, 'eval' in this, 'GoError' in this, typeof this.JSON.parse].join()", "object,object,false,false,function"},
		"the global object by name":      {"return [typeof globalThis.console, 'eval' in globalThis, 'GoError' in globalThis].join()", "object,false,false"},
		"a sloppy callback's this":       {"return [0].map(function () { return typeof this.kv + ('eval' in this) })[0]", "objectfalse"},
		"eval by name":                   {"return typeof eval + typeof GoError", "undefinedundefined"},
		"an object without naming JSON":  {"return {a: [1, 'x'], b: null}", `{"a":[1,"x"],"b":null}`},
		"the sandbox's JSON.parse":       {"try { JSON.parse('{') } catch (e) { return e.message }", "Expected property name or '}' in JSON at position 1"},
		// An undeclared name is looked up through Object.prototype, so this
		// getter hands the script the global object without naming it.
		"the global object through an accessor": {globalByAccessor + "return [typeof G['ev' + 'al'], 'GoError' in G, typeof G.console].join()", "undefined,false,undefined"},
		"JSON replaced through an accessor":     {globalByAccessor + "G['JS' + 'ON'] = {stringify() { return 'mine' }}; return {a: [1]}", `{"a":[1]}`},
		"Object.defineProperty deleted":         {"delete Object.defineProperty; return [1, 2]", "[1,2]"},
	} {
		t.Run(name, func(t *testing.T) { wantOutput(t, run(t, c.src), c.want) })
	}
}

// globalByAccessor makes every undeclared G the global object.
const globalByAccessor = "Object.defineProperty(Object.prototype, 'G', {get: Object.prototype.valueOf}); "
