package executorapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/telemetry"
)

// demoTimeout bounds the wait for each sample job's result.
const demoTimeout = time.Minute

// runDemo publishes every sample job of jobs through the flowclient client
// (ids made unique per run), waits for their results and prints each result
// event as one JSON line on out, in file order.
func runDemo(ctx context.Context, nc *nats.Conn, cfg consumer.Config, jobs fs.FS, out io.Writer, log *slog.Logger) error {
	names, err := fs.Glob(jobs, "*.json")
	if err != nil {
		return fmt.Errorf("listing the sample jobs: %w", err)
	}
	if len(names) == 0 {
		return errors.New("listing the sample jobs: found no *.json file")
	}
	slices.Sort(names)
	client, err := flowclient.NewClient(nc,
		flowclient.WithSubjectPrefix(cfg.SubjectPrefix),
		flowclient.WithResultsStream(cfg.ResultsStream),
		flowclient.WithResultPolling(100*time.Millisecond, time.Second),
		flowclient.WithPublishHook(telemetry.ClientHook),
	)
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("opening JetStream: %w", err)
	}
	run := strconv.FormatInt(time.Now().UnixMilli(), 36)
	results := make([][]byte, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, demoTimeout)
			defer cancel()
			results[i], errs[i] = demoJob(ctx, client, js, cfg, jobs, name, run)
		})
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			return fmt.Errorf("sample job %s: %w", name, errs[i])
		}
		log.Info("demo result", "example", name)
		if _, err := fmt.Fprintf(out, "%s\n", results[i]); err != nil {
			return fmt.Errorf("printing the demo results: %w", err)
		}
	}
	return nil
}

// demoJob publishes one sample and returns its result event. A sample that
// breaks the contract cannot go through the client (it validates), so it is
// published as raw bytes, as a faulty engine would.
func demoJob(ctx context.Context, client *flowclient.Client, js jetstream.JetStream, cfg consumer.Config, jobs fs.FS, name, run string) ([]byte, error) {
	raw, err := fs.ReadFile(jobs, name)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	id := strings.TrimSuffix(path.Base(name), ".json") + "-" + run
	doc["id"] = id
	if raw, err = flowjob.Marshal(doc); err != nil {
		return nil, err
	}
	var res *flowjob.Result
	if job, derr := flowjob.Decode(raw); derr == nil {
		res, err = client.Run(ctx, job)
	} else {
		msg := nats.NewMsg(cfg.Subjects().Jobs())
		msg.Data = raw
		msg.Header.Set(flowjob.HeaderMsgID, id)
		if _, err = js.PublishMsg(ctx, msg); err != nil {
			return nil, fmt.Errorf("publishing: %w", err)
		}
		res, err = client.Await(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	return flowjob.Marshal(res)
}
