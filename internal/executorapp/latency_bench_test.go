//go:build linux

package executorapp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkBinaryLatency is issue 16's latency target in production's
// shape: the executor binary (8 workers, its own GC target) and a
// nats-server of each kind run as processes of their own, and only the
// load runs in the test process. internal/consumer's ExecutorLatency
// measures the same path with the executor (and, for "embedded", the
// broker) inside the test process, sharing its GC and its threads with the
// load generator.
//
// One op: a probe of latencyJobs jobs published at once gives the maximum
// rate; latencyJobs more are then published at half of it, each with a
// Reply-To, and each one's time from publishing to its result's arrival
// is taken. A warm-up of latencyJobs/10 jobs runs first. The benchmark
// reports the medians over ops of the maximum rate, p50 and p99, and of
// how busy the machine's CPUs were while the paced jobs were published
// (busy-paced, 0 to 1: on a host where a wake-up is dear, half the maximum
// rate is far from half the load, since the jobs no longer come in batches).
//
//	FLOWSCRIPT_REQUIRE_SERVICES=1 go test ./internal/executorapp -run '^$' -bench BinaryLatency -benchtime 3x
func BenchmarkBinaryLatency(b *testing.B) {
	for _, kind := range []testenv.NATSKind{testenv.NATSModule, testenv.NATSMachine} {
		b.Run(string(kind), func(b *testing.B) {
			np := testenv.StartNATSProcess(b, kind, testenv.NATSProcessOptions{})
			url, broker := np.URL(), natsPID(np.Port)
			bb, done := newBenchBroker(b, url, 1, jetstream.WithPublishAsyncMaxPending(1024))
			defer done()
			cfg := bb.cfg
			p := startBinary(b, bb.env)
			defer func() { // before done deletes its streams
				_ = p.cmd.Process.Kill()
				<-p.done
			}()

			l := &latencyLoad{b: b, bb: bb, job: cpfExample(b),
				replies: "bench.reply." + cfg.Consumer, sent: map[string]time.Time{}}
			sub, err := bb.nc.Subscribe(l.replies+".>", l.receive)
			if err != nil {
				b.Fatal(err)
			}
			defer sub.Unsubscribe() //nolint:errcheck
			ctx := context.Background()
			waitStored := func(want uint64) {
				deadline := time.Now().Add(2 * time.Minute)
				for bb.stored(ctx) < want {
					if time.Now().After(deadline) {
						b.Fatalf("only %d of %d results after 2 minutes", bb.stored(ctx), want)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}

			for range latencyJobs / 10 {
				l.publish(false)
			}
			waitStored(uint64(l.n))
			var maxRates, p50s, p99s, busies []float64
			for b.Loop() {
				start := time.Now()
				for range latencyJobs {
					l.publish(false)
				}
				waitStored(uint64(l.n))
				maxRate := latencyJobs / time.Since(start).Seconds()

				l.reset()
				cpu0 := pacedCPU(p.cmd.Process.Pid, broker)
				busy0, all0 := machineCPU()
				tick := time.NewTicker(time.Millisecond)
				t0 := time.Now()
				for n := 0; n < latencyJobs; {
					<-tick.C
					due := min(int(time.Since(t0).Seconds()*maxRate/2), latencyJobs)
					for ; n < due; n++ {
						l.publish(true)
					}
				}
				tick.Stop()
				busy1, all1 := machineCPU()
				busy := float64(busy1-busy0) / float64(max(all1-all0, 1))
				waitStored(uint64(l.n))
				cpu1 := pacedCPU(p.cmd.Process.Pid, broker)
				lat := l.wait(latencyJobs)
				p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
				b.Logf("max %.0f jobs/s; at %.0f jobs/s: p50 %.2f ms, p99 %.2f ms (%d replies), the machine's CPUs %.0f %% busy; per paced job %s",
					maxRate, maxRate/2, ms(p50), ms(p99), len(lat), 100*busy, perJobText(perJob(cpu0, cpu1, latencyJobs)))
				maxRates, p50s, p99s = append(maxRates, maxRate), append(p50s, ms(p50)), append(p99s, ms(p99))
				busies = append(busies, busy)
			}
			b.ReportMetric(testenv.Quantile(maxRates, 0.5), "max_jobs/s")
			b.ReportMetric(testenv.Quantile(p50s, 0.5), "p50_ms")
			b.ReportMetric(testenv.Quantile(p99s, 0.5), "p99_ms")
			b.ReportMetric(testenv.Quantile(p99s, 1), "p99-max_ms")
			b.ReportMetric(testenv.Quantile(busies, 0.5), "busy-paced")
		})
	}
}

// pacedCPU is the figures so far (procFigures) of the executor, its
// workers, the broker and the load (this process).
func pacedCPU(executor, broker int) map[string]time.Duration {
	return procFigures(map[string][]int{"executor": {executor}, "workers": childPIDs(executor),
		"broker": {broker}, "load": {os.Getpid()}})
}

// perJob is the growth from a to b of each entry, divided by jobs.
func perJob(a, b map[string]time.Duration, jobs int) map[string]time.Duration {
	m := make(map[string]time.Duration, len(b))
	for k, v := range b {
		m[k] = (v - a[k]) / time.Duration(jobs)
	}
	return m
}

// latencyJobs is the size of a probe and of a paced run.
const latencyJobs = 2000

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// latencyLoad publishes cpf jobs and times the replies of the paced ones.
type latencyLoad struct {
	b       *testing.B
	bb      *benchBroker
	job     flowjob.Job
	replies string
	n       int // jobs published so far

	mu   sync.Mutex
	sent map[string]time.Time
	lat  []time.Duration
}

// publish sends the next job; a timed one carries a Reply-To under
// l.replies.
func (l *latencyLoad) publish(timed bool) {
	l.job.ID = fmt.Sprintf("lat-%06d", l.n)
	l.n++
	var header map[string]string
	if timed {
		header = map[string]string{flowjob.HeaderReplyTo: l.replies + "." + l.job.ID}
		l.mu.Lock()
		l.sent[l.job.ID] = time.Now()
		l.mu.Unlock()
	}
	l.bb.publish(l.b, l.job, header)
}

func (l *latencyLoad) receive(m *nats.Msg) {
	var r flowjob.Result
	if json.Unmarshal(m.Data, &r) != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if at, ok := l.sent[r.JobID]; ok {
		l.lat = append(l.lat, time.Since(at))
		delete(l.sent, r.JobID)
	}
}

func (l *latencyLoad) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.sent)
	l.lat = l.lat[:0]
}

// wait returns the sorted latencies once want replies arrived (or after
// 10 s with those that did).
func (l *latencyLoad) wait(want int) []time.Duration {
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		n := len(l.lat)
		l.mu.Unlock()
		if n >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lat) == 0 {
		l.b.Fatal("no replies")
	}
	lat := slices.Clone(l.lat)
	slices.Sort(lat)
	return lat
}

// machineCPU reads /proc/stat's first line: the CPU time of all the
// machine's cores that was busy, and in all, in clock ticks.
func machineCPU() (busy, all int64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	for i := 1; i < len(f); i++ {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		all += v
		if i != 4 && i != 5 {
			busy += v
		}
	}
	return busy, all
}
