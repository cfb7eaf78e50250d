package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkResume compares a resumed run — the journal decoded, its host
// calls, times and random numbers replayed, then the rest of the script —
// with a fresh run of the same script to its suspension (live host calls
// to a host that answers at once, recording). journal_B is the journal's
// size.
//
//	go test ./internal/sandbox -run '^$' -bench Resume -count 5
func BenchmarkResume(b *testing.B) {
	for _, calls := range []int{0, 5, 20} {
		source := fmt.Sprintf(`
const started = Date.now(), seed = Math.random()
const rows = []
for (let i = 0; i < %d; i++) rows.push(api.get('crm', '/customers/' + i).json)
const answer = approval.request({message: 'ok?', data: {rows: rows.length}})
return JSON.stringify({started, seed, rows, answer})`, calls)
		host := HostFunc(func(_ context.Context, c HostCall) HostReply {
			return HostReply{Value: json.RawMessage(`{"status":200,"json":{"id":42,"name":"Ana Maria","plan":"gold"}}`)}
		})
		limits := Limits{Timeout: 5 * time.Second}.WithDefaults()
		req := Request{Source: source, Capabilities: []string{"api", "approval"}, Host: host}
		first := Execute(context.Background(), limits, req)
		if first.Suspended == nil {
			b.Fatalf("the script did not suspend: %+v", first.Err)
		}
		b.Run(fmt.Sprintf("calls=%d/fresh", calls), func(b *testing.B) {
			for b.Loop() {
				if res := Execute(context.Background(), limits, req); res.Suspended == nil {
					b.Fatal(res.Err)
				}
			}
			b.ReportMetric(float64(len(first.Suspended.Journal)), "journal_B")
		})
		b.Run(fmt.Sprintf("calls=%d/resume", calls), func(b *testing.B) {
			resumed := req
			resumed.Journal, resumed.Resolution = first.Suspended.Journal, json.RawMessage(`{"approved":true}`)
			for b.Loop() {
				if res := Execute(context.Background(), limits, resumed); !res.OK() || res.Suspended != nil {
					b.Fatal(res.Err)
				}
			}
			b.ReportMetric(float64(len(first.Suspended.Journal)), "journal_B")
		})
	}
}
