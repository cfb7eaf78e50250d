package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// The benchmarks measure one replica end to end: jobs published to JOBS,
// pulled, run (the seed's cpf script), decided, their results stored in
// RESULTS and the jobs acked.
//
//	go test ./internal/consumer -run '^$' -bench 'Executor' -benchtime 5x -count 5
//
// BenchmarkExecutorThroughput reports jobs/s; BenchmarkExecutorLatency
// first measures the maximum rate, then publishes at half of it and reports
// the p50 and p99 of publish → result (as the Reply-To inbox sees it).

const benchBatch = 1000

type benchRunner struct {
	name string
	make func(b *testing.B, parallel int) sandbox.Runner
}

var benchRunners = []benchRunner{
	{"pool", func(b *testing.B, parallel int) sandbox.Runner {
		pool, err := workerpool.New(context.Background(), workerpool.Config{Limits: sandbox.Limits{MaxParallel: parallel}})
		if err != nil {
			b.Fatalf("starting the worker pool: %v", err)
		}
		b.Cleanup(func() { _ = pool.Close() })
		return pool
	}},
	{"inprocess", func(_ *testing.B, parallel int) sandbox.Runner {
		return sandbox.NewInProcess(sandbox.Limits{MaxParallel: parallel})
	}},
}

// benchEnv is one replica on one broker, ready for load.
type benchEnv struct {
	cfg Config
	nc  *nats.Conn
	js  jetstream.JetStream
}

func eachBenchSetup(b *testing.B, f func(b *testing.B, e *benchEnv)) {
	for _, br := range brokers {
		for _, r := range benchRunners {
			b.Run(br.name+"/"+r.name, func(b *testing.B) {
				// Metrics on, tracing off: production's default telemetry.
				metrics, _ := benchTelemetry(b, false)
				f(b, startBenchEnv(b, br.url(b), r, metrics))
			})
		}
	}
}

// startBenchEnv starts one replica with production limits (the default
// parallelism and script timeout) on the broker at url, recording into
// metrics when not nil.
func startBenchEnv(b *testing.B, url string, r benchRunner, metrics *telemetry.Metrics) *benchEnv {
	cfg := testConfig(b, url)
	cfg.Parallel = sandbox.DefaultMaxParallel
	cfg.ScriptTimeout = sandbox.DefaultTimeout
	cfg.AckWait = 30 * time.Second
	cfg.JobsMaxMsgs = -1
	nc := connect(b, url)
	startExecutorWith(b, connect(b, url), cfg, Options{Runner: r.make(b, cfg.Parallel), Metrics: metrics})
	return &benchEnv{cfg: cfg, nc: nc, js: jetStream(b, nc)}
}

func (e *benchEnv) publishAsync(b *testing.B, id string, header nats.Header) {
	job := cpfJob(id)
	data, _ := json.Marshal(job)
	msg := nats.NewMsg(e.cfg.Subjects().Jobs())
	msg.Data = data
	for k, v := range header {
		msg.Header[k] = v
	}
	msg.Header.Set(flowjob.HeaderMsgID, id)
	for {
		_, err := e.js.PublishMsgAsync(msg)
		if err == nil {
			return
		}
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			b.Fatalf("publishing: %v", err)
		}
	}
}

func (e *benchEnv) waitResults(b *testing.B, want uint64) {
	deadline := time.Now().Add(2 * time.Minute)
	for streamMsgs(b, e.js, e.cfg.ResultsStream) < want {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d results after 2 minutes", streamMsgs(b, e.js, e.cfg.ResultsStream), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkExecutorThroughput: one op is a batch of 1,000 cpf jobs published
// at once and run to stored results.
func BenchmarkExecutorThroughput(b *testing.B) {
	eachBenchSetup(b, func(b *testing.B, e *benchEnv) {
		var done uint64
		start := time.Now()
		for b.Loop() {
			for i := range benchBatch {
				e.publishAsync(b, fmt.Sprintf("tp-%d", int(done)+i), nil)
			}
			done += benchBatch
			e.waitResults(b, done)
		}
		b.ReportMetric(float64(done)/time.Since(start).Seconds(), "jobs/s")
	})
}

// BenchmarkExecutorLatency: publish → result latency at half the maximum
// rate (measured first, over 2,000 jobs). One op is 2,000 paced jobs.
func BenchmarkExecutorLatency(b *testing.B) {
	eachBenchSetup(b, func(b *testing.B, e *benchEnv) {
		const probe, paced = 2000, 2000
		start := time.Now()
		for i := range probe {
			e.publishAsync(b, fmt.Sprintf("probe-%d", i), nil)
		}
		e.waitResults(b, probe)
		maxRate := probe / time.Since(start).Seconds()
		rate := maxRate / 2

		var mu sync.Mutex
		sent := map[string]time.Time{}
		var lat []time.Duration
		replyPrefix := "fsbench." + e.cfg.Consumer + ".reply"
		sub, err := e.nc.Subscribe(replyPrefix+".>", func(m *nats.Msg) {
			var r flowjob.Result
			if json.Unmarshal(m.Data, &r) != nil {
				return
			}
			mu.Lock()
			lat = append(lat, time.Since(sent[r.JobID]))
			mu.Unlock()
		})
		if err != nil {
			b.Fatal(err)
		}
		defer sub.Unsubscribe() //nolint:errcheck
		total := uint64(probe)
		for b.Loop() {
			tick := time.NewTicker(time.Millisecond)
			t0 := time.Now()
			for n := 0; n < paced; {
				<-tick.C
				due := min(int(time.Since(t0).Seconds()*rate), paced)
				for ; n < due; n++ {
					id := fmt.Sprintf("lat-%d", int(total)+n)
					mu.Lock()
					sent[id] = time.Now()
					mu.Unlock()
					e.publishAsync(b, id, nats.Header{flowjob.HeaderReplyTo: []string{replyPrefix + "." + id}})
				}
			}
			tick.Stop()
			total += paced
			e.waitResults(b, total)
		}
		waitDeadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(lat)
			mu.Unlock()
			if uint64(n) >= total-probe || time.Now().After(waitDeadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(lat)
		if len(lat) == 0 {
			b.Fatal("no latency samples")
		}
		b.ReportMetric(maxRate, "max_jobs/s")
		b.ReportMetric(rate, "paced_jobs/s")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
	})
}
