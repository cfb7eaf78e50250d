package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
)

// listAll walks every page of q and returns the templates in order,
// checking that no page is over its limit and only the last has no Next.
func listAll(t *testing.T, s templates.Store, q templates.ListQuery) []templates.Template {
	t.Helper()
	all := []templates.Template{}
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("List never reached a last page")
		}
		page, err := s.List(ctx(t), q)
		if err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		if limit := q.Limit; limit > 0 && limit <= templates.MaxPageSize && len(page.Templates) > limit {
			t.Fatalf("page of %d templates, over the limit %d", len(page.Templates), limit)
		}
		all = append(all, page.Templates...)
		if page.Next == nil {
			return all
		}
		if len(page.Templates) == 0 || *page.Next != templates.PositionOf(page.Templates[len(page.Templates)-1]) {
			t.Fatalf("Next = %+v, want the position of the page's last template", page.Next)
		}
		q.After = page.Next
	}
}

func ids(list []templates.Template) []uuid.UUID {
	out := make([]uuid.UUID, len(list))
	for i, tpl := range list {
		out[i] = tpl.ID
	}
	return out
}

// newestFirst is created in list order.
func newestFirst(created []templates.Template) []uuid.UUID {
	out := make([]uuid.UUID, len(created))
	for i, tpl := range created {
		out[len(created)-1-i] = tpl.ID
	}
	return out
}

func testPages(t *testing.T, s templates.Store) {
	var created []templates.Template
	for i := range 7 {
		created = append(created, mustCreate(t, s, draft(i)))
	}
	var sizes []int
	q := templates.ListQuery{Limit: 3}
	for {
		page, err := s.List(ctx(t), q)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.Templates))
		if page.Next == nil {
			break
		}
		q.After = page.Next
	}
	if fmt.Sprint(sizes) != "[3 3 1]" {
		t.Errorf("pages of %v templates, want [3 3 1]", sizes)
	}
	// A last page that is exactly full says so: no empty page after it.
	page, err := s.List(ctx(t), templates.ListQuery{Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Templates) != 7 || page.Next != nil {
		t.Errorf("limit 7 over 7 templates: %d templates, next %v; want 7 and no next", len(page.Templates), page.Next)
	}
	got := ids(listAll(t, s, templates.ListQuery{Limit: 2}))
	if fmt.Sprint(got) != fmt.Sprint(newestFirst(created)) {
		t.Errorf("walk = %v, want newest first %v", got, newestFirst(created))
	}
}

func testPageSizeBounds(t *testing.T, s templates.Store) {
	n := templates.DefaultPageSize + 1
	for i := range n {
		mustCreate(t, s, draft(i))
	}
	for _, tt := range []struct{ limit, want int }{{0, templates.DefaultPageSize}, {-1, templates.DefaultPageSize}, {1, 1}, {n + 100, n}} {
		page, err := s.List(ctx(t), templates.ListQuery{Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Templates) != tt.want {
			t.Errorf("limit %d: %d templates, want %d", tt.limit, len(page.Templates), tt.want)
		}
	}
}

func testPageBytes(t *testing.T, s templates.Store) {
	big := templates.Draft{Name: "big", Source: "return '" + strings.Repeat("x", 1000) + "'"}
	weight := len(big.Name) + len(big.Source)
	for range 10 {
		mustCreate(t, s, big)
	}
	budget := 3*weight + 1 // a fourth template passes it
	var sizes []int
	q := templates.ListQuery{Limit: 100, MaxBytes: budget}
	for {
		page, err := s.List(ctx(t), q)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.Templates))
		if page.Next == nil {
			break
		}
		q.After = page.Next
	}
	if fmt.Sprint(sizes) != "[4 4 2]" {
		t.Errorf("pages of %v templates with a budget of %d bytes (%d each), want [4 4 2]", sizes, budget, weight)
	}
	// A template over the budget still comes, alone.
	page, err := s.List(ctx(t), templates.ListQuery{MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Templates) != 1 || page.Next == nil {
		t.Errorf("budget of 1 byte: %d templates, next %v; want 1 and a next page", len(page.Templates), page.Next)
	}
}

// A walk sees each template that existed when it began exactly once,
// whatever is created or deleted meanwhile: new ones are newer than any
// position, and a position stays valid when its template is deleted.
func testWalkStable(t *testing.T, s templates.Store) {
	var created []templates.Template
	for i := range 10 {
		created = append(created, mustCreate(t, s, draft(i)))
	}
	first, err := s.List(ctx(t), templates.ListQuery{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		mustCreate(t, s, draft(100+i))
	}
	// The template the cursor points at goes away.
	if err := s.Delete(ctx(t), first.Templates[3].ID, 0); err != nil {
		t.Fatal(err)
	}
	rest := listAll(t, s, templates.ListQuery{Limit: 4, After: first.Next})
	got := append(ids(first.Templates), ids(rest)...)
	if want := newestFirst(created); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("walk during inserts = %v\nwant %v", got, want)
	}
	if n := len(listAll(t, s, templates.ListQuery{})); n != 14 {
		t.Errorf("a new walk lists %d templates, want 14", n)
	}
}

func testNameFilter(t *testing.T, s templates.Store) {
	names := []string{"Validação de CPF", "cpf: formatar", "CNPJ", "Enviar e-mail", "VALIDAÇÃO DE CNPJ", "100% off_line", `dir\sub`}
	byName := map[string]templates.Template{}
	for _, name := range names {
		byName[name] = mustCreate(t, s, templates.Draft{Name: name, Source: "return 1"})
	}
	for _, tt := range []struct {
		filter string
		want   []string // newest first
	}{
		{"cpf", []string{"cpf: formatar", "Validação de CPF"}},
		{"CPF", []string{"cpf: formatar", "Validação de CPF"}},
		{"validação", []string{"VALIDAÇÃO DE CNPJ", "Validação de CPF"}},
		{"cnpj", []string{"VALIDAÇÃO DE CNPJ", "CNPJ"}},
		{"%", []string{"100% off_line"}},
		{"_", []string{"100% off_line"}},
		{`\`, []string{`dir\sub`}},
		{`r\s`, []string{`dir\sub`}},
		{"e-mail", []string{"Enviar e-mail"}},
		{"nothing like it", nil},
	} {
		got := listAll(t, s, templates.ListQuery{Name: tt.filter, Limit: 1})
		var gotNames []string
		for _, tpl := range got {
			gotNames = append(gotNames, tpl.Name)
			if tpl.ID != byName[tpl.Name].ID {
				t.Errorf("filter %q: %s has the wrong id", tt.filter, tpl.Name)
			}
		}
		if fmt.Sprint(gotNames) != fmt.Sprint(tt.want) {
			t.Errorf("name filter %q = %q, want %q", tt.filter, gotNames, tt.want)
		}
	}
}
