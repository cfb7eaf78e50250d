package sessionkv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkCountScaling: the cost of counting one session's keys as the
// bucket fills with other sessions' keys, on a private nats-server of each
// build (the machine's 2.9 and the module's), so the shared broker holds
// none of them.
//
//	FLOWSCRIPT_REQUIRE_SERVICES=1 go test -run '^$' -bench CountScaling -count 3 ./internal/capabilities/sessionkv/
func BenchmarkCountScaling(b *testing.B) {
	for _, kind := range testenv.NATSKinds {
		b.Run(string(kind), func(b *testing.B) {
			p := testenv.StartNATSProcess(b, kind, testenv.NATSProcessOptions{})
			s := openTestBucket(b, p.URL(), Config{}, time.Now)
			ctx := testenv.Context(b, 10*time.Minute)
			sc := Scope{Tenant: "acme", Session: "s-1"}
			for i := range 10 {
				mustSetB(ctx, b, s, sc, fmt.Sprint("k", i))
			}
			others := 0
			for _, total := range []int{0, 2000, 20000} {
				for ; others < total; others++ {
					if _, err := s.kv.Put(ctx, Scope{Tenant: "acme", Session: fmt.Sprint("other-", others)}.storedKey("k"), []byte(`{"e":9999999999999,"v":1}`)); err != nil {
						b.Fatal(err)
					}
				}
				b.Run(fmt.Sprintf("others=%d", total), func(b *testing.B) {
					for b.Loop() {
						keys, _, err := s.keys(ctx, sc)
						if err != nil || len(keys) != 10 {
							b.Fatal(len(keys), err)
						}
					}
				})
			}
		})
	}
}

func mustSetB(ctx context.Context, b *testing.B, s Store, sc Scope, key string) {
	b.Helper()
	if err := s.Set(ctx, sc, key, []byte(`1`), 0); err != nil {
		b.Fatal(err)
	}
}
