package jsident

import "testing"

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"cpf", true}, {"_x", true}, {"$y", true}, {"nome2", true}, {"ação", true}, {"café_com_leite", true},
		{"", false}, {"2x", false}, {"a-b", false}, {"a b", false}, {"a.b", false}, {"class", false},
		{"execute", false}, {"let", false}, {"eval", false}, {"arguments", false}, {"x\u00a0", false},
		{string(make([]byte, MaxLen+1)), false}, {"\xff", false},
	} {
		err := Check(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
