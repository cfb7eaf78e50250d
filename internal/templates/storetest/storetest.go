// Package storetest is the contract every templates.Store passes, in the
// manner of watermill's pubsub/tests: a store's own test calls Run with a
// constructor that returns a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
)

// NewStore returns a fresh, empty store that lives until the test ends
// (the constructor registers its own cleanup). MaxSourceBytes must be
// MaxSourceBytes below.
type NewStore func(t *testing.T) templates.Store

// MaxSourceBytes is the source cap the contract expects stores to be opened
// with (templates.Options.MaxSourceBytes).
const MaxSourceBytes = 4096

// Run runs the whole contract against stores from newStore.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s templates.Store)
	}{
		{"CreateThenGetRoundTrips", testCreateThenGet},
		{"EmptyListIsEmptyNotNil", testEmptyList},
		{"ListIsNewestFirst", testListOrder},
		{"UpdateKeepsIDAndCreatedAt", testUpdate},
		{"UpdateMissingIsNotFound", testUpdateMissing},
		{"DeleteRemoves", testDelete},
		{"DeleteMissingIsNotFound", testDeleteMissing},
		{"GetMissingIsNotFound", testGetMissing},
		{"InvalidDraftWritesNothing", testInvalidDraft},
		{"InvalidUpdateChangesNothing", testInvalidUpdate},
		{"NormalizesNameAndDescriptionOnly", testNormalize},
		{"KeepsAnyTextByteForByte", testText},
		{"ConcurrentWritesAllLand", testConcurrent},
		{"CanceledContextFails", testCanceled},
		{"Ping", testPing},
		{"PagesWalkTheWholeList", testPages},
		{"PageSizeDefaultsAndCaps", testPageSizeBounds},
		{"PageStopsAtItsTextBudget", testPageBytes},
		{"WalkIsStableUnderInsertsAndDeletes", testWalkStable},
		{"NameFilterIgnoresCase", testNameFilter},
		{"UpdateStoresANewVersion", testVersions},
		{"UpdateWithTheSameContentKeepsTheVersion", testUpdateUnchanged},
		{"VersionsPage", testVersionPages},
		{"VersionOfMissingTemplateOrNumber", testVersionMissing},
		{"DeleteRemovesVersions", testDeleteVersions},
		{"ConcurrentUpdatesNumberEveryVersion", testConcurrentUpdates},
		{"ConditionalWritesHoldOnlyAtTheirVersion", testConditionalWrites},
		{"ConcurrentConditionalUpdatesOneWins", testConcurrentConditionalUpdates},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newStore(t))
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func mustCreate(t *testing.T, s templates.Store, d templates.Draft) templates.Template {
	t.Helper()
	tpl, err := s.Create(ctx(t), d)
	if err != nil {
		t.Fatalf("Create(%+v): %v", d, err)
	}
	return tpl
}

func draft(i int) templates.Draft {
	return templates.Draft{
		Name:        fmt.Sprintf("template %d", i),
		Description: fmt.Sprintf("description %d", i),
		Source:      fmt.Sprintf("function execute(x) {\n  return x + %d\n}", i),
	}
}

func sameTemplate(t *testing.T, got, want templates.Template) {
	t.Helper()
	if got.ID != want.ID || got.Name != want.Name || got.Description != want.Description || got.Source != want.Source ||
		got.Version != want.Version || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("template differs\n got %+v\nwant %+v", got, want)
	}
}

func testCreateThenGet(t *testing.T, s templates.Store) {
	before := time.Now().Add(-time.Second)
	d := draft(1)
	created := mustCreate(t, s, d)
	if created.Version != 1 {
		t.Errorf("Version = %d, want 1 on a new template", created.Version)
	}
	if created.ID == uuid.Nil || created.ID.Version() != 7 {
		t.Errorf("ID = %v, want a UUIDv7", created.ID)
	}
	if created.Name != d.Name || created.Description != d.Description || created.Source != d.Source {
		t.Errorf("created %+v, want the draft's content %+v", created, d)
	}
	if created.CreatedAt.Before(before) || created.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("CreatedAt = %v, want about now", created.CreatedAt)
	}
	if !created.UpdatedAt.Equal(created.CreatedAt) {
		t.Errorf("UpdatedAt = %v, want CreatedAt %v on a new template", created.UpdatedAt, created.CreatedAt)
	}
	if created.CreatedAt.Location() != time.UTC || created.CreatedAt.Nanosecond()%1000 != 0 {
		t.Errorf("CreatedAt = %v, want UTC at microsecond precision", created.CreatedAt)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	sameTemplate(t, got, created)
}

func testEmptyList(t *testing.T, s templates.Store) {
	page, err := s.List(ctx(t), templates.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Templates == nil || len(page.Templates) != 0 || page.Next != nil {
		t.Errorf("List = %#v, want an empty non-nil slice and no next page", page)
	}
}

func testListOrder(t *testing.T, s templates.Store) {
	var created []templates.Template
	for i := range 6 {
		created = append(created, mustCreate(t, s, draft(i)))
	}
	list := listAll(t, s, templates.ListQuery{})
	if len(list) != len(created) {
		t.Fatalf("List has %d templates, want %d", len(list), len(created))
	}
	for i, got := range list {
		sameTemplate(t, got, created[len(created)-1-i])
	}
	// Updating does not move a template: the order is by creation.
	if _, err := s.Update(ctx(t), created[0].ID, draft(99), 0); err != nil {
		t.Fatal(err)
	}
	list = listAll(t, s, templates.ListQuery{})
	if list[len(list)-1].ID != created[0].ID {
		t.Errorf("after an update the oldest template is %v, want %v still last", list[len(list)-1].ID, created[0].ID)
	}
}

func testUpdate(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(1))
	d := templates.Draft{Name: "renamed", Description: "", Source: "return 2"}
	updated, err := s.Update(ctx(t), created.ID, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if updated.ID != created.ID || !updated.CreatedAt.Equal(created.CreatedAt) {
		t.Errorf("Update changed identity: %+v, was %+v", updated, created)
	}
	if updated.Name != d.Name || updated.Description != d.Description || updated.Source != d.Source {
		t.Errorf("Update stored %+v, want %+v", updated, d)
	}
	if updated.Version != 2 {
		t.Errorf("Version after an update = %d, want 2", updated.Version)
	}
	if updated.UpdatedAt.Before(created.UpdatedAt) {
		t.Errorf("UpdatedAt went back: %v < %v", updated.UpdatedAt, created.UpdatedAt)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, updated)
}

func testUpdateMissing(t *testing.T, s templates.Store) {
	_, err := s.Update(ctx(t), uuid.New(), draft(1), 0)
	if !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Update of a missing id: %v, want ErrNotFound", err)
	}
	if list := listAll(t, s, templates.ListQuery{}); len(list) != 0 {
		t.Errorf("Update of a missing id created %d templates", len(list))
	}
}

func testDelete(t *testing.T, s templates.Store) {
	keep := mustCreate(t, s, draft(1))
	gone := mustCreate(t, s, draft(2))
	if err := s.Delete(ctx(t), gone.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx(t), gone.ID); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx(t), gone.ID, 0); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	list := listAll(t, s, templates.ListQuery{})
	if len(list) != 1 || list[0].ID != keep.ID {
		t.Errorf("List after Delete = %v, want only %v", list, keep.ID)
	}
}

func testDeleteMissing(t *testing.T, s templates.Store) {
	if err := s.Delete(ctx(t), uuid.New(), 0); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Delete of a missing id: %v, want ErrNotFound", err)
	}
}

func testGetMissing(t *testing.T, s templates.Store) {
	if _, err := s.Get(ctx(t), uuid.New()); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Get of a missing id: %v, want ErrNotFound", err)
	}
}

func invalidDrafts() []struct {
	name   string
	draft  templates.Draft
	fields []string
} {
	long := strings.Repeat("x", MaxSourceBytes+1)
	return []struct {
		name   string
		draft  templates.Draft
		fields []string
	}{
		{"everything missing", templates.Draft{}, []string{"name", "source"}},
		{"blank", templates.Draft{Name: "  ", Source: " \n\t"}, []string{"name", "source"}},
		{"name too long", templates.Draft{Name: strings.Repeat("é", templates.MaxNameRunes+1), Source: "return 1"}, []string{"name"}},
		{"name with a line break", templates.Draft{Name: "a\nb", Source: "return 1"}, []string{"name"}},
		// Characters drawn as nothing: Hangul fillers, a variation selector, the blank braille pattern.
		{"name drawn blank", templates.Draft{Name: "\u3164\u115f\ufe0f\u2800", Source: "return 1"}, []string{"name"}},
		{"description too long", templates.Draft{Name: "a", Description: strings.Repeat("d", templates.MaxDescriptionRunes+1), Source: "return 1"}, []string{"description"}},
		{"description with a control character", templates.Draft{Name: "a", Description: "bell\a", Source: "return 1"}, []string{"description"}},
		{"source too long", templates.Draft{Name: "a", Source: long}, []string{"source"}},
		{"source with NUL", templates.Draft{Name: "a", Source: "return '\x00'"}, []string{"source"}},
		{"invalid UTF-8", templates.Draft{Name: "\xff", Description: "\xfe", Source: "return '\xff'"}, []string{"name", "description", "source"}},
	}
}

func checkFields(t *testing.T, err error, want []string) {
	t.Helper()
	var ve *templates.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v, want a *templates.ValidationError", err)
	}
	var got []string
	for _, f := range ve.Fields {
		got = append(got, f.Field)
		if f.Code == "" || !strings.Contains(f.Message, f.Field) {
			t.Errorf("field error %+v: want a code and a message naming the field", f)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("fields = %v, want %v", got, want)
	}
}

func testInvalidDraft(t *testing.T, s templates.Store) {
	for _, tt := range invalidDrafts() {
		_, err := s.Create(ctx(t), tt.draft)
		checkFields(t, err, tt.fields)
	}
	list := listAll(t, s, templates.ListQuery{})
	if len(list) != 0 {
		t.Errorf("invalid drafts wrote %d templates", len(list))
	}
}

func testInvalidUpdate(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(1))
	for _, tt := range invalidDrafts() {
		_, err := s.Update(ctx(t), created.ID, tt.draft, 0)
		checkFields(t, err, tt.fields)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, created)
}

func testNormalize(t *testing.T, s templates.Store) {
	src := "  \n// keeps its spaces\nreturn 1\n\n"
	created := mustCreate(t, s, templates.Draft{Name: "  spaced  ", Description: "\n desc \n", Source: src})
	if created.Name != "spaced" || created.Description != "desc" || created.Source != src {
		t.Errorf("created %q %q %q, want name and description trimmed and the source untouched", created.Name, created.Description, created.Source)
	}

	// A combining accent is stored composed (NFC), in the name and the
	// description but not in the source, and a filter typed either way
	// finds it.
	decomposed := "Cafe\u0301 "
	accented := mustCreate(t, s, templates.Draft{Name: "Valida " + decomposed + "pedido", Description: decomposed,
		Source: "return '" + decomposed + "'"})
	if accented.Name != "Valida Caf\u00e9 pedido" || accented.Description != "Caf\u00e9" || accented.Source != "return '"+decomposed+"'" {
		t.Errorf("created %+q %+q %+q, want the name and description composed (NFC) and the source untouched",
			accented.Name, accented.Description, accented.Source)
	}
	for _, filter := range []string{"caf\u00e9", "cafe\u0301"} {
		page, err := s.List(ctx(t), templates.ListQuery{Name: filter})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Templates) != 1 || page.Templates[0].ID != accented.ID {
			t.Errorf("the filter %+q found %d templates, want the one named %+q", filter, len(page.Templates), accented.Name)
		}
	}
}

func testText(t *testing.T, s templates.Store) {
	d := templates.Draft{
		Name:        "Validação de CPF 🇧🇷 — «quotes» 'single' \"double\" \\",
		Description: "linha 1\nlinha 2\ttab\r\nCRLF; emoji 😀; RTL שלום",
		Source:      "// ação\r\nconst s = '\\u0000 é \u2028 \U0001F600';\nreturn s + `${1}` + \"\\\\\" + '\\n'",
	}
	created := mustCreate(t, s, d)
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != d.Name || got.Description != d.Description || got.Source != d.Source {
		t.Errorf("round trip changed the text\n got %q %q %q\nwant %q %q %q", got.Name, got.Description, got.Source, d.Name, d.Description, d.Source)
	}
}

func testConcurrent(t *testing.T, s templates.Store) {
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := s.Create(ctx(t), draft(i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Create: %v", err)
	}
	list := listAll(t, s, templates.ListQuery{})
	if len(list) != n {
		t.Errorf("List has %d templates after %d concurrent creates", len(list), n)
	}
}

func testCanceled(t *testing.T, s templates.Store) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Create(c, draft(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a canceled context: %v, want context.Canceled", err)
	}
	if _, err := s.List(c, templates.ListQuery{}); !errors.Is(err, context.Canceled) {
		t.Errorf("List with a canceled context: %v, want context.Canceled", err)
	}
	if list := listAll(t, s, templates.ListQuery{}); len(list) != 0 {
		t.Errorf("a canceled Create wrote %d templates", len(list))
	}
}

func testPing(t *testing.T, s templates.Store) {
	if err := s.Ping(ctx(t)); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
