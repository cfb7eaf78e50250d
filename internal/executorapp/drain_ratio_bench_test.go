//go:build linux

package executorapp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/testenv"
)

// ratioJobs is the backlog of one drain of BenchmarkDrainRatio.
const ratioJobs = 10000

// BenchmarkDrainRatio measures, in one run and on one broker, how close the
// executor comes to what JetStream itself allows: the raw pipeline bound
// beside the executor's drain rate, on a nats-server process of the
// module's build and on the machine's nats-server (2.9).
//
//   - raw: 8 goroutines of this process, each pulling one job, storing a
//     fixed result with an expected last subject sequence of 0 (the
//     executor's first-writer-wins store) and acking it; no sandbox, no
//     decoding, no telemetry.
//   - drain: one executor, the real binary with the worker pool and its
//     defaults (SANDBOX_MAX_PARALLEL=8), draining the same backlog.
//   - raw-confirmed: the raw bound with the ack confirmed by the broker
//     (DoubleAck), as the executor must confirm it (a lost ack would cost a
//     delivery); reported beside the raw bound, as executor/raw-confirmed.
//
// Each drain is a backlog of 10,000 seed cpf jobs published before the
// consumers start, on fresh streams; its rate is taken between the 10th and
// the 90th percent of the stored results. One op is an A/B pair (the order
// alternates) and a raw-confirmed drain after it, and the benchmark reports
// the medians of each rate and of the pairs' drain/raw ratios, with their
// quartiles, the median drain/raw-confirmed ratio, and each process's CPU
// time, context switches and read and write system calls per job (every
// thread's, from /proc):
//
//	go test ./internal/executorapp -run '^$' -bench DrainRatio -benchtime 5x -timeout 30m
//
// Everything shares the machine's cores (broker, this process, the
// executor and its workers): the ratio within a pair is what counts.
func BenchmarkDrainRatio(b *testing.B) {
	for _, kind := range []testenv.NATSKind{testenv.NATSModule, testenv.NATSMachine} {
		b.Run(string(kind), func(b *testing.B) {
			nats := testenv.StartNATSProcess(b, kind, testenv.NATSProcessOptions{})
			url, broker := nats.URL(), natsPID(nats.Port)
			executorBinary(b) // built before the first pair, not inside it
			var raws, drains, ratios, confirmedRatios []float64
			cpu := map[string][]float64{}
			for b.Loop() {
				var raw, drain float64
				var rawCPU, drainCPU map[string]time.Duration
				if len(ratios)%2 == 0 {
					raw, rawCPU = rawDrain(b, url, broker)
					drain, drainCPU = executorDrain(b, url, broker)
				} else {
					drain, drainCPU = executorDrain(b, url, broker)
					raw, rawCPU = rawDrain(b, url, broker)
				}
				confirmed, _ := rawDrainWith(b, url, broker, rawConfirmed)
				confirmedRatios = append(confirmedRatios, drain/confirmed)
				b.Logf("pair %d: raw %.0f jobs/s, executor %.0f jobs/s, ratio %.2f; per job: raw %s; executor %s; raw with confirmed acks %.0f jobs/s, ratio %.2f",
					len(ratios)+1, raw, drain, drain/raw, perJobText(rawCPU), perJobText(drainCPU), confirmed, drain/confirmed)
				raws, drains, ratios = append(raws, raw), append(drains, drain), append(ratios, drain/raw)
				for k, v := range rawCPU {
					cpu["raw_"+k] = append(cpu["raw_"+k], perJobValue(k, v))
				}
				for k, v := range drainCPU {
					cpu["executor_"+k] = append(cpu["executor_"+k], perJobValue(k, v))
				}
			}
			reportPerJob(b, cpu)
			b.ReportMetric(testenv.Quantile(raws, 0.5), "raw_jobs/s")
			b.ReportMetric(testenv.Quantile(drains, 0.5), "executor_jobs/s")
			b.ReportMetric(testenv.Quantile(ratios, 0.5), "executor/raw")
			b.ReportMetric(testenv.Quantile(ratios, 0.25), "executor/raw-p25")
			b.ReportMetric(testenv.Quantile(ratios, 0.75), "executor/raw-p75")
			b.ReportMetric(testenv.Quantile(confirmedRatios, 0.5), "executor/raw-confirmed")
		})
	}
}

// perJobValue is a drain's per-job figure k as a number: CPU µs, or a
// count for an isCount entry.
func perJobValue(k string, v time.Duration) float64 {
	if isCount(k) {
		return float64(v) / 1000
	}
	return float64(v.Microseconds())
}

// perJobText lists a drain's per-job figures: CPU time, then context
// switches and system calls.
func perJobText(m map[string]time.Duration) string {
	keys := slices.Sorted(maps.Keys(m))
	var cpu, switches, syscalls, faults []string
	for _, k := range keys {
		if name, ok := strings.CutPrefix(k, switchesPrefix); ok {
			switches = append(switches, fmt.Sprintf("%s %.2f", name, perJobValue(k, m[k])))
		} else if name, ok := strings.CutPrefix(k, syscallsPrefix); ok {
			syscalls = append(syscalls, fmt.Sprintf("%s %.2f", name, perJobValue(k, m[k])))
		} else if name, ok := strings.CutPrefix(k, faultsPrefix); ok {
			faults = append(faults, fmt.Sprintf("%s %.2f", name, perJobValue(k, m[k])))
		} else {
			cpu = append(cpu, fmt.Sprintf("%s %v", k, m[k]))
		}
	}
	text := "CPU " + strings.Join(cpu, ", ")
	for _, g := range []struct {
		name  string
		parts []string
	}{{"context switches", switches}, {"reads and writes", syscalls}, {"page faults", faults}} {
		if len(g.parts) > 0 {
			text += ", " + g.name + " " + strings.Join(g.parts, ", ")
		}
	}
	return text
}

// executorDrain is one executor binary (defaults: the worker pool, 8
// workers) draining ratioJobs jobs, with the CPU per job of the executor,
// its workers and the broker.
func executorDrain(b *testing.B, url string, broker int) (float64, map[string]time.Duration) {
	return drainWith(b, url, 1, ratioJobs, func(env map[string]string, _ consumer.Config) drainers {
		p := startBinary(b, env)
		pid := p.cmd.Process.Pid
		return drainers{
			stop: func() {
				_ = p.cmd.Process.Kill()
				<-p.done
			},
			cpu: func() map[string]time.Duration {
				return procFigures(map[string][]int{"executor": {pid}, "workers": childPIDs(pid), "broker": {broker}})
			},
		}
	})
}

// rawParallel is the raw bound's number of pulling goroutines: the
// executor's default SANDBOX_MAX_PARALLEL.
const rawParallel = 8

// rawDrain is the raw pipeline bound draining ratioJobs jobs: see
// BenchmarkDrainRatio.
func rawDrain(b *testing.B, url string, broker int) (float64, map[string]time.Duration) {
	return rawDrainWith(b, url, broker, rawNext)
}

// rawMode is how the raw bound pulls and stores: the candidates of a faster
// executor, measured by BenchmarkRawBound.
type rawMode int

const (
	// rawNext: each goroutine pulls one job (Consumer.Next, as the executor
	// does), stores its result and waits for the broker's answer, acks.
	rawNext rawMode = iota
	// rawFetch: one pull of up to 8 jobs at a time, handed to the 8
	// goroutines (several pulls outstanding).
	rawFetch
	// rawAsync: Next, then the result published asynchronously, the job
	// acked when the broker's answer arrives; the goroutine pulls at once.
	rawAsync
	// rawConfirmed: rawNext with the ack confirmed by the broker
	// (DoubleAck), as the executor acks a job whose result it stored.
	rawConfirmed
)

// BenchmarkRawBound measures the raw bound's variants side by side on the
// machine's nats-server: what pulling in batches and storing results
// asynchronously save the broker and the client per job.
//
//	go test ./internal/executorapp -run '^$' -bench RawBound -benchtime 3x
func BenchmarkRawBound(b *testing.B) {
	nats := testenv.StartNATSProcess(b, testenv.NATSMachine, testenv.NATSProcessOptions{})
	url, broker := nats.URL(), natsPID(nats.Port)
	modes := []string{"next", "fetch8", "async", "confirmed"}
	rates, cpu := map[string][]float64{}, map[string][]float64{}
	for b.Loop() {
		for m, name := range modes {
			rate, c := rawDrainWith(b, url, broker, rawMode(m))
			rates[name] = append(rates[name], rate)
			for k, v := range c {
				cpu[name+"_"+k] = append(cpu[name+"_"+k], perJobValue(k, v))
			}
		}
	}
	for k, v := range rates {
		b.ReportMetric(testenv.Quantile(v, 0.5), k+"_jobs/s")
	}
	reportPerJob(b, cpu)
}

// reportPerJob reports the medians of per-job figures (perJobValue) by
// name.
func reportPerJob(b *testing.B, perJob map[string][]float64) {
	for k, v := range perJob {
		unit := "_cpu-µs/job"
		if isCount(k) {
			unit = "/job"
		}
		b.ReportMetric(testenv.Quantile(v, 0.5), k+unit)
	}
}

func rawDrainWith(b *testing.B, url string, broker int, mode rawMode) (float64, map[string]time.Duration) {
	return drainWith(b, url, 1, ratioJobs, func(_ map[string]string, cfg consumer.Config) drainers {
		nc, err := nats.Connect(url, nats.MaxReconnects(-1))
		if err != nil {
			b.Fatal(err)
		}
		js, err := jetstream.New(nc)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cons, err := js.Consumer(ctx, cfg.JobsStream, cfg.Consumer)
		if err != nil {
			b.Fatal(err)
		}
		// A succeeded result of about the executor's size for cpf.
		body := []byte(`{"version":1,"jobId":"drain-00000","sessionId":"session-42","flowId":"flow-onboarding",` +
			`"blockId":"block-success-cpf","context":"flow","status":"succeeded","variables":{"resultado":"valido"},` +
			`"directive":{"type":"continue"},"durationMs":1,"attempt":1,"completedAt":"2026-12-01T00:00:00Z"}`)
		result := func(msg jetstream.Msg) *nats.Msg {
			res := nats.NewMsg(cfg.Subjects().Result(msg.Headers().Get(flowjob.HeaderMsgID)))
			res.Data = body
			return res
		}
		store := func(msg jetstream.Msg) {
			_, err := js.PublishMsg(ctx, result(msg), jetstream.WithExpectStream(cfg.ResultsStream),
				jetstream.WithExpectLastSequencePerSubject(0))
			if err != nil && !errors.Is(err, context.Canceled) {
				b.Errorf("raw bound: storing a result: %v", err)
			}
			if mode == rawConfirmed {
				_ = msg.DoubleAck(ctx)
			} else {
				_ = msg.Ack()
			}
		}
		jobs := make(chan jetstream.Msg)
		var wg sync.WaitGroup
		if mode == rawFetch {
			wg.Go(func() {
				defer close(jobs)
				for ctx.Err() == nil {
					batch, err := cons.Fetch(rawParallel, jetstream.FetchMaxWait(200*time.Millisecond))
					if err != nil {
						continue
					}
					for msg := range batch.Messages() {
						select {
						case jobs <- msg:
						case <-ctx.Done():
						}
					}
				}
			})
		}
		for range rawParallel {
			wg.Go(func() {
				for ctx.Err() == nil {
					var msg jetstream.Msg
					if mode == rawFetch {
						var ok bool
						if msg, ok = <-jobs; !ok {
							return
						}
					} else if msg, err = cons.Next(jetstream.FetchMaxWait(200 * time.Millisecond)); err != nil {
						continue // idle, or the benchmark is over
					}
					if mode != rawAsync {
						store(msg)
						continue
					}
					f, err := js.PublishMsgAsync(result(msg), jetstream.WithExpectStream(cfg.ResultsStream),
						jetstream.WithExpectLastSequencePerSubject(0))
					if err != nil {
						b.Errorf("raw bound: storing a result: %v", err)
						continue
					}
					wg.Go(func() {
						select {
						case <-f.Ok():
							_ = msg.Ack()
						case err := <-f.Err():
							b.Errorf("raw bound: storing a result: %v", err)
						case <-ctx.Done():
						}
					})
				}
			})
		}
		self := os.Getpid()
		return drainers{
			stop: func() {
				cancel()
				wg.Wait()
				nc.Close()
			},
			cpu: func() map[string]time.Duration {
				return procFigures(map[string][]int{"raw": {self}, "broker": {broker}})
			},
		}
	})
}
