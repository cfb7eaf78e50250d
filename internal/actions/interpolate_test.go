package actions

import (
	"strings"
	"testing"
)

func TestInterpolate(t *testing.T) {
	vars := map[string]string{
		"nome":         "Ana",
		"contact.name": "Ana Souza",
		"cpf":          "123.456.789-09",
		"x":            "SECRET",
		"ref":          "{{x}}",
		"self":         "{{self}}",
		"open":         "{{",
		"close":        "}}",
		"js":           `'); process.exit(1); ('`,
		"empty":        "",
		"ação":         "ok",
	}
	for _, tc := range []struct{ in, want string }{
		// the basics
		{"", ""},
		{"sem referências", "sem referências"},
		{"{{nome}}", "Ana"},
		{"Olá, {{nome}}!", "Olá, Ana!"},
		{"{{ nome }}", "Ana"},
		{"{{\tnome\n}}", "Ana"},
		{"{{   contact.name}}", "Ana Souza"},
		{"{{contact.name}} / {{cpf}}", "Ana Souza / 123.456.789-09"},
		{"{{nome}}{{nome}}", "AnaAna"},
		{"{{ação}}", "ok"},
		{"[{{missing}}]", "[]"},
		{"[{{contact}}]", "[]"}, // a dotted name is a plain key: no lookup into "contact"
		{"[{{empty}}]", "[]"},
		{"{{Nome}}", ""}, // names are case-sensitive
		// one pass: values are never read as templates
		{"{{ref}}", "{{x}}"},
		{"{{self}}", "{{self}}"},
		{"{{open}}x{{close}}", "{{x}}"},
		{"{{x{{empty}}}}", "{{x}}"},
		{"{{open}} x }}", "{{ x }}"},
		// values are data: no escaping, no evaluation
		{"{{js}}", `'); process.exit(1); ('`},
		{"${nome} `{{nome}}`", "${nome} `Ana`"},
		// malformed braces stay literal
		{"{{", "{{"},
		{"}}", "}}"},
		{"{{ }}", "{{ }}"},
		{"{{}}", "{{}}"},
		{"{{nome}", "{{nome}"},
		{"{nome}}", "{nome}}"},
		{"{nome}", "{nome}"},
		{"{{nome cpf}}", "{{nome cpf}}"},
		{"{{{nome}}}", "{Ana}"},
		{"{{{{nome}}}}", "{{Ana}}"},
		{"{{nome{{cpf}}", "{{nome123.456.789-09"},
		{"a }} b {{ c", "a }} b {{ c"},
		{"{{nome}}}}", "Ana}}"},
		{"{{{{", "{{{{"},
	} {
		if got := Interpolate(tc.in, vars); got != tc.want {
			t.Errorf("Interpolate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Interpolate("{{a}}", nil); got != "" {
		t.Errorf("nil vars: %q", got)
	}
}

func TestExpandStopsAtTheLimit(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	lookups := 0
	got, cutted := expand(strings.Repeat("{{v}}", 10000), func(string) string { lookups++; return big }, 100)
	if !cutted || len(got) > 100 || !strings.HasSuffix(got, "…") {
		t.Fatalf("expand = %d bytes (cut %v), want at most 100 ending in …", len(got), cutted)
	}
	if lookups > 1 {
		t.Fatalf("expand went on for %d lookups past the limit", lookups)
	}
}

func FuzzInterpolate(f *testing.F) {
	for _, s := range []string{"{{a}}", "{{ a.b }}", "{{{a}}}", "{{", "}}{{", "x{{a}}y{{b}}z", "{{a b}}"} {
		f.Add(s, "V")
	}
	f.Fuzz(func(t *testing.T, template, value string) {
		vars := map[string]string{"a": value, "a.b": value, "b": "{{a}}"}
		got := Interpolate(template, vars)
		if got != Interpolate(template, vars) {
			t.Fatal("not deterministic")
		}
		if len(Interpolate(template, nil)) > len(template) {
			t.Fatal("with no variables the text can only shrink")
		}
		if !strings.Contains(template, "{{") && got != template {
			t.Fatalf("a template without {{ must stay as is: %q -> %q", template, got)
		}
	})
}
