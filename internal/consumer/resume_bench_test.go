package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/continuation"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// BenchmarkSuspendResume measures pause and resume end to end on one
// replica (the worker pool): one op is a batch of jobs run to stored
// results. suspend: fresh jobs that post to a host and ask for approval
// (the run, the journal stored in the bucket, the token signed); resume:
// their resume jobs (the token verified, the journal read and claimed,
// the run replayed and finished); plain: the same script with the approval
// answered in the script, for the cost of a job that does not pause.
//
//	go test ./internal/consumer -run '^$' -bench SuspendResume -benchtime 5x -count 5
func BenchmarkSuspendResume(b *testing.B) {
	const batch = 200
	const source = `
const t = Date.now()
const order = api.post('crm', '/orders', {amount: 10}).json
const answer = %s
return JSON.stringify({t, order, answer})`
	signer, err := continuation.NewSigner(testKey, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, br := range brokers {
		b.Run(br.name, func(b *testing.B) {
			url := br.url(b)
			cfg := testConfig(b, url)
			cfg.Parallel = sandbox.DefaultMaxParallel
			cfg.ScriptTimeout = sandbox.DefaultTimeout
			cfg.AckWait = 30 * time.Second
			nc := connect(b, url)
			js := jetStream(b, nc)
			startExecutorWith(b, connect(b, url), cfg, Options{Runner: benchRunners[0].make(b, cfg.Parallel),
				Hosts: &countingHosts{}, Continuations: signer})
			store := NewResultStore(js, cfg)
			published := uint64(0)
			run := func(b *testing.B, jobs []*flowjob.Job) {
				for _, j := range jobs {
					data, _ := json.Marshal(j)
					msg := nats.NewMsg(cfg.Subjects().Jobs())
					msg.Data = data
					msg.Header.Set(flowjob.HeaderMsgID, j.ID)
					if _, err := js.PublishMsgAsync(msg); err != nil {
						b.Fatal(err)
					}
				}
				published += uint64(len(jobs))
				deadline := time.Now().Add(2 * time.Minute)
				for streamMsgs(b, js, cfg.ResultsStream) < published {
					if time.Now().After(deadline) {
						b.Fatal("results did not come within 2 minutes")
					}
					time.Sleep(2 * time.Millisecond)
				}
			}
			job := func(id, answer string) *flowjob.Job {
				j := approvalJob(id)
				j.SessionID = "s-" + id
				j.Action.Source = fmt.Sprintf(source, answer)
				return j
			}
			seq := 0
			suspendBatch := func(b *testing.B) []*flowjob.Job {
				jobs := make([]*flowjob.Job, batch)
				for i := range jobs {
					seq++
					jobs[i] = job(fmt.Sprintf("s%d", seq), "approval.request({message: 'Refund?'})")
				}
				run(b, jobs)
				return jobs
			}
			perJob := func(b *testing.B, start time.Time) {
				b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*batch), "µs/job")
			}
			b.Run("plain", func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					jobs := make([]*flowjob.Job, batch)
					for i := range jobs {
						seq++
						jobs[i] = job(fmt.Sprintf("p%d", seq), "{approved: true}")
					}
					run(b, jobs)
				}
				perJob(b, start)
			})
			b.Run("suspend", func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					suspendBatch(b)
				}
				perJob(b, start)
			})
			b.Run("resume", func(b *testing.B) {
				var took time.Duration
				for b.Loop() {
					b.StopTimer()
					suspended := suspendBatch(b)
					resumes := make([]*flowjob.Job, batch)
					for i, j := range suspended {
						stored, err := store.Load(context.Background(), j.ID)
						if err != nil {
							b.Fatal(err)
						}
						r := stored.Result
						resumes[i] = j.ResumeWith("r"+j.ID, r.Continuation, json.RawMessage(`{"approved":true}`))
					}
					b.StartTimer()
					start := time.Now()
					run(b, resumes)
					took += time.Since(start)
				}
				b.ReportMetric(float64(took.Microseconds())/float64(b.N*batch), "µs/job")
			})
		})
	}
}
