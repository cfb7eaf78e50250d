package sessionkv

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkJetStream measures each call on a real broker, the scope
// already holding keys: get, overwrite (one read, one put), a new key then
// its delete (read, key count, create; read, delete), and the key count
// alone (one stream info request with the scope's subject filter). Other
// sessions hold 2,000 keys in the bucket.
//
//	FLOWSCRIPT_REQUIRE_SERVICES=1 go test -run '^$' -bench JetStream -benchmem -count 5 ./internal/capabilities/sessionkv/
func BenchmarkJetStream(b *testing.B) {
	for _, br := range brokers {
		b.Run(br.name, func(b *testing.B) {
			url := br.url(b)
			for _, held := range []int{1, 50, 99} {
				s := openTestBucket(b, url, Config{}, time.Now)
				sc := Scope{Tenant: "acme", Session: "s-1"}
				ctx := testenv.Context(b, 10*time.Minute)
				for i := range 2000 {
					if err := s.Set(ctx, Scope{Tenant: "acme", Session: fmt.Sprint("other-", i)}, "k", json.RawMessage(`1`), 0); err != nil {
						b.Fatal(err)
					}
				}
				for i := range held {
					if err := s.Set(ctx, sc, fmt.Sprintf("k%d", i), json.RawMessage(`{"n":1}`), 0); err != nil {
						b.Fatal(err)
					}
				}
				value := json.RawMessage(`{"cart":{"items":[1,2,3]},"step":"pagamento"}`)
				b.Run(fmt.Sprintf("held=%d/get", held), func(b *testing.B) {
					for b.Loop() {
						if _, _, err := s.Get(ctx, sc, "k0"); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("held=%d/overwrite", held), func(b *testing.B) {
					for b.Loop() {
						if err := s.Set(ctx, sc, "k0", value, 0); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("held=%d/new-key+delete", held), func(b *testing.B) {
					for b.Loop() {
						if err := s.Set(ctx, sc, "new", value, 0); err != nil {
							b.Fatal(err)
						}
						if err := s.Delete(ctx, sc, "new"); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("held=%d/count", held), func(b *testing.B) {
					for b.Loop() {
						if _, _, err := s.keys(ctx, sc); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
