package capabilities

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func TestMain(m *testing.M) {
	workerpool.MaybeRunWorker() // the benchmarks run scripts in worker processes
	os.Exit(m.Run())
}

// BenchmarkHostCall is the cost of one host call, in process and through
// the worker pool (a host-call frame to the parent and back):
//
//	go test ./internal/capabilities -run '^$' -bench HostCall -benchmem -count 5
//
// none is a job without a host call (the baseline); noop a kv.get answered
// at once by the host, so the difference is the boundary's own cost;
// api-loopback an api.get through a connector to a loopback service.
func BenchmarkHostCall(b *testing.B) {
	s := newStub(b)
	caps := newCapabilities(b, s)
	grants, apiHost := caps.HostFor(job("acme", "s1", "api", "kv"))
	noop := sandbox.HostFunc(func(context.Context, sandbox.HostCall) sandbox.HostReply {
		return sandbox.HostReply{Value: json.RawMessage(`1`)}
	})
	cases := []struct {
		name string
		req  sandbox.Request
	}{
		{"none", sandbox.Request{Source: "return 1"}},
		{"noop", sandbox.Request{Source: "return kv.get('k')", Capabilities: []string{"kv"}, Host: noop}},
		{"api-loopback", sandbox.Request{Source: "return api.get('crm', '/customers/1').status", Capabilities: grants, Host: apiHost}},
	}
	limits := sandbox.Limits{MaxParallel: 1}.WithDefaults()
	pool, err := workerpool.New(context.Background(), workerpool.Config{Limits: limits})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = pool.Close() })
	for _, c := range cases {
		b.Run("inprocess/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if res := sandbox.Execute(context.Background(), limits, c.req); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
		b.Run("pool/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if res := pool.Run(context.Background(), c.req); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
