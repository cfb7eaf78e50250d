package consumer

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkResultLookup measures what looking a job's result up before
// every run costs (LookupEveryDelivery, the default with STREAM_REPLICAS
// above 1) against looking up on redeliveries only, on a 3-node cluster
// with R3 streams, for each broker build. Two replicas on two sets of
// streams of the same cluster take turns: one op is a batch of 500 cpf jobs
// published at once and run to stored results by each, so that the
// machine's swings hit both alike. It reports the median jobs/s of each
// and the median of the paired ratios (every/redeliveries).
//
//	go test ./internal/consumer -run '^$' -bench ResultLookup -benchtime 15x
func BenchmarkResultLookup(b *testing.B) {
	for _, kind := range testenv.NATSKinds {
		b.Run(string(kind)+"/cluster3", func(b *testing.B) {
			url := testenv.StartCluster(b, kind, 3).URLs()
			type variant struct {
				name string
				e    *benchEnv
				done uint64
				took []time.Duration
			}
			vs := []*variant{
				{name: "redeliveries", e: startLookupBenchEnv(b, url, 3, LookupRedeliveries)},
				{name: "every", e: startLookupBenchEnv(b, url, 3, LookupEveryDelivery)},
			}
			const batch = 500
			for b.Loop() {
				for _, v := range vs {
					start := time.Now()
					for i := range batch {
						v.e.publishAsync(b, fmt.Sprintf("lk-%d", int(v.done)+i), nil)
					}
					v.done += batch
					v.e.waitResults(b, v.done)
					v.took = append(v.took, time.Since(start))
				}
			}
			ratios := make([]float64, len(vs[0].took))
			for i := range ratios {
				ratios[i] = float64(vs[0].took[i]) / float64(vs[1].took[i])
			}
			b.ReportMetric(testenv.Median(ratios), "every/redeliveries")
			for _, v := range vs {
				rates := make([]float64, len(v.took))
				for i, d := range v.took {
					rates[i] = batch / d.Seconds()
				}
				b.ReportMetric(testenv.Median(rates), v.name+"-jobs/s")
			}
		})
	}
}

// startLookupBenchEnv starts one replica with production limits on a
// cluster's streams of the given replicas, looking results up as lookup
// says.
func startLookupBenchEnv(b *testing.B, url string, replicas int, lookup ResultLookup) *benchEnv {
	cfg := testConfig(b, url)
	cfg.Replicas = replicas
	cfg.ResultLookup = lookup
	cfg.Parallel = sandbox.DefaultMaxParallel
	cfg.ScriptTimeout = sandbox.DefaultTimeout
	cfg.AckWait = 30 * time.Second
	cfg.JobsMaxMsgs = -1
	nc := connect(b, url)
	startExecutorWith(b, connect(b, url), cfg, Options{Runner: benchRunners[0].make(b, cfg.Parallel)})
	return &benchEnv{cfg: cfg, nc: nc, js: jetStream(b, nc)}
}
