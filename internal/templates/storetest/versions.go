package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/flowscript/flowscript/internal/templates"
)

func versionNumbers(list []templates.VersionInfo) []int {
	out := make([]int, len(list))
	for i, v := range list {
		out[i] = v.Version
	}
	return out
}

func mustUpdate(t *testing.T, s templates.Store, id uuid.UUID, d templates.Draft) templates.Template {
	t.Helper()
	tpl, err := s.Update(ctx(t), id, d, 0)
	if err != nil {
		t.Fatalf("Update(%s): %v", id, err)
	}
	return tpl
}

func mustVersion(t *testing.T, s templates.Store, id uuid.UUID, n int) templates.Version {
	t.Helper()
	v, err := s.Version(ctx(t), id, n)
	if err != nil {
		t.Fatalf("Version(%s, %d): %v", id, n, err)
	}
	return v
}

func testVersions(t *testing.T, s templates.Store) {
	d1 := draft(1)
	v1 := mustCreate(t, s, d1)
	d2 := templates.Draft{Name: "second name", Description: d1.Description, Source: d1.Source}
	v2 := mustUpdate(t, s, v1.ID, d2)
	d3 := templates.Draft{Name: "second name", Source: "return 3"}
	v3 := mustUpdate(t, s, v1.ID, d3)
	if v2.Version != 2 || v3.Version != 3 {
		t.Fatalf("versions after two updates: %d, %d; want 2, 3", v2.Version, v3.Version)
	}
	got, err := s.Get(ctx(t), v1.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, v3)

	for i, want := range []templates.Template{v1, v2, v3} {
		v := mustVersion(t, s, v1.ID, i+1)
		if v.TemplateID != v1.ID || v.Version != i+1 || v.Name != want.Name || v.Description != want.Description ||
			v.Source != want.Source || !v.CreatedAt.Equal(want.UpdatedAt) {
			t.Errorf("version %d = %+v\nwant the content of %+v, created at its UpdatedAt", i+1, v, want)
		}
		if v.SourceSHA256 != templates.SourceSHA256(want.Source) || len(v.SourceSHA256) != 64 {
			t.Errorf("version %d sourceSha256 = %q, want %q", i+1, v.SourceSHA256, templates.SourceSHA256(want.Source))
		}
	}
	page, err := s.Versions(ctx(t), v1.ID, templates.VersionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(versionNumbers(page.Versions)) != "[3 2 1]" || page.Next != 0 {
		t.Errorf("Versions = %v next %d, want [3 2 1] and no next", versionNumbers(page.Versions), page.Next)
	}
	if page.Versions[2].Name != d1.Name || page.Versions[0].SourceSHA256 != templates.SourceSHA256(d3.Source) {
		t.Errorf("Versions = %+v", page.Versions)
	}
}

func testUpdateUnchanged(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(1))
	same := draft(1)
	same.Name = "  " + same.Name + " " // the same once normalized
	got := mustUpdate(t, s, created.ID, same)
	sameTemplate(t, got, created)
	page, err := s.Versions(ctx(t), created.ID, templates.VersionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Versions) != 1 {
		t.Errorf("an update with the same content made %d versions, want 1", len(page.Versions))
	}
}

func testVersionPages(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(0))
	for i := 1; i < 5; i++ {
		mustUpdate(t, s, created.ID, draft(i))
	}
	other := mustCreate(t, s, draft(9)) // its versions never show up in created's
	mustUpdate(t, s, other.ID, draft(10))
	var pages [][]int
	q := templates.VersionQuery{Limit: 2}
	for range 10 {
		page, err := s.Versions(ctx(t), created.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, versionNumbers(page.Versions))
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	if fmt.Sprint(pages) != "[[5 4] [3 2] [1]]" {
		t.Errorf("version pages = %v, want [[5 4] [3 2] [1]]", pages)
	}
	page, err := s.Versions(ctx(t), created.ID, templates.VersionQuery{Before: 1})
	if err != nil || len(page.Versions) != 0 || page.Versions == nil || page.Next != 0 {
		t.Errorf("versions before 1 = %#v, %v; want an empty page", page, err)
	}
}

func testVersionMissing(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(1))
	for _, n := range []int{0, -1, 2, 1 << 40} {
		_, err := s.Version(ctx(t), created.ID, n)
		if !errors.Is(err, templates.ErrVersionNotFound) || !errors.Is(err, templates.ErrNotFound) {
			t.Errorf("Version(%d) of a template with one version: %v, want ErrVersionNotFound", n, err)
		}
	}
	missing := uuid.New()
	if _, err := s.Version(ctx(t), missing, 1); !errors.Is(err, templates.ErrNotFound) || errors.Is(err, templates.ErrVersionNotFound) {
		t.Errorf("Version of a missing template: %v, want ErrNotFound (not ErrVersionNotFound)", err)
	}
	if _, err := s.Versions(ctx(t), missing, templates.VersionQuery{}); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Versions of a missing template: %v, want ErrNotFound", err)
	}
}

func testDeleteVersions(t *testing.T, s templates.Store) {
	gone := mustCreate(t, s, draft(1))
	mustUpdate(t, s, gone.ID, draft(2))
	kept := mustCreate(t, s, draft(3))
	if err := s.Delete(ctx(t), gone.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Versions(ctx(t), gone.ID, templates.VersionQuery{}); !errors.Is(err, templates.ErrNotFound) {
		t.Errorf("Versions after Delete: %v, want ErrNotFound", err)
	}
	if _, err := s.Version(ctx(t), gone.ID, 1); !errors.Is(err, templates.ErrNotFound) || errors.Is(err, templates.ErrVersionNotFound) {
		t.Errorf("Version after Delete: %v, want ErrNotFound", err)
	}
	if v := mustVersion(t, s, kept.ID, 1); v.Source != kept.Source {
		t.Errorf("another template's version changed: %+v", v)
	}
}

func testConcurrentUpdates(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(0))
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			if _, err := s.Update(ctx(t), created.ID, draft(i), 0); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Update: %v", err)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != n+1 {
		t.Errorf("Version after %d concurrent updates = %d, want %d", n, got.Version, n+1)
	}
	page, err := s.Versions(ctx(t), created.ID, templates.VersionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]bool{}
	for i, v := range page.Versions {
		if v.Version != n+1-i {
			t.Errorf("version %d is numbered %d", n+1-i, v.Version)
		}
		sources[v.SourceSHA256] = true
	}
	if len(page.Versions) != n+1 || len(sources) != n+1 {
		t.Errorf("%d versions with %d distinct sources, want %d of each", len(page.Versions), len(sources), n+1)
	}
	if latest := mustVersion(t, s, created.ID, n+1); latest.Source != got.Source {
		t.Errorf("the latest version's source is not the template's")
	}
}

// testConditionalWrites: an Update or Delete that names a version writes
// only while the template is at it; otherwise ErrVersionConflict and
// nothing changes. A missing template is still ErrNotFound.
func testConditionalWrites(t *testing.T, s templates.Store) {
	created := mustCreate(t, s, draft(1))
	v2, err := s.Update(ctx(t), created.ID, draft(2), 1)
	if err != nil || v2.Version != 2 {
		t.Fatalf("Update at the current version 1: version %d, %v; want version 2", v2.Version, err)
	}
	if _, err := s.Update(ctx(t), created.ID, draft(3), 1); !errors.Is(err, templates.ErrVersionConflict) {
		t.Fatalf("Update at a stale version 1: %v, want ErrVersionConflict", err)
	}
	if _, err := s.Update(ctx(t), created.ID, draft(2), 1); !errors.Is(err, templates.ErrVersionConflict) {
		t.Fatalf("Update with the current content at a stale version 1: %v, want ErrVersionConflict", err)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameTemplate(t, got, v2)
	if err := s.Delete(ctx(t), created.ID, 1); !errors.Is(err, templates.ErrVersionConflict) {
		t.Fatalf("Delete at a stale version 1: %v, want ErrVersionConflict", err)
	}
	if _, err := s.Get(ctx(t), created.ID); err != nil {
		t.Fatalf("after a refused Delete: %v, want the template still there", err)
	}
	if _, err := s.Update(ctx(t), uuid.New(), draft(1), 1); !errors.Is(err, templates.ErrNotFound) {
		t.Fatalf("conditional Update of a missing id: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx(t), uuid.New(), 1); !errors.Is(err, templates.ErrNotFound) {
		t.Fatalf("conditional Delete of a missing id: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx(t), created.ID, 2); err != nil {
		t.Fatalf("Delete at the current version 2: %v", err)
	}
	if _, err := s.Get(ctx(t), created.ID); !errors.Is(err, templates.ErrNotFound) {
		t.Fatalf("after Delete at the current version: %v, want ErrNotFound", err)
	}
}

// testConcurrentConditionalUpdates: writers that all read version 1 and
// update at it: exactly one stores version 2, the others get
// ErrVersionConflict (no lost update).
func testConcurrentConditionalUpdates(t *testing.T, s templates.Store) {
	const writers = 8
	created := mustCreate(t, s, draft(1))
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			_, errs[i] = s.Update(ctx(t), created.ID, draft(10+i), 1)
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, templates.ErrVersionConflict):
			t.Errorf("writer %d: %v, want nil or ErrVersionConflict", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d writers updated version 1, want exactly 1", won)
	}
	got, err := s.Get(ctx(t), created.ID)
	if err != nil || got.Version != 2 {
		t.Fatalf("after the race: version %d, %v; want 2", got.Version, err)
	}
}
