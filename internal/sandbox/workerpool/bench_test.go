package workerpool

import (
	"context"
	"testing"

	"github.com/flowscript/flowscript/internal/sandbox"
)

var seedJobs = []struct {
	name string
	req  sandbox.Request
	want string
}{
	{"cpf", sandbox.Request{Source: cpfScript, Inputs: []sandbox.Input{{Name: "cpf", Value: "123.456.789-09"}}}, "valido"},
	{"nome", sandbox.Request{Source: nomeScript, Inputs: []sandbox.Input{{Name: "nome", Value: "maria da silva"}}}, "Maria Da Silva"},
}

// BenchmarkPoolThroughput: the seed's scripts through a pool of 8 workers,
// with enough callers to keep all of them busy. Compare exec/s with the
// issue's target of 5,000.
//
//	go test -run '^$' -bench PoolThroughput -count 5 ./internal/sandbox/workerpool/
func BenchmarkPoolThroughput(b *testing.B) {
	p := newTestPool(b, Config{Limits: sandbox.Limits{MaxParallel: 8}})
	for _, job := range seedJobs {
		b.Run(job.name, func(b *testing.B) {
			b.SetParallelism(8) // 8 × GOMAXPROCS callers for 8 workers
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if res := p.Run(context.Background(), job.req); res.Output != job.want {
						b.Errorf("got %q, %v", res.Output, res.Err)
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "exec/s")
		})
	}
}

// BenchmarkPerJob: one caller, one job at a time, in this process
// (sandbox.Execute) and through a worker. The difference of the two ns/op
// is the pool's overhead per job (target ≤ 50 µs).
//
//	go test -run '^$' -bench PerJob -count 5 ./internal/sandbox/workerpool/
func BenchmarkPerJob(b *testing.B) {
	limits := sandbox.Limits{MaxParallel: 1}.WithDefaults()
	for _, job := range seedJobs {
		b.Run(job.name+"/in-process", func(b *testing.B) {
			for b.Loop() {
				if res := sandbox.Execute(context.Background(), limits, job.req); res.Output != job.want {
					b.Fatalf("got %q, %v", res.Output, res.Err)
				}
			}
		})
		b.Run(job.name+"/pool", func(b *testing.B) {
			p := newTestPool(b, Config{Limits: limits})
			for b.Loop() {
				if res := p.Run(context.Background(), job.req); res.Output != job.want {
					b.Fatalf("got %q, %v", res.Output, res.Err)
				}
			}
		})
	}
}

// BenchmarkIdleWorkers reports the resident memory of an idle pool of 8
// workers (target ≤ 120 MB in total) after each has run one job.
//
//	go test -run '^$' -bench IdleWorkers -count 5 ./internal/sandbox/workerpool/
func BenchmarkIdleWorkers(b *testing.B) {
	p := newTestPool(b, Config{Limits: sandbox.Limits{MaxParallel: 8}})
	for range 8 {
		p.Run(context.Background(), seedJobs[0].req)
	}
	var total uint64
	for b.Loop() {
		total = idleRSS(b, p)
	}
	b.ReportMetric(float64(total)/(1<<20), "MB-RSS-total")
}
