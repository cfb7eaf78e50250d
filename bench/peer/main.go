// Command peer runs the same corpus of scripts through FlowScript's sandbox
// (the production worker pool) and through isolated-vm, the seed's engine,
// and prints runs per second for each and their ratios. It is a documented
// command, not part of CI: it needs Node and isolated-vm built on the machine.
//
//	(cd bench/peer && npm install)   # builds isolated-vm from source (see README.md when npm skips the build)
//	go run ./bench/peer -rounds 5
//
// Each round measures every script in three set-ups one after the other,
// each for -seconds: FlowScript (8 workers, as many callers as it takes to
// keep them busy), isolated-vm with one reused isolate per lane and a fresh
// context per run, and isolated-vm with a fresh isolate per run. Ratios are
// taken within a round, so a change of the machine's load between rounds
// moves both sides of a ratio alike; the table shows medians over rounds.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func main() {
	workerpool.MaybeRunWorker()
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

type options struct {
	rounds  int
	seconds float64
	workers int
	node    string
	dir     string
	only    string
	sync    bool
	ivm     bool
}

func run(args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("peer", flag.ContinueOnError)
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of measures; the table shows medians")
	fs.Float64Var(&o.seconds, "seconds", 1, "seconds per script and set-up in a round")
	fs.IntVar(&o.workers, "workers", 8, "FlowScript workers, and isolated-vm lanes")
	fs.StringVar(&o.node, "node", "node", "the Node binary")
	fs.StringVar(&o.dir, "dir", "bench/peer", "the directory of ivm.js and its node_modules")
	fs.StringVar(&o.only, "script", "", "measure only this script of the corpus")
	fs.BoolVar(&o.ivm, "ivm", true, "measure isolated-vm too (false: FlowScript alone, to compare builds)")
	fs.BoolVar(&o.sync, "sync", false, "also measure isolated-vm's synchronous API: one reused isolate on Node's main thread")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	pool, err := workerpool.New(ctx, workerpool.Config{Limits: sandbox.Limits{MaxParallel: o.workers}})
	if err != nil {
		return fmt.Errorf("starting the worker pool: %w", err)
	}
	defer func() { _ = pool.Close() }()
	var peer *peer
	if o.ivm {
		if peer, err = startPeer(o); err != nil {
			return err
		}
		defer peer.close()
	}

	entries := corpus()
	if o.only != "" {
		entries = slices.DeleteFunc(entries, func(e entry) bool { return e.name != o.only })
	}
	setups := []string{"flowscript", "reused", "fresh"}
	if !o.ivm {
		setups = setups[:1]
	}
	if o.sync && o.ivm {
		setups = append(setups, "reused-sync")
	}
	rates := map[string]map[string][]float64{} // script → set-up → runs/s per round
	for round := 1; round <= o.rounds; round++ {
		for _, e := range entries {
			if rates[e.name] == nil {
				rates[e.name] = map[string][]float64{}
			}
			outputs := make([]string, len(setups))
			for i, s := range setups {
				var r float64
				var out string
				if s == "flowscript" {
					r, out, err = measurePool(ctx, pool, e, o)
				} else {
					r, out, err = peer.measure(e, s, o)
				}
				if err != nil {
					return fmt.Errorf("%s, %s: %w", e.name, s, err)
				}
				outputs[i] = out
				rates[e.name][s] = append(rates[e.name][s], r)
			}
			for i := range outputs {
				if outputs[i] != outputs[0] {
					return fmt.Errorf("%s: the engines disagree:\n %s %q\n %s %q", e.name, setups[0], outputs[0], setups[i], outputs[i])
				}
			}
		}
		fmt.Fprintf(os.Stderr, "round %d of %d done\n", round, o.rounds)
	}
	return report(stdout, entries, rates, o)
}

// measurePool runs e through the pool for o.seconds with 2 callers per
// worker, and returns runs per second and the output.
func measurePool(ctx context.Context, pool *workerpool.Pool, e entry, o options) (float64, string, error) {
	req := sandbox.Request{Source: e.source(), Inputs: []sandbox.Input{{Name: e.inputName, Value: e.input}}}
	first := pool.Run(ctx, req) // compiles and caches the program in a worker
	if first.Err != nil {
		return 0, "", first.Err
	}
	var runs atomic.Int64
	var failed atomic.Pointer[sandbox.Error]
	deadline := time.Now().Add(time.Duration(o.seconds * float64(time.Second)))
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 * o.workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				res := pool.Run(ctx, req)
				if res.Err != nil {
					failed.Store(res.Err)
					return
				}
				runs.Add(1)
			}
		})
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		return 0, "", e
	}
	return float64(runs.Load()) / time.Since(start).Seconds(), first.Output, nil
}

// peer is the Node process of ivm.js.
type peer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startPeer(o options) (*peer, error) {
	script := filepath.Join(o.dir, "ivm.js")
	ivm := filepath.Join(o.dir, "node_modules", "isolated-vm")
	if _, err := os.Stat(ivm); err != nil {
		return nil, fmt.Errorf("isolated-vm is not installed in %s: run (cd %s && npm install) first", o.dir, o.dir)
	}
	if _, err := os.Stat(filepath.Join(ivm, "out", "isolated_vm.node")); err != nil {
		return nil, fmt.Errorf("isolated-vm is installed in %s but not built (npm 11 skips install scripts it was not told to allow): "+
			"run (cd %s && node \"$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js\" rebuild --release --nodedir=/usr)", ivm, ivm)
	}
	cmd := exec.CommandContext(context.Background(), o.node, script)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s %s: %w", o.node, script, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &peer{cmd: cmd, in: in, out: sc}, nil
}

func (p *peer) measure(e entry, mode string, o options) (float64, string, error) {
	req, err := json.Marshal(map[string]any{
		"mode": mode, "name": e.name, "source": e.source(), "inputName": e.inputName,
		"input": e.input, "seconds": o.seconds, "lanes": o.workers,
	})
	if err != nil {
		return 0, "", err
	}
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return 0, "", fmt.Errorf("writing to ivm.js: %w", err)
	}
	if !p.out.Scan() {
		return 0, "", fmt.Errorf("ivm.js ended: %w", p.out.Err())
	}
	var reply struct {
		Runs    float64 `json:"runs"`
		Seconds float64 `json:"seconds"`
		Output  string  `json:"output"`
		Error   string  `json:"error"`
	}
	if err := json.Unmarshal(p.out.Bytes(), &reply); err != nil {
		return 0, "", fmt.Errorf("reading ivm.js's answer: %w", err)
	}
	if reply.Error != "" {
		return 0, "", errors.New(reply.Error)
	}
	return reply.Runs / reply.Seconds, reply.Output, nil
}

func (p *peer) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

func report(w io.Writer, entries []entry, rates map[string]map[string][]float64, o options) error {
	_, _ = fmt.Fprintf(w, "FlowScript sandbox (worker pool, %d workers) vs isolated-vm (%d lanes), %s, GOMAXPROCS %d, %d rounds of %.1fs: median runs/s, and median of the per-round ratios\n\n",
		o.workers, o.workers, runtime.Version(), runtime.GOMAXPROCS(0), o.rounds, o.seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "script\tkind\tinput bytes\tflowscript\tivm reused\tivm fresh\t× reused\t× fresh\t"
	if o.sync && o.ivm {
		head += "ivm sync\t× sync\t"
	}
	_, _ = fmt.Fprintln(tw, head)
	for _, e := range entries {
		r := rates[e.name]
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t", e.name, e.kind, len(e.input),
			median(r["flowscript"]), median(r["reused"]), median(r["fresh"]),
			median(ratios(r["flowscript"], r["reused"])), median(ratios(r["flowscript"], r["fresh"])))
		if o.sync && o.ivm {
			_, _ = fmt.Fprintf(tw, "%.0f\t%.2f\t", median(r["reused-sync"]), median(ratios(r["flowscript"], r["reused-sync"])))
		}
		_, _ = fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / b[i]
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
