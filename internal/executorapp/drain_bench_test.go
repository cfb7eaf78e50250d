package executorapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/testenv"
)

// BenchmarkDrain measures how fast executor replicas (the real binary,
// worker pool, SANDBOX_MAX_PARALLEL=8 each) drain a backlog of the seed's
// cpf job, against one nats-server process and against a 3-node cluster
// with R3 streams (STREAM_REPLICAS=3, NATS_URL listing the three nodes),
// with 1, 2 and 3 replicas. One drain publishes drainJobs jobs while no
// replica runs, starts the replicas together and waits for every result;
// its rate is taken between the 10th and the 90th percent of the results
// (the replicas' start-up left out). One op is a round of the six drains,
// one after the other, so that the machine's swings hit them alike; the
// benchmark reports the median jobs/s of each over the rounds, and the
// median of each round's cluster/single ratio per replica count.
//
//	go test ./internal/executorapp -run '^$' -bench Drain -benchtime 3x -timeout 60m
//
// Everything shares the machine's cores: brokers, replicas and their
// workers. On a 2-core machine more replicas add no cores, only
// contention; the figures show what a cluster costs against one server,
// and that replicas share a backlog.
func BenchmarkDrain(b *testing.B) {
	for _, kind := range []testenv.NATSKind{testenv.NATSModule, testenv.NATSMachine} {
		b.Run(string(kind), func(b *testing.B) {
			single := testenv.StartNATSProcess(b, kind, testenv.NATSProcessOptions{}).URL()
			cluster := testenv.StartCluster(b, kind, 3).URLs()
			rates := map[string][]float64{}
			for b.Loop() {
				for executors := 1; executors <= 3; executors++ {
					s := drainOnce(b, single, 1, executors)
					c := drainOnce(b, cluster, 3, executors)
					rates[fmt.Sprintf("single-%dx", executors)] = append(rates[fmt.Sprintf("single-%dx", executors)], s)
					rates[fmt.Sprintf("cluster3-%dx", executors)] = append(rates[fmt.Sprintf("cluster3-%dx", executors)], c)
					rates[fmt.Sprintf("ratio-%dx", executors)] = append(rates[fmt.Sprintf("ratio-%dx", executors)], c/s)
					b.Logf("%d executor(s): single %.0f jobs/s, cluster3 %.0f jobs/s", executors, s, c)
				}
			}
			for name, rs := range rates {
				unit := "jobs/s"
				if strings.HasPrefix(name, "ratio") {
					unit = "cluster/single"
				}
				slices.Sort(rs)
				b.ReportMetric(rs[len(rs)/2], name+"-"+unit)
			}
		})
	}
}

const drainJobs = 4000

// drainOnce publishes drainJobs jobs on fresh streams, starts the
// executors together and returns the drain rate between 10 % and 90 % of
// the results.
func drainOnce(b *testing.B, url string, streamReplicas, executors int) float64 {
	rate, _ := drainWith(b, url, streamReplicas, drainJobs, func(env map[string]string, _ consumer.Config) drainers {
		var procs []*proc
		for range executors {
			procs = append(procs, startBinary(b, env))
		}
		return drainers{stop: func() {
			for _, p := range procs {
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}}
	})
	return rate
}

// drainers are the consumers of one drain.
type drainers struct {
	stop func()
	// cpu, when set, reads the CPU time used so far by each part of the
	// drain (the executor, its workers, the broker...).
	cpu func() map[string]time.Duration
}

// drainWith publishes jobs cpf jobs on fresh streams (provisioned as the
// executor provisions them), starts the consumers with start, and returns
// the rate at which results are stored between 10 % and 90 % of them (the
// consumers' start-up left out), and the CPU time per job each part used
// over the same span (when the drainers tell it). It stops the consumers
// and deletes the streams before it returns.
func drainWith(b *testing.B, url string, streamReplicas, jobs int, start func(env map[string]string, cfg consumer.Config) drainers) (float64, map[string]time.Duration) {
	bb, done := newBenchBroker(b, url, streamReplicas)
	defer done()
	env, cfg, js := bb.env, bb.cfg, bb.js
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	job := cpfExample(b)
	for i := range jobs {
		job.ID = fmt.Sprintf("drain-%05d", i)
		bb.publish(b, job, nil)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(2 * time.Minute):
		b.Fatal("publishing the backlog took over 2 minutes")
	}
	d := start(env, cfg)
	defer d.stop()
	cpu := d.cpu
	if cpu == nil {
		cpu = func() map[string]time.Duration { return nil }
	}
	var t10, t90 time.Time
	var cpu10, cpu90 map[string]time.Duration
	deadline := time.Now().Add(5 * time.Minute)
	for t90.IsZero() {
		n := int(bb.stored(ctx))
		now := time.Now()
		if t10.IsZero() && n >= jobs/10 {
			t10, cpu10 = now, cpu()
		}
		if n >= jobs*9/10 {
			t90, cpu90 = now, cpu()
		}
		if now.After(deadline) {
			b.Fatalf("only %d of %d results after 5 minutes", n, jobs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	perJob := map[string]time.Duration{}
	for k, v := range cpu90 {
		perJob[k] = (v - cpu10[k]) / time.Duration(jobs*8/10)
	}
	return float64(jobs*8/10) / t90.Sub(t10).Seconds(), perJob
}

// benchBroker is a benchmark's connection to a broker with fresh streams,
// provisioned as the executor provisions them, and the environment of an
// executor that uses them.
type benchBroker struct {
	env map[string]string
	cfg consumer.Config
	js  jetstream.JetStream
	nc  *nats.Conn
}

// newBenchBroker connects to url and provisions fresh streams; done
// deletes them and closes the connection.
func newBenchBroker(b *testing.B, url string, streamReplicas int, opts ...jetstream.JetStreamOpt) (*benchBroker, func()) {
	env, cfg := drainNames(b, url, streamReplicas)
	nc, err := nats.Connect(url, nats.MaxReconnects(-1))
	if err != nil {
		b.Fatal(err)
	}
	js, err := jetstream.New(nc, opts...)
	if err != nil {
		nc.Close()
		b.Fatal(err)
	}
	done := func() {
		for _, s := range cfg.Streams() {
			_ = js.DeleteStream(context.Background(), s)
		}
		nc.Close()
	}
	provision(b, js, cfg, time.Minute)
	return &benchBroker{env: env, cfg: cfg, js: js, nc: nc}, done
}

// stored is how many results the results stream holds (0 when the
// broker does not answer).
func (bb *benchBroker) stored(ctx context.Context) uint64 {
	info, err := bb.js.Stream(ctx, bb.cfg.ResultsStream)
	if err != nil {
		return 0
	}
	return info.CachedInfo().State.Msgs
}

// publish sends job without waiting for the broker's answer, with the
// given headers, retrying while too many answers are outstanding.
func (bb *benchBroker) publish(b *testing.B, job flowjob.Job, header map[string]string) {
	data, _ := json.Marshal(job)
	msg := nats.NewMsg(bb.cfg.Subjects().Jobs())
	msg.Data = data
	msg.Header.Set(flowjob.HeaderMsgID, job.ID)
	for k, v := range header {
		msg.Header.Set(k, v)
	}
	for {
		_, err := bb.js.PublishMsgAsync(msg)
		if err == nil {
			return
		}
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			b.Fatalf("publishing: %v", err)
		}
	}
}

// drainNames are fresh names on the broker, for the executors' environment
// and the benchmark's own provisioning.
func drainNames(b *testing.B, url string, streamReplicas int) (map[string]string, consumer.Config) {
	id := fmt.Sprintf("%d", time.Now().UnixNano())
	env := map[string]string{
		"NATS_URL": url, "STREAM_REPLICAS": fmt.Sprint(streamReplicas),
		"JOBS_STREAM": "BJOBS_" + id, "RESULTS_STREAM": "BRESULTS_" + id, "DLQ_STREAM": "BDLQ_" + id,
		"CONSUMER_NAME": "BEXEC_" + id, "SUBJECT_PREFIX": "bench." + id,
		"JOBS_MAX_MSGS": "-1", "ADMIN_ADDR": "127.0.0.1:0", "LOG_LEVEL": "warn",
	}
	cfg, err := ConfigFromEnv(envOf(env))
	if err != nil {
		b.Fatal(err)
	}
	return env, cfg.Consumer()
}

// cpfExample is the seed's cpf job of examples/.
func cpfExample(b *testing.B) flowjob.Job {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "01-success-cpf.json"))
	if err != nil {
		b.Fatal(err)
	}
	var job flowjob.Job
	if err := json.Unmarshal(data, &job); err != nil {
		b.Fatal(err)
	}
	return job
}
