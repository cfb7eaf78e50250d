package templatesapi

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
)

// nextPage is the path of the next page from the Link header, "" on the
// last page, checking that Link and X-Next-Cursor agree.
func nextPage(t testing.TB, r response) string {
	t.Helper()
	link, cursor := r.header.Get("Link"), r.header.Get("X-Next-Cursor")
	if link == "" || cursor == "" {
		if link != "" || cursor != "" {
			t.Fatalf("Link %q and X-Next-Cursor %q: one without the other", link, cursor)
		}
		return ""
	}
	target, ok := strings.CutSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
	if !ok || !strings.HasPrefix(link, "<") {
		t.Fatalf("Link = %q, want <URL>; rel=\"next\"", link)
	}
	u, err := url.Parse(target)
	if err != nil || u.Query().Get("cursor") != cursor {
		t.Fatalf("Link %q does not carry X-Next-Cursor %q", link, cursor)
	}
	return target
}

// walk follows the pages from path and returns every template in order,
// with the number of pages.
func (a *api) walk(path string) ([]templates.Template, int) {
	a.t.Helper()
	var all []templates.Template
	pages := 0
	for path != "" {
		r := a.authed("GET", path, nil)
		wantStatus(a.t, r, http.StatusOK)
		var page []templates.Template
		r.json(a.t, &page)
		all = append(all, page...)
		pages++
		path = nextPage(a.t, r)
	}
	return all, pages
}

func templateIDs(list []templates.Template) []uuid.UUID {
	out := make([]uuid.UUID, len(list))
	for i, tpl := range list {
		out[i] = tpl.ID
	}
	return out
}

func TestListPages(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		var want []uuid.UUID
		for i := range 5 {
			tpl := a.create(fmt.Sprintf("template %d", i), "return 1")
			want = append([]uuid.UUID{tpl.ID}, want...)
		}
		r := a.authed("GET", "/api/script-templates?limit=2", nil)
		wantStatus(t, r, http.StatusOK)
		next := nextPage(t, r)
		if !strings.HasPrefix(next, "/api/script-templates?") || !strings.Contains(next, "limit=2") {
			t.Errorf("next page %q, want the list path with limit=2", next)
		}
		got, pages := a.walk("/api/script-templates?limit=2")
		if pages != 3 || fmt.Sprint(templateIDs(got)) != fmt.Sprint(want) {
			t.Errorf("%d pages %v, want 3 pages %v", pages, templateIDs(got), want)
		}
		// Without limit: one page of up to 50, no Link.
		r = a.authed("GET", "/api/script-templates", nil)
		if nextPage(t, r) != "" {
			t.Errorf("5 templates at the default limit have a next page")
		}
		// The name filter goes along with the cursor.
		got, pages = a.walk("/api/script-templates?limit=1&name=" + url.QueryEscape(" TEMPLATE 3 "))
		if pages != 1 || len(got) != 1 || got[0].Name != "template 3" {
			t.Errorf("name filter: %d pages %+v", pages, got)
		}
		got, _ = a.walk("/api/script-templates?limit=1&name=templ")
		if len(got) != 5 {
			t.Errorf("name filter templ: %d templates, want 5", len(got))
		}
	})
}

func TestListRefusesBadParameters(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	for i := range 3 {
		a.create(fmt.Sprintf("t%d", i), "return 1")
	}
	r := a.authed("GET", "/api/script-templates?limit=1", nil)
	cursor := r.header.Get("X-Next-Cursor")
	r = a.authed("GET", "/api/script-templates?limit=1&name=t", nil)
	filtered := r.header.Get("X-Next-Cursor")
	tpl := a.list()[0]
	versionCursor := versionCursor(tpl.ID, 1)
	tampered := []byte(cursor)
	tampered[10] ^= 1
	// The last character's lowest bit, which base64url leaves unused when
	// the length is not a multiple of 4: the same bytes, another cursor.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	lastBit := []byte(cursor)
	lastBit[len(lastBit)-1] = alphabet[strings.IndexByte(alphabet, cursor[len(cursor)-1])^1]

	tests := []struct {
		name, query, code, field, mention string
	}{
		{"limit zero", "limit=0", CodeInvalidParameter, "limit", "from 1 to 200"},
		{"limit over the maximum", "limit=201", CodeInvalidParameter, "limit", "from 1 to 200 (default 50)"},
		{"limit negative", "limit=-1", CodeInvalidParameter, "limit", `"-1"`},
		{"limit not a number", "limit=ten", CodeInvalidParameter, "limit", `"ten"`},
		{"limit empty", "limit=", CodeInvalidParameter, "limit", "limit"},
		{"limit twice", "limit=1&limit=2", CodeInvalidParameter, "limit", "2 times"},
		{"misspelt parameter", "limt=5", CodeUnknownParameter, "limt", "limit, cursor, name"},
		{"name too long", "name=" + strings.Repeat("n", 121), CodeInvalidParameter, "name", "121"},
		{"name with a control character", "name=a%07b", CodeInvalidParameter, "name", "control"},
		{"name not UTF-8", "name=%ff", CodeInvalidParameter, "name", "UTF-8"},
		{"cursor with one bit changed", "cursor=" + string(tampered), CodeInvalidCursor, "cursor", "changed or cut"},
		{"cursor cut", "cursor=" + cursor[:len(cursor)-3], CodeInvalidCursor, "cursor", "changed or cut"},
		{"cursor with its unused last bit changed", "cursor=" + string(lastBit), CodeInvalidCursor, "cursor", "changed or cut"},
		{"cursor not base64", "cursor=%21%21%21", CodeInvalidCursor, "cursor", "changed or cut"},
		{"cursor empty", "cursor=", CodeInvalidCursor, "cursor", "changed or cut"},
		{"cursor of another name filter", "cursor=" + filtered, CodeInvalidCursor, "cursor", "another name filter"},
		{"cursor of a filter without it", "cursor=" + filtered + "&name=x", CodeInvalidCursor, "cursor", "another name filter"},
		{"cursor of a version list", "cursor=" + versionCursor, CodeInvalidCursor, "cursor", "changed or cut"},
		{"bad query string", "limit=%zz", CodeInvalidParameter, "", "query string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.authed("GET", "/api/script-templates?"+tt.query, nil)
			wantStatus(t, r, http.StatusBadRequest)
			e := r.apiErr(t)
			if e.Code != tt.code || !strings.Contains(e.Message, tt.mention) {
				t.Errorf("error %+v, want code %s mentioning %q", e, tt.code, tt.mention)
			}
			if tt.field != "" && (len(e.Fields) != 1 || e.Fields[0].Field != tt.field) {
				t.Errorf("fields %+v, want one naming %q", e.Fields, tt.field)
			}
		})
	}
	// The genuine cursor still works, with its filter.
	wantStatus(t, a.authed("GET", "/api/script-templates?cursor="+cursor, nil), http.StatusOK)
	wantStatus(t, a.authed("GET", "/api/script-templates?name=t&cursor="+filtered, nil), http.StatusOK)
}

// TestNameFilterIsNormalizedAsNames: a filter is composed (NFC) before
// its length is checked, as a saved name is, so the name a template was
// saved with finds it however it was typed; and a cursor continues the
// listing under any spelling of its filter the stores treat as the same.
func TestNameFilterIsNormalizedAsNames(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		decomposed := strings.Repeat("e\u0301", templates.MaxNameRunes) // 240 runes typed, 120 once composed
		long := a.create(decomposed, "return 1")
		r := a.authed("GET", "/api/script-templates?name="+url.QueryEscape(decomposed), nil)
		wantStatus(t, r, http.StatusOK)
		var page []templates.Template
		if r.json(t, &page); len(page) != 1 || page[0].ID != long.ID {
			t.Errorf("filter by the name as saved: %+v, want the template", page)
		}

		for i := range 3 {
			a.create(fmt.Sprintf("caf\u00e9 %d", i), "return 1")
		}
		r = a.authed("GET", "/api/script-templates?limit=1&name="+url.QueryEscape("cafe\u0301"), nil)
		wantStatus(t, r, http.StatusOK)
		cursor := r.header.Get("X-Next-Cursor")
		seen := map[string]bool{}
		for _, spelled := range []string{"caf\u00e9", "CAF\u00c9", "CAFE\u0301", " caf\u00e9\t"} {
			r = a.authed("GET", "/api/script-templates?limit=1&cursor="+cursor+"&name="+url.QueryEscape(spelled), nil)
			wantStatus(t, r, http.StatusOK)
			if r.json(t, &page); len(page) != 1 || page[0].Name != "caf\u00e9 1" {
				t.Errorf("continued with name %q: %+v, want the second café", spelled, page)
			}
			seen[r.header.Get("X-Next-Cursor")] = true
		}
		if len(seen) != 1 {
			t.Errorf("one position under four spellings of the filter gave %d cursors", len(seen))
		}
		r = a.authed("GET", "/api/script-templates?limit=1&cursor="+cursor+"&name=cafe", nil)
		if e := r.apiErr(t); r.status != http.StatusBadRequest || e.Code != CodeInvalidCursor {
			t.Errorf("continued with another filter: %d %+v, want INVALID_CURSOR", r.status, e)
		}
	})
}

// TestForgedCursorTimes: a cursor's checksum is not a secret, so a caller
// can build one for any creation time; one outside years 1 to 9999 is
// INVALID_CURSOR on both stores (PostgreSQL answered 500, and the stores
// disagreed on the first page).
func TestForgedCursorTimes(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		a.create("forged-cursor", "return 1")
		forge := func(micros int64) string {
			b := []byte{cursorTemplates}
			b = binary.BigEndian.AppendUint64(b, uint64(micros))
			b = append(b, make([]byte, 16)...)
			b = append(b, filterHash("")...)
			return sealCursor(b)
		}
		for _, micros := range []int64{math.MinInt64, math.MaxInt64, time.Date(-100000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(),
			time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), cursorTimeMin.UnixMicro() - 1} {
			r := a.authed("GET", "/api/script-templates?cursor="+forge(micros), nil)
			wantStatus(t, r, http.StatusBadRequest)
			if e := r.apiErr(t); e.Code != CodeInvalidCursor {
				t.Errorf("a cursor at %d µs: %+v, want %s", micros, e, CodeInvalidCursor)
			}
		}
		// The bounds themselves are times a cursor may carry.
		for _, at := range []time.Time{cursorTimeMin, cursorTimeMax} {
			wantStatus(t, a.authed("GET", "/api/script-templates?cursor="+forge(at.UnixMicro()), nil), http.StatusOK)
		}
	})
}

// TestForgedVersionCursors: the cursor format is public, so a caller can
// build one continuing below any uint32; one past the largest version
// (2^31-1, as in the path) is INVALID_CURSOR on both stores (PostgreSQL
// answered 500: it cannot pass 2^31 as an int4).
func TestForgedVersionCursors(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		id := a.create("forged-version-cursor", "return 1").ID
		versions := "/api/script-templates/" + id.String() + "/versions?cursor="
		for _, before := range []int{0, math.MaxInt32 + 1, math.MaxUint32} {
			r := a.authed("GET", versions+versionCursor(id, before), nil)
			wantStatus(t, r, http.StatusBadRequest)
			if e := r.apiErr(t); e.Code != CodeInvalidCursor {
				t.Errorf("a cursor before %d: %+v, want %s", before, e, CodeInvalidCursor)
			}
		}
		// The largest version a cursor may continue below lists them all.
		r := a.authed("GET", versions+versionCursor(id, math.MaxInt32), nil)
		wantStatus(t, r, http.StatusOK)
		var list []templates.VersionInfo
		if r.json(t, &list); len(list) != 1 {
			t.Errorf("below version 2^31-1: %d versions, want 1", len(list))
		}
	})
}

func TestVersionsAPI(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB, Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		v1 := a.create("cpf", examples.CPF)
		if v1.Version != 1 {
			t.Errorf("created version %d, want 1", v1.Version)
		}
		one := "/api/script-templates/" + v1.ID.String()
		var v3 savedTemplate
		for i, src := range []string{"return 2", "return 3"} {
			r := a.authed("PUT", one, map[string]string{"name": "cpf", "source": src})
			wantStatus(t, r, http.StatusOK)
			r.json(t, &v3)
			if v3.Version != i+2 {
				t.Errorf("PUT %d answered version %d, want %d", i+1, v3.Version, i+2)
			}
		}
		// A PUT with the current content stores nothing.
		r := a.authed("PUT", one, map[string]string{"name": " cpf ", "source": "return 3"})
		wantStatus(t, r, http.StatusOK)
		var same savedTemplate
		if r.json(t, &same); same.Version != 3 || !same.UpdatedAt.Equal(v3.UpdatedAt) {
			t.Errorf("PUT of the current content = version %d at %v, want 3 at %v", same.Version, same.UpdatedAt, v3.UpdatedAt)
		}

		r = a.authed("GET", one+"/versions", nil, "X-API-Key", testReadAPIKey)
		wantStatus(t, r, http.StatusOK)
		var list []map[string]any
		r.json(t, &list)
		if len(list) != 3 || list[0]["version"] != 3.0 || list[2]["version"] != 1.0 || list[2]["sourceSha256"] != templates.SourceSHA256(examples.CPF) {
			t.Errorf("versions = %v", list)
		}
		if _, has := list[0]["source"]; has {
			t.Errorf("the version list carries sources: %v", list[0])
		}
		r = a.authed("GET", one+"/versions?limit=2", nil)
		if next := nextPage(t, r); next == "" || !strings.HasPrefix(next, one+"/versions?") {
			t.Errorf("versions?limit=2 over 3: next %q", next)
		}

		r = a.authed("GET", one+"/versions/1", nil)
		wantStatus(t, r, http.StatusOK)
		var first templates.Version
		r.json(t, &first)
		if first.Source != examples.CPF || first.Version != 1 || first.TemplateID != v1.ID || !first.CreatedAt.Equal(v1.CreatedAt) {
			t.Errorf("version 1 = %+v, want the source it was created with", first)
		}

		r = a.authed("GET", one+"/versions/4", nil)
		wantStatus(t, r, http.StatusNotFound)
		if e := r.apiErr(t); !strings.Contains(e.Message, "has no version 4") || !strings.Contains(e.Message, "/versions") {
			t.Errorf("missing version: %+v", e)
		}
		for _, bad := range []string{"0", "-1", "01", "one", "2147483648", "1.0"} {
			r = a.authed("GET", one+"/versions/"+bad, nil)
			wantStatus(t, r, http.StatusBadRequest)
			if e := r.apiErr(t); e.Code != CodeInvalidParameter || len(e.Fields) != 1 || e.Fields[0].Field != "version" {
				t.Errorf("version %q: %+v", bad, e)
			}
		}
		r = a.authed("GET", one+"/versions?cursor=", nil) // not "from the newest": a cut cursor
		wantStatus(t, r, http.StatusBadRequest)
		if e := r.apiErr(t); e.Code != CodeInvalidCursor {
			t.Errorf("an empty cursor: %+v", e)
		}
		r = a.authed("GET", one+"/versions?cursor="+versionCursor(uuid.New(), 2), nil)
		wantStatus(t, r, http.StatusBadRequest)
		if e := r.apiErr(t); e.Code != CodeInvalidCursor || !strings.Contains(e.Message, "another template") {
			t.Errorf("another template's cursor: %+v", e)
		}

		wantStatus(t, a.authed("DELETE", one, nil), http.StatusNoContent)
		for _, path := range []string{one + "/versions", one + "/versions/1"} {
			r = a.authed("GET", path, nil)
			wantStatus(t, r, http.StatusNotFound)
			if e := r.apiErr(t); !strings.Contains(e.Message, "no template has id") {
				t.Errorf("GET %s after delete: %+v", path, e)
			}
		}
	})
}

func TestConditionalReads(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	tpl := a.create("etag", "return 1")
	one := "/api/script-templates/" + tpl.ID.String()
	for _, path := range []string{"/api/script-templates", "/api/script-templates?limit=1&name=et", one, one + "/versions", one + "/versions/1"} {
		r := a.authed("GET", path, nil)
		wantStatus(t, r, http.StatusOK)
		tag := r.header.Get("ETag")
		if !strings.HasPrefix(tag, `"`) || r.header.Get("Cache-Control") != "private, no-cache" {
			t.Fatalf("GET %s: ETag %q, Cache-Control %q", path, tag, r.header.Get("Cache-Control"))
		}
		for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
			r = a.authed("GET", path, nil, "If-None-Match", inm)
			if r.status != http.StatusNotModified || len(r.raw) != 0 || r.header.Get("ETag") != tag {
				t.Errorf("GET %s If-None-Match %s: %d %q etag %q, want 304 with no body", path, inm, r.status, r.raw, r.header.Get("ETag"))
			}
		}
		r = a.authed("GET", path, nil, "If-None-Match", `"stale"`)
		wantStatus(t, r, http.StatusOK)
		// If-Match: a read of the tag it names (or any, *), else 412.
		for _, im := range []string{tag, `"other", ` + tag, "*"} {
			wantStatus(t, a.authed("GET", path, nil, "If-Match", im), http.StatusOK)
		}
		for _, im := range []string{`"stale"`, "W/" + tag} { // a weak tag never matches If-Match
			r = a.authed("GET", path, nil, "If-Match", im)
			wantStatus(t, r, http.StatusPreconditionFailed)
			if e := r.apiErr(t); e.Code != CodePreconditionFailed {
				t.Errorf("GET %s If-Match %s: %+v", path, im, e)
			}
		}
	}
	r := a.authed("GET", one, nil)
	tag := r.header.Get("ETag")
	wantStatus(t, a.authed("PUT", one, map[string]string{"name": "etag", "source": "return 2"}), http.StatusOK)
	r = a.authed("GET", one, nil, "If-None-Match", tag)
	wantStatus(t, r, http.StatusOK)
	if r.header.Get("ETag") == tag {
		t.Errorf("the ETag did not change with the template")
	}
	// A list page changes its tag when a template is created.
	r = a.authed("GET", "/api/script-templates?limit=1", nil)
	tag = r.header.Get("ETag")
	a.create("newer", "return 3")
	if r = a.authed("GET", "/api/script-templates?limit=1", nil, "If-None-Match", tag); r.status != http.StatusOK {
		t.Errorf("list after a create: %d, want 200", r.status)
	}
	// The same templates, but the page is now the last: the tag changes.
	newest := a.create("newest", "return 0")
	list, _ := a.walk("/api/script-templates")
	r = a.authed("GET", "/api/script-templates?limit=2", nil)
	tag = r.header.Get("ETag")
	if nextPage(t, r) == "" || len(list) != 3 || list[0].ID != newest.ID {
		t.Fatalf("want 3 templates and a next page at limit 2, got %d", len(list))
	}
	wantStatus(t, a.authed("DELETE", "/api/script-templates/"+list[2].ID.String(), nil), http.StatusNoContent)
	r = a.authed("GET", "/api/script-templates?limit=2", nil, "If-None-Match", tag)
	if r.status != http.StatusOK || nextPage(t, r) != "" {
		t.Errorf("the last page with the same templates: %d, want 200 without a next page", r.status)
	}
	// Errors are never cached.
	r = a.authed("GET", "/api/script-templates?limit=0", nil)
	if r.header.Get("ETag") != "" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("an error answer has ETag %q, Cache-Control %q", r.header.Get("ETag"), r.header.Get("Cache-Control"))
	}
}

// seedCopy writes n templates straight into a PostgreSQL schema (COPY; the
// triggers make their versions), newest last, every third sharing its
// createdAt with the one before so ties are broken by id.
func seedCopy(tb testing.TB, url string, n int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	rows := make([][]any, n)
	for i := range n {
		at := base.Add(time.Duration(i-i%3) * time.Millisecond / 10)
		rows[i] = []any{uuid.Must(uuid.NewV7()), fmt.Sprintf("Validação de CPF %05d", i),
			"Valida um CPF e devolve valido ou invalido.", examples.CPF, at, at}
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"script_templates"},
		[]string{"id", "name", "description", "source", "created_at", "updated_at"}, pgx.CopyFromRows(rows))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ANALYZE script_templates"); err != nil {
		tb.Fatal(err)
	}
}

// The acceptance of issue 19: 10,000 templates on PostgreSQL, walked page
// by page while templates are being created: every page is within its
// limit and its size, and each template that existed when the walk began
// comes exactly once.
func TestWalkTenThousandWhileInserting(t *testing.T) {
	const n, limit = 10000, 100
	cfg := testConfig()
	dbURL := storetest.PostgresSchemaURL(t)
	store := openPostgresURL(t, cfg, dbURL)
	seedCopy(t, dbURL, n)
	a := startAPI(t, cfg, store, nil)

	ctx, stop := context.WithCancel(context.Background())
	inserted := make(chan int, 1)
	first := make(chan struct{})
	go func() {
		count := 0
		for ctx.Err() == nil {
			if _, err := store.Create(ctx, templates.Draft{Name: fmt.Sprintf("inserted %d", count), Source: "return 1"}); err != nil {
				if ctx.Err() == nil {
					t.Errorf("inserting during the walk: %v", err)
				}
				break
			}
			if count++; count == 1 {
				close(first)
			}
		}
		inserted <- count
	}()
	<-first

	seen := map[uuid.UUID]int{}
	pages, seeded := 0, 0
	for path := fmt.Sprintf("/api/script-templates?limit=%d", limit); path != ""; pages++ {
		r := a.authed("GET", path, nil)
		wantStatus(t, r, http.StatusOK)
		var page []templates.Template
		r.json(t, &page)
		if len(page) == 0 || len(page) > limit || len(r.raw) > templates.MaxPageBytes {
			t.Fatalf("page %d: %d templates, %d bytes; want 1 to %d templates under %d bytes", pages, len(page), len(r.raw), limit, templates.MaxPageBytes)
		}
		for _, tpl := range page {
			seen[tpl.ID]++
			if strings.HasPrefix(tpl.Name, "Validação") {
				seeded++
			}
		}
		path = nextPage(t, r)
	}
	stop()
	count := <-inserted
	for id, times := range seen {
		if times != 1 {
			t.Errorf("template %s listed %d times", id, times)
		}
	}
	if seeded != n {
		t.Errorf("the walk listed %d of the %d templates that existed when it began", seeded, n)
	}
	t.Logf("%d pages of at most %d; %d templates created during the walk, %d of them listed", pages, limit, count, len(seen)-seeded)
	if count < 2 {
		t.Errorf("only %d templates were created during the walk: it did not run under inserts", count)
	}
}

// TestConditionalWrites: PUT and DELETE with If-Match write only while the
// template is as the client read it (the ETag of its GET, which a PUT's
// answer carries for the next save); otherwise 412 PRECONDITION_FAILED
// and nothing changes. "*" asks only that it exists; weak tags never
// match; without If-Match the last writer wins, as before.
func TestConditionalWrites(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(t testing.TB, cfg Config) templates.Store) {
		cfg := testConfig()
		a := startAPI(t, cfg, open(t, cfg), nil)
		tpl := a.create("conditional", "return 1")
		one := "/api/script-templates/" + tpl.ID.String()
		read := a.authed("GET", one, nil)
		wantStatus(t, read, http.StatusOK)
		tag := read.header.Get("ETag")

		saved := a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 2"}, "If-Match", tag)
		wantStatus(t, saved, http.StatusOK)
		next := saved.header.Get("ETag")
		if got := a.authed("GET", one, nil).header.Get("ETag"); next == "" || next != got {
			t.Fatalf("PUT answered ETag %q, a GET then %q: want the same, for the next If-Match", next, got)
		}

		// The author's stale copy: refused, whatever its content.
		for _, source := range []string{"return 3", "return 2"} {
			r := a.authed("PUT", one, map[string]string{"name": "conditional", "source": source}, "If-Match", tag)
			wantStatus(t, r, http.StatusPreconditionFailed)
			if e := r.apiErr(t); e.Code != CodePreconditionFailed || !strings.Contains(e.Message, "version 2") {
				t.Errorf("stale If-Match: %+v, want %s naming version 2", e, CodePreconditionFailed)
			}
		}
		for _, im := range []string{"W/" + next, `"other"`, "garbage"} {
			r := a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 4"}, "If-Match", im)
			wantStatus(t, r, http.StatusPreconditionFailed)
			// A tag that cannot match is not called a stale read; one this
			// service never gave out is named so.
			wantMsg := "no strong entity tag"
			if im == `"other"` {
				wantMsg = "no tag of this service"
			}
			if e := r.apiErr(t); !strings.Contains(e.Message, wantMsg) {
				t.Errorf("If-Match %s: %q, want it to say %q", im, e.Message, wantMsg)
			}
		}
		// If-None-Match: "*" or the current tag refuses a write while the
		// template exists; another tag lets it through (checked below).
		for _, inm := range []string{"*", next, "W/" + next} {
			wantStatus(t, a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 4"}, "If-None-Match", inm), http.StatusPreconditionFailed)
			wantStatus(t, a.authed("DELETE", one, nil, "If-None-Match", inm), http.StatusPreconditionFailed)
		}
		wantStatus(t, a.authed("DELETE", one, nil, "If-Match", tag), http.StatusPreconditionFailed)
		var got templates.Template
		a.authed("GET", one, nil).json(t, &got)
		if got.Version != 2 || got.Source != "return 2" {
			t.Fatalf("after refused writes: version %d, source %q; want version 2, \"return 2\"", got.Version, got.Source)
		}

		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 5"}, "If-Match", `"other", `+next), http.StatusOK)
		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 6"}, "If-Match", "*"), http.StatusOK)
		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 6"}, "If-None-Match", `"other"`), http.StatusOK)
		wantStatus(t, a.authed("PUT", one, map[string]string{"name": "conditional", "source": "return 7"}), http.StatusOK)
		last := a.authed("GET", one, nil).header.Get("ETag")
		wantStatus(t, a.authed("DELETE", one, nil, "If-Match", last), http.StatusNoContent)

		// A create's answer carries the tag of the first update's If-Match.
		created := a.authed("POST", "/api/script-templates", map[string]string{"name": "conditional-2", "source": "return 1"})
		wantStatus(t, created, http.StatusCreated)
		var made templates.Template
		created.json(t, &made)
		if got := a.authed("GET", "/api/script-templates/"+made.ID.String(), nil).header.Get("ETag"); got == "" || created.header.Get("ETag") != got {
			t.Errorf("POST answered ETag %q, a GET then %q: want the same", created.header.Get("ETag"), got)
		}

		missing := "/api/script-templates/" + uuid.NewString()
		for _, im := range []string{"*", last} {
			wantStatus(t, a.authed("PUT", missing, map[string]string{"name": "x", "source": "return 1"}, "If-None-Match", im), http.StatusNotFound)
			wantStatus(t, a.authed("PUT", missing, map[string]string{"name": "x", "source": "return 1"}, "If-Match", im), http.StatusNotFound)
			wantStatus(t, a.authed("DELETE", missing, nil, "If-Match", im), http.StatusNotFound)
		}
	})
}

// Every route refuses a query parameter it does not take, before it acts:
// a DELETE with a stray parameter deletes nothing.
func TestEveryRouteRefusesUnknownParameters(t *testing.T) {
	cfg := testConfig()
	a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
	tpl := a.create("kept", "return 1")
	id := tpl.ID.String()
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/script-templates/" + id},
		{"PUT", "/api/script-templates/" + id},
		{"DELETE", "/api/script-templates/" + id},
		{"POST", "/api/script-templates"},
		{"GET", "/api/script-templates/" + id + "/versions/1"},
		{"POST", "/api/scripts/test"},
		{"POST", "/api/failures/job-1/replay"},
		{"GET", "/api/openapi.json"},
	} {
		r := a.authed(rt.method, rt.path+"?foo=1", map[string]any{"name": "x", "source": "return 2"})
		wantStatus(t, r, http.StatusBadRequest)
		if e := r.apiErr(t); e.Code != CodeUnknownParameter || !strings.Contains(e.Message, "takes no query parameters") {
			t.Errorf("%s %s?foo=1: %+v, want %s saying the route takes none", rt.method, rt.path, e, CodeUnknownParameter)
		}
	}
	if got := a.authed("GET", "/api/script-templates/"+id, nil); got.status != http.StatusOK {
		t.Errorf("the template is gone after a refused DELETE (status %d)", got.status)
	}
	// The lists name what they take.
	r := a.authed("GET", "/api/script-templates/"+id+"/versions?foo=1", nil)
	if e := r.apiErr(t); e.Code != CodeUnknownParameter || !strings.Contains(e.Message, "limit, cursor") {
		t.Errorf("versions?foo=1: %+v", e)
	}
}
