package templatesapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/internal/templates"
	"github.com/flowscript/flowscript/internal/templates/storetest"
)

// The load check of issue 6: GET /script-templates with 1,000 templates on
// each store, over loopback HTTP with authentication, reporting requests
// per second and the 99th percentile latency. Since issue 19 the answer is
// the first page (50 templates), no longer all 1,000.
//
//	FLOWSCRIPT_REQUIRE_SERVICES=1 go test ./internal/templatesapi -run '^$' -bench ListTemplates -benchtime 200x
func BenchmarkListTemplates(b *testing.B) {
	const n = 1000
	stores := []struct {
		name string
		open func(testing.TB, Config) templates.Store
	}{{"embedded", openEmbedded}, {"postgres", openPostgres}}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			cfg := testConfig()
			store := st.open(b, cfg)
			seed(b, store, n)
			a := startAPI(b, cfg, store, nil)
			if got, _ := a.walk("/api/script-templates?limit=200"); len(got) != n {
				b.Fatalf("listed %d templates, want %d", len(got), n)
			}
			url := a.ts.URL + "/api/script-templates"

			b.Run("sequential", func(b *testing.B) {
				var lat []time.Duration
				start := time.Now()
				for b.Loop() {
					lat = append(lat, timedGet(b, a.client, url))
				}
				report(b, lat, time.Since(start))
			})
			b.Run("8-clients", func(b *testing.B) {
				var mu sync.Mutex
				var lat []time.Duration
				b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 clients on the CI machine
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					var mine []time.Duration
					for pb.Next() {
						mine = append(mine, timedGet(b, a.client, url))
					}
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
				})
				report(b, lat, time.Since(start))
			})
		})
	}
}

func seed(b *testing.B, store templates.Store, n int) {
	b.Helper()
	ctx := context.Background()
	for i := range n {
		_, err := store.Create(ctx, templates.Draft{
			Name:        fmt.Sprintf("Validação de CPF %04d", i),
			Description: "Valida um CPF e devolve valido ou invalido.",
			Source:      examples.CPF,
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func timedGet(b *testing.B, client *http.Client, url string) time.Duration {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-API-Key", testAPIKey)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close() // drained above: the copy error is the one that matters
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET: %d %v", resp.StatusCode, err)
	}
	return time.Since(start)
}

func report(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// The paging check of issue 19: 10,000 templates on PostgreSQL, 8 clients
// each reading pages spread over the whole list (every page's cursor is
// collected first, so deep pages cost what the first does), reporting the
// median and 99th percentile latency of a page. Clients keep their
// connections alive, as a real client does.
//
//	FLOWSCRIPT_REQUIRE_SERVICES=1 go test ./internal/templatesapi -run '^$' -bench TemplatePages -benchtime 4000x
func BenchmarkListTemplatePages(b *testing.B) {
	const n = 10000
	cfg := testConfig()
	dbURL := storetest.PostgresSchemaURL(b)
	store := openPostgresURL(b, cfg, dbURL)
	seedCopy(b, dbURL, n)
	a := startAPI(b, cfg, store, nil)
	transport := a.client.Transport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 16
	client := &http.Client{Transport: transport}
	b.Cleanup(transport.CloseIdleConnections)

	for _, c := range []struct{ name, first string }{
		{"default-limit", "/api/script-templates"},
		{"limit-200", "/api/script-templates?limit=200"},
		{"name-filter-all-match", "/api/script-templates?name=cpf"},
		{"name-filter-no-match", "/api/script-templates?name=no-such-template"},
	} {
		var paths []string
		for path := c.first; path != ""; {
			paths = append(paths, a.ts.URL+path)
			r := a.authed("GET", path, nil)
			wantStatus(b, r, http.StatusOK)
			path = nextPage(b, r)
		}
		b.Run(c.name+"/8-clients", func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			var next atomic.Int64
			b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 clients on the CI machine
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					i := next.Add(1)
					mine = append(mine, timedGet(b, client, paths[int(i)%len(paths)]))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			report(b, lat, time.Since(start))
			b.ReportMetric(float64(len(paths)), "pages")
		})
	}
}
