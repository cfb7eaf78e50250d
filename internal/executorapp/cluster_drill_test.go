package executorapp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/testenv"
)

// Cluster drills (issue 21): real executor processes with STREAM_REPLICAS=3
// against a 3-node JetStream cluster of nats-server processes, once per
// broker build (the machine's 2.9 and go.mod's 2.1x). Each drill publishes
// a few hundred jobs with a Reply-To inbox, hurts the cluster while they
// run, and then checks what DESIGN.md §5 promises: every job has exactly
// one stored result (none written twice), nothing stays in JOBS, no job is
// dead-lettered, no inbox is told twice, and the executors that lived
// through it are ready again without a restart.

// drillJobs is how many jobs one drill publishes, at drillRate a second;
// each busy-waits drillJobMs in its sandbox, so that jobs are in flight
// when the cluster is hurt while the drill leaves the machine's two cores
// to the tests running beside it.
const (
	drillJobs  = 240
	drillRate  = 40
	drillJobMs = 5
)

// clusterDrill is one drill's cluster, names, executors and jobs.
type clusterDrill struct {
	t       *testing.T
	cluster *testenv.Cluster
	env     map[string]string
	cfg     consumer.Config
	nc      *nats.Conn
	js      jetstream.JetStream

	replicas  []*replica
	published atomic.Int64
	pubDone   chan struct{}
	jobs      []string

	mu      sync.Mutex
	replies map[string]int
}

// replica is one executor process and its admin address.
type replica struct {
	p     *proc
	admin string
}

// clusterNames are fresh stream and consumer names on the cluster (no
// clean-up: the cluster goes with the test).
func clusterNames(t *testing.T, c *testenv.Cluster) (map[string]string, consumer.Config) {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	id := strings.ToUpper(hex.EncodeToString(b[:]))
	env := map[string]string{
		"NATS_URL": c.URLs(), "STREAM_REPLICAS": "3",
		"JOBS_STREAM": "JOBS_" + id, "RESULTS_STREAM": "RESULTS_" + id, "DLQ_STREAM": "DLQ_" + id,
		"CONSUMER_NAME": "EXEC_" + id, "SUBJECT_PREFIX": "drill." + id,
		"SANDBOX_MAX_PARALLEL": "2", "SANDBOX_TIMEOUT_MS": "2000",
		// A lost ack (its confirmation gave up) comes back soon; the stored
		// result answers it.
		"ACK_WAIT":   "10s",
		"ADMIN_ADDR": "127.0.0.1:0", "LOG_LEVEL": "debug",
	}
	cfg, err := ConfigFromEnv(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	return env, cfg.Consumer()
}

func newClusterDrill(t *testing.T, c *testenv.Cluster) *clusterDrill {
	t.Helper()
	env, cfg := clusterNames(t, c)
	nc, js := testenv.JetStream(t, c.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond),
		nats.Name("cluster-drill"))
	d := &clusterDrill{t: t, cluster: c, env: env, cfg: cfg, nc: nc, js: js, replies: map[string]int{}}
	sub, err := nc.Subscribe(d.inbox("*"), func(m *nats.Msg) {
		var r flowjob.Result
		if json.Unmarshal(m.Data, &r) != nil {
			return
		}
		d.mu.Lock()
		d.replies[m.Subject]++
		d.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return d
}

func (d *clusterDrill) inbox(jobID string) string {
	return "drill-replies." + d.cfg.Consumer + "." + jobID
}

// startReplicas starts n executors at once (no waiting in between).
func (d *clusterDrill) startReplicas(n int) {
	d.t.Helper()
	for range n {
		env := make(map[string]string, len(d.env)+1)
		for k, v := range d.env {
			env[k] = v
		}
		r := &replica{admin: testenv.FreeAddr(d.t)}
		env["ADMIN_ADDR"] = r.admin
		r.p = startBinary(d.t, env)
		d.replicas = append(d.replicas, r)
	}
}

// waitReady waits until every replica answers 200 on /readyz; it fails
// the test at once when one exits.
func (d *clusterDrill) waitReady(within time.Duration, what string) time.Duration {
	d.t.Helper()
	start := time.Now()
	for i, r := range d.replicas {
		waitFor(d.t, within-time.Since(start), fmt.Sprintf("replica %d ready (%s)", i+1, what), func() bool {
			select {
			case <-r.p.done:
				d.t.Fatalf("replica %d exited (%v) %s:\n%s", i+1, r.p.err, what, r.p.stderr.String())
			default:
			}
			return readyz(r.admin) == http.StatusOK
		})
	}
	return time.Since(start)
}

// publish publishes drillJobs jobs at drillRate a second in the
// background, each with a Reply-To inbox, retrying one until the broker
// stores it (the job id is its Nats-Msg-Id, so a retried publish that was
// stored after all is dropped as a duplicate).
func (d *clusterDrill) publish() {
	d.pubDone = make(chan struct{})
	stop := make(chan struct{})
	d.t.Cleanup(func() { // a drill that failed early stops its publisher
		close(stop)
		<-d.pubDone
	})
	for i := range drillJobs {
		d.jobs = append(d.jobs, fmt.Sprintf("job-%04d", i))
	}
	go func() {
		defer close(d.pubDone)
		tick := time.NewTicker(time.Second / drillRate)
		defer tick.Stop()
		for _, id := range d.jobs {
			select {
			case <-tick.C:
			case <-stop:
				return
			}
			job := slowJob(id, drillJobMs)
			data, _ := json.Marshal(job)
			msg := nats.NewMsg(d.cfg.Subjects().Jobs())
			msg.Data = data
			msg.Header.Set(flowjob.HeaderMsgID, id)
			msg.Header.Set(flowjob.HeaderReplyTo, d.inbox(id))
			deadline := time.Now().Add(90 * time.Second)
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_, err := d.js.PublishMsg(ctx, msg)
				cancel()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					d.t.Errorf("publishing %s: still failing after 90s: %v", id, err)
					return
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-stop:
					return
				}
			}
			d.published.Add(1)
		}
	}()
}

// waitPublished waits until n jobs are published.
func (d *clusterDrill) waitPublished(n int) {
	d.t.Helper()
	waitFor(d.t, 60*time.Second, fmt.Sprintf("%d jobs published", n), func() bool { return d.published.Load() >= int64(n) })
}

// resultsStored is how many results RESULTS holds, -1 when it does not
// answer.
func (d *clusterDrill) resultsStored() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := d.js.Stream(ctx, d.cfg.ResultsStream)
	if err != nil {
		return -1
	}
	return int(s.CachedInfo().State.Msgs)
}

// streamState reads a stream's state, retrying for up to a minute while
// the cluster elects or a resumed node catches up. The wait is a time, not
// a count of tries: a node that answers "no leader" at once would use up
// 30 tries in 6 s.
func (d *clusterDrill) streamState(name string) jetstream.StreamState {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s, err := d.js.Stream(ctx, name)
		cancel()
		if err == nil {
			return s.CachedInfo().State
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("stream %s info: still failing after 60s: %v", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// check waits for the drill's outcome and checks it: one result per job,
// none stored twice, JOBS drained, no dead letter, no inbox told twice, the
// replicas alive and ready.
func (d *clusterDrill) check(since time.Time, what string) {
	d.t.Helper()
	<-d.pubDone
	if d.t.Failed() {
		return
	}
	waitFor(d.t, 120*time.Second, "every job's result", func() bool { return d.resultsStored() >= drillJobs })
	d.t.Logf("every result stored %s after %s", time.Since(since).Round(100*time.Millisecond), what)
	res := d.streamState(d.cfg.ResultsStream)
	if res.Msgs != drillJobs || res.LastSeq != drillJobs {
		d.t.Errorf("RESULTS holds %d results over %d sequences, want %d and %d (a sequence more is a result written twice)",
			res.Msgs, res.LastSeq, drillJobs, drillJobs)
	}
	d.checkEachResult()
	d.waitJobsDrained()
	if n := d.streamState(d.cfg.DLQStream).Msgs; n != 0 {
		d.t.Errorf("%d jobs dead-lettered, want none", n)
	}
	d.waitReady(60*time.Second, "after the drill")
	d.mu.Lock()
	told := len(d.replies)
	for inbox, n := range d.replies {
		if n > 1 {
			d.t.Errorf("inbox %s was told %d times, want once", inbox, n)
		}
	}
	d.mu.Unlock()
	reran := 0
	for _, r := range d.replicas {
		reran += strings.Count(r.p.stderr.String(), "the job was handled although its result was already stored")
	}
	d.t.Logf("%d deliveries ran a job whose result was already stored", reran)
	gaveUp := 0
	for _, r := range d.replicas {
		gaveUp += strings.Count(r.p.stderr.String(), "settling a job message failed")
	}
	d.t.Logf("%d acks or terms not confirmed within their retries (the stored result answered the redelivery)", gaveUp)
	d.t.Logf("%d of %d Reply-To inboxes told (core NATS: a reply sent while a node was down may be lost; the stored result is the record)", told, drillJobs)
}

// checkEachResult reads every job's result from the RESULTS leader (one
// per subject at most: the stream keeps one message per subject, and a
// second store is refused, which the sequence count in check catches).
func (d *clusterDrill) checkEachResult() {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var stream jetstream.Stream
	var err error
	for stream == nil {
		try, cancelTry := context.WithTimeout(ctx, 5*time.Second)
		stream, err = d.js.Stream(try, d.cfg.ResultsStream)
		cancelTry()
		if err != nil {
			if ctx.Err() != nil {
				d.t.Fatalf("opening %s: %v", d.cfg.ResultsStream, err)
			}
			time.Sleep(100 * time.Millisecond) // an election: ask again
		}
	}
	for _, id := range d.jobs {
		var raw *jetstream.RawStreamMsg
		var last error
		for {
			// Each request has a few seconds: one sent to a node that
			// was just resumed (or lost in an election) may never be
			// answered, and waited for on ctx it took every remaining
			// job's time with it.
			try, cancelTry := context.WithTimeout(ctx, 5*time.Second)
			raw, err = stream.GetLastMsgForSubject(try, d.cfg.Subjects().Result(id))
			cancelTry()
			if err == nil || errors.Is(err, jetstream.ErrMsgNotFound) || ctx.Err() != nil {
				break
			}
			last = err
			time.Sleep(100 * time.Millisecond) // an election: ask again
		}
		if err != nil {
			d.t.Errorf("job %s: no stored result: %v (last answer before: %v)", id, err, last)
			continue
		}
		var r flowjob.Result
		if err := json.Unmarshal(raw.Data, &r); err != nil || r.JobID != id || r.Status != flowjob.StatusSucceeded {
			d.t.Errorf("job %s: stored result %s (%v), want its own, succeeded", id, raw.Data, err)
		}
	}
}

// waitJobsDrained waits until the consumer has nothing pending and JOBS
// holds no job (a nats-server before 2.10 may leave answered jobs below
// the ack floor: those are counted, not failed).
func (d *clusterDrill) waitJobsDrained() {
	d.t.Helper()
	var last string
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		cons, err := d.js.Consumer(ctx, d.cfg.JobsStream, d.cfg.Consumer)
		cancel()
		if err == nil {
			ci := cons.CachedInfo()
			st := d.streamState(d.cfg.JobsStream)
			below := st.Msgs > 0 && st.LastSeq <= ci.AckFloor.Stream
			switch {
			case st.Msgs == 0 && ci.NumAckPending == 0 && ci.NumPending == 0:
				return
			case below && ci.NumAckPending == 0 && ci.NumPending == 0:
				d.t.Logf("%d answered jobs left in JOBS below the ack floor (nats-server %s)", st.Msgs, d.cluster.Kind)
				return
			}
			last = fmt.Sprintf("JOBS holds %d (sequences %d-%d), the consumer's ack floor is %d, %d pending, %d unacked",
				st.Msgs, st.FirstSeq, st.LastSeq, ci.AckFloor.Stream, ci.NumPending, ci.NumAckPending)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("JOBS did not drain within 60s: %s", last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// killLeader kills (SIGKILL) the leader of stream and starts it again
// after 3 s, as an operator's restart would.
func (d *clusterDrill) killLeader(stream string) time.Time {
	d.t.Helper()
	leader := d.cluster.WaitStreamLeader(stream, 30*time.Second)
	d.t.Logf("killing %s, the leader of %s", leader.Name, stream)
	leader.Kill()
	at := time.Now()
	time.Sleep(3 * time.Second)
	leader.Start()
	return at
}

// eachClusterKind runs f on a fresh 3-node cluster of each broker build.
func eachClusterKind(t *testing.T, f func(t *testing.T, c *testenv.Cluster)) {
	for _, kind := range testenv.NATSKinds {
		t.Run(string(kind), func(t *testing.T) {
			f(t, testenv.StartCluster(t, kind, 3))
		})
	}
}

// TestClusterReplicasStartTogether: two, then five replicas started at the
// same instant on an empty cluster (a fresh one each time) all become
// ready: their provisioning races and elections are waited out, never a
// reason to exit. The two then run jobs.
func TestClusterReplicasStartTogether(t *testing.T) {
	for _, kind := range testenv.NATSKinds {
		for _, n := range []int{2, 5} {
			t.Run(fmt.Sprintf("%s/%d", kind, n), func(t *testing.T) {
				d := newClusterDrill(t, testenv.StartCluster(t, kind, 3))
				d.startReplicas(n)
				took := d.waitReady(120*time.Second, "started together")
				t.Logf("%d replicas started together were all ready after %s", n, took.Round(100*time.Millisecond))
				if n == 2 {
					d.publish()
					d.check(time.Now(), "the first publish")
				}
			})
		}
	}
}

// TestClusterKillJobsLeader: kill -9 of the JOBS stream leader while jobs
// run, restarted 3 s later. Then the killed node, whose copy of JOBS missed
// the jobs finished while it was down (nats-server 2.9 may keep them), is
// made the leader of JOBS and of the consumer: no finished job runs or is
// answered again.
func TestClusterKillJobsLeader(t *testing.T) {
	eachClusterKind(t, func(t *testing.T, c *testenv.Cluster) {
		d := newClusterDrill(t, c)
		d.startReplicas(2)
		d.waitReady(120*time.Second, "at start")
		d.publish()
		d.waitPublished(drillJobs / 4)
		killed := c.WaitStreamLeader(d.cfg.JobsStream, 30*time.Second)
		at := d.killLeader(d.cfg.JobsStream)
		d.check(at, "the kill")
		jobs := c.MoveLeader(d.cfg.JobsStream, "", killed)
		cons := c.MoveLeader(d.cfg.JobsStream, d.cfg.Consumer, killed)
		t.Logf("the restarted node %s leads JOBS: %v, the consumer: %v", killed.Name, jobs, cons)
		time.Sleep(3 * time.Second) // what its copy holds would be delivered now
		d.check(at, "the kill")
	})
}

// TestClusterKillResultsLeader: kill -9 of the RESULTS stream leader while
// jobs run, restarted 3 s later.
func TestClusterKillResultsLeader(t *testing.T) {
	eachClusterKind(t, func(t *testing.T, c *testenv.Cluster) {
		d := newClusterDrill(t, c)
		d.startReplicas(2)
		d.waitReady(120*time.Second, "at start")
		d.publish()
		d.waitPublished(drillJobs / 4)
		at := d.killLeader(d.cfg.ResultsStream)
		d.check(at, "the kill")
	})
}

// TestClusterPausedNode: the node leading the consumer is stopped with
// SIGSTOP for 12 s (its connections stay open and answer nothing), then
// resumed.
func TestClusterPausedNode(t *testing.T) {
	eachClusterKind(t, func(t *testing.T, c *testenv.Cluster) {
		d := newClusterDrill(t, c)
		d.startReplicas(2)
		d.waitReady(120*time.Second, "at start")
		d.publish()
		d.waitPublished(drillJobs / 4)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		node, err := c.ConsumerLeader(ctx, d.cfg.JobsStream, d.cfg.Consumer)
		cancel()
		if err != nil {
			t.Fatalf("finding the consumer's leader: %v", err)
		}
		t.Logf("pausing %s, the consumer's leader", node.Name)
		node.Pause()
		at := time.Now()
		time.Sleep(12 * time.Second)
		node.Resume()
		d.check(at, "the pause")
	})
}

// TestClusterRestart: every node killed (SIGKILL) at once and started
// again while jobs run.
func TestClusterRestart(t *testing.T) {
	eachClusterKind(t, func(t *testing.T, c *testenv.Cluster) {
		d := newClusterDrill(t, c)
		d.startReplicas(2)
		d.waitReady(120*time.Second, "at start")
		d.publish()
		d.waitPublished(drillJobs / 4)
		at := time.Now()
		c.Restart()
		t.Logf("the cluster answered JetStream requests again %s after the kill", time.Since(at).Round(100*time.Millisecond))
		d.check(at, "the kill")
	})
}

// TestClusterLosesQuorum: the JOBS leader and one more node are killed
// while jobs run, so no stream or consumer has a leader. Every replica,
// connected to the node left, turns /readyz 503 because the broker no
// longer answers about the jobs stream and its consumer, and 200 again
// once the nodes are back; the jobs all end.
func TestClusterLosesQuorum(t *testing.T) {
	eachClusterKind(t, func(t *testing.T, c *testenv.Cluster) {
		d := newClusterDrill(t, c)
		d.startReplicas(2)
		d.waitReady(120*time.Second, "at start")
		d.publish()
		d.waitPublished(drillJobs / 4)
		leader := c.WaitStreamLeader(d.cfg.JobsStream, 30*time.Second)
		down := []*testenv.NATSProcess{leader}
		for _, n := range c.Nodes {
			if n != leader && len(down) < 2 {
				down = append(down, n)
			}
		}
		t.Logf("killing %s (the leader of JOBS) and %s", down[0].Name, down[1].Name)
		for _, n := range down {
			n.Kill()
		}
		at := time.Now()
		for i, r := range d.replicas {
			var reason string
			waitFor(t, 30*time.Second, fmt.Sprintf("replica %d's /readyz to answer 503", i+1), func() bool {
				var code int
				code, reason = readyzReason(r.admin)
				return code == http.StatusServiceUnavailable
			})
			t.Logf("replica %d not ready %s after the kill: %s", i+1, time.Since(at).Round(100*time.Millisecond), reason)
		}
		for _, n := range down {
			n.Start()
		}
		d.check(at, "the kill")
	})
}

// readyzReason is the status and body of GET /readyz on addr.
func readyzReason(addr string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}
