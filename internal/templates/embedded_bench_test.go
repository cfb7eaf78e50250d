package templates_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/flowscript/flowscript/internal/templates"
)

// BenchmarkEmbeddedListNameFilter: a name filter on the embedded store
// reads each template's name, not its whole record: 250 templates of
// 255 KB and a filter that matches none (a scan decoding every record took
// 0.4-0.5 s of CPU).
//
//	go test ./internal/templates -run '^$' -bench EmbeddedListNameFilter
func BenchmarkEmbeddedListNameFilter(b *testing.B) {
	s, err := templates.OpenEmbedded(b.TempDir(), templates.Options{MaxSourceBytes: 256 << 10})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close() //nolint:errcheck // the benchmark's own
	ctx := context.Background()
	source := "return 1\n//" + strings.Repeat("x", 255<<10)
	for i := range 250 {
		if _, err := s.Create(ctx, templates.Draft{Name: fmt.Sprintf("template %d", i), Source: source}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		page, err := s.List(ctx, templates.ListQuery{Name: "no such name"})
		if err != nil || len(page.Templates) != 0 {
			b.Fatal(page, err)
		}
	}
}
