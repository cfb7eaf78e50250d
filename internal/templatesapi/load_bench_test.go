package templatesapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/internal/templates"
)

// The load check of issue 6: GET /script-templates with 1,000 templates on
// each store, over loopback HTTP with authentication, reporting requests
// per second and the 99th percentile latency.
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
			if got := len(a.list()); got != n {
				b.Fatalf("listed %d templates, want %d", got, n)
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
