package jsident

import (
	"testing"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"cpf", true}, {"_x", true}, {"$y", true}, {"nome2", true}, {"ação", true}, {"café_com_leite", true},
		{"", false}, {"2x", false}, {"a-b", false}, {"a b", false}, {"a.b", false}, {"class", false},
		{"execute", false}, {"let", false}, {"eval", false}, {"arguments", false}, {"x\u00a0", false},
		{string(make([]byte, MaxLen+1)), false}, {"\xff", false},
		// ECMAScript's ID_Start and ID_Continue, not Go's letter classes
		{"℘", true}, {"℮", true}, {"゛", true}, {"x·", true}, {"x፩", true}, {"ⸯ", false}, {"xⸯ", false},
		{"$flowscript$marker", false}, {"$flowscript$generated", false}, {"$flowscriptx", true},
	} {
		err := Check(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// TestCheckFollowsTheParser compares Check with goja's lexer, which reads
// identifiers as ECMAScript says (ID_Start and ID_Continue), on every
// character of the Basic Multilingual Plane and of the planes above it
// that hold letters, as a name's first character and after "a".
func TestCheckFollowsTheParser(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 7
	}
	mismatches := 0
	for r := rune(0x80); r < 0x32000; r += rune(step) {
		if r >= 0xd800 && r <= 0xdfff {
			continue // not encodable in a Go string
		}
		for _, name := range []string{string(r), "a" + string(r)} {
			if got, want := Check(name) == nil, parsesAsOneName(name); got != want {
				if mismatches++; mismatches <= 20 {
					t.Errorf("Check(%q) (U+%04X) ok=%v, goja's parser ok=%v", name, r, got, want)
				}
			}
		}
	}
	if mismatches > 20 {
		t.Errorf("%d mismatches in all", mismatches)
	}
}

// parsesAsOneName reports whether goja's parser reads name as the one
// parameter of a function, spelled as given (whitespace around it would
// parse too).
func parsesAsOneName(name string) bool {
	prg, err := parser.ParseFile(nil, "", "function f("+name+") {}", 0)
	if err != nil {
		return false
	}
	params := prg.Body[0].(*ast.FunctionDeclaration).Function.ParameterList.List
	if len(params) != 1 {
		return false
	}
	id, ok := params[0].Target.(*ast.Identifier)
	return ok && id.Name.String() == name
}
