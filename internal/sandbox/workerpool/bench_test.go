package workerpool

import (
	"context"
	"sync"
	"testing"
	"time"

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

// BenchmarkPerJob: one caller, one job at a time, alternating a run in
// this process (sandbox.Execute) and a run through a worker, so that a
// change of load on the machine hits both alike. It reports each one's
// time per job and their difference, the pool's overhead per job (target
// ≤ 50 µs).
//
//	go test -run '^$' -bench PerJob -count 5 ./internal/sandbox/workerpool/
func BenchmarkPerJob(b *testing.B) {
	limits := sandbox.Limits{MaxParallel: 1}.WithDefaults()
	p := newTestPool(b, Config{Limits: limits})
	for _, job := range seedJobs {
		b.Run(job.name, func(b *testing.B) {
			var inProcess, pool, inWorker time.Duration
			for b.Loop() {
				t0 := time.Now()
				res := sandbox.Execute(context.Background(), limits, job.req)
				t1 := time.Now()
				res2 := p.Run(context.Background(), job.req)
				t2 := time.Now()
				if res.Output != job.want || res2.Output != job.want {
					b.Fatalf("got %q (%v) in process, %q (%v) through the pool", res.Output, res.Err, res2.Output, res2.Err)
				}
				inProcess += t1.Sub(t0)
				pool += t2.Sub(t1)
				inWorker += res2.Duration
			}
			n := float64(b.N)
			b.ReportMetric(float64(inProcess.Microseconds())/n, "µs-in-process/job")
			b.ReportMetric(float64(pool.Microseconds())/n, "µs-pool/job")
			b.ReportMetric(float64((pool-inProcess).Microseconds())/n, "µs-overhead/job")
			// The worker's own measure of the job: the rest of the pool's
			// time is the trip through the pipes and the parent.
			b.ReportMetric(float64(inWorker.Microseconds())/n, "µs-in-worker/job")
		})
	}
}

// BenchmarkIdleWorkers reports the resident memory of an idle pool of 8
// workers (target ≤ 120 MB in total): "fresh" after each has run one job,
// "after-load" after the pool has run 4,000 jobs, when each worker may hold
// garbage its GC has not collected yet.
//
//	go test -run '^$' -bench IdleWorkers -count 5 ./internal/sandbox/workerpool/
func BenchmarkIdleWorkers(b *testing.B) {
	for _, load := range []struct {
		name string
		jobs int
	}{{"fresh", 8}, {"after-load", 4000}} {
		b.Run(load.name, func(b *testing.B) {
			p := newTestPool(b, Config{Limits: sandbox.Limits{MaxParallel: 8}})
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					for j := i; j < load.jobs; j += 8 {
						if res := p.Run(context.Background(), seedJobs[j%2].req); !res.OK() {
							b.Error(res.Err)
						}
					}
				})
			}
			wg.Wait()
			var total uint64
			for b.Loop() {
				total = idleRSS(b, p)
			}
			b.ReportMetric(float64(total)/(1<<20), "MB-RSS-total")
		})
	}
}

// BenchmarkRoundTrip: the pool's fixed cost per job, through a fake worker
// that answers at once without running anything (frames, pipes, wake-ups
// of both processes).
//
//	go test -run '^$' -bench RoundTrip -count 5 ./internal/sandbox/workerpool/
func BenchmarkRoundTrip(b *testing.B) {
	p := newTestPool(b, Config{Limits: sandbox.Limits{MaxParallel: 1}, workerArgs: []string{fakeWorkerArg, "normal"}})
	req := seedJobs[0].req
	for b.Loop() {
		if res := p.Run(context.Background(), req); !res.OK() {
			b.Fatal(res.Err)
		}
	}
}
