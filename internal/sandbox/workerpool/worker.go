package workerpool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
	_ "time/tzdata" // the worker has no environment and maybe no zoneinfo files: embed the zones

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/textcut"
)

// workerArg is the hidden first argument that turns a binary into a sandbox
// worker. It is not a subcommand: nobody types it.
const workerArg = "__flowscript-sandbox-worker"

// Worker exit codes. The parent reads the stderr text first; these make a
// worker's own decisions visible in `exit status N` too.
const (
	exitProtocol = 3 // the parent sent something that is not a frame
	exitSetup    = 4 // the config could not be applied (said in the ready frame)
	exitMemory   = 5 // the heap watchdog saw the hard memory budget exceeded
	exitOrphan   = 6 // the parent died while a job ran
	exitRetired  = 7 // a planned retirement (see retireReason); the reply was sent
)

// Lines the worker writes on stderr that the parent classifies.
const (
	stderrMemoryTrip = "flowscript-worker: job over the memory limit"
	stderrMemoryHard = "flowscript-worker: worker over its memory budget"
)

// watchInterval is how often the heap watchdog samples during a job. With
// GOMAXPROCS=1 it runs when the job goroutine is preempted (≈10 ms).
const watchInterval = 5 * time.Millisecond

// MaybeRunWorker turns the process into a sandbox worker when it was started
// as one (by a Pool) and never returns then; otherwise it returns at once.
// Call it first thing in main, and in TestMain of every test binary that
// starts a Pool, before anything reads the environment or starts goroutines.
func MaybeRunWorker() {
	if len(os.Args) < 2 || os.Args[1] != workerArg {
		return
	}
	// Frames go to the real stdout; anything else that prints (a stray
	// fmt.Print in a dependency) lands on stderr instead of corrupting them.
	frames := os.Stdout
	os.Stdout = os.Stderr
	os.Exit(runWorker(os.Stdin, frames, os.Stderr))
}

// runWorker is the worker's main: read the config, set the limits up, say
// ready, then run jobs until stdin closes. It returns the exit code.
func runWorker(stdin io.Reader, stdout, stderr io.Writer) int {
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(workerGCPercent)
	runtime.MemProfileRate = 0 // nobody reads a worker's heap profile; sampling cost ~2% of a job
	envVars := len(os.Environ())
	environBytes := -1
	if b, err := os.ReadFile("/proc/self/environ"); err == nil {
		environBytes = len(b)
	}
	os.Clearenv() // defence in depth: the parent already passes none

	in := bufio.NewReaderSize(stdin, 64<<10)
	f, err := readFrame(in, maxControlFrame)
	if err == nil && (f.Kind != kindConfig || f.Config == nil) {
		err = fmt.Errorf("%w: expected a config frame, got %q", errMalformed, f.Kind)
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "flowscript-worker: reading config: %v\n", err)
		return exitProtocol
	}

	w, info, err := setUp(*f.Config, stderr)
	if w != nil {
		w.in, w.out, w.inFD = in, stdout, -1
		if f, ok := stdin.(*os.File); ok {
			w.inFD = int(f.Fd())
		}
		// Without its log region a worker still runs: it loses its lines
		// only when it has to be ended from outside, as it always did.
		if c := f.Config; c.LogsFD > 0 && c.LogsBytes >= logHeader {
			if mem, merr := mapLogRegion(c.LogsFD, c.LogsBytes); merr == nil {
				w.logs = &logWriter{mem: mem}
			} else {
				_, _ = fmt.Fprintf(stderr, "flowscript-worker: mapping the log region: %v\n", merr)
			}
		}
	}
	info.PID = os.Getpid()
	info.EnvVars = envVars
	info.EnvironBytes = environBytes
	if err != nil {
		info.Error = err.Error()
	}
	if werr := writeFrame(stdout, &frame{Kind: kindReady, Ready: &info}); werr != nil || err != nil {
		_, _ = fmt.Fprintf(stderr, "flowscript-worker: starting: %v\n", errors.Join(err, werr))
		return exitSetup
	}
	return w.serve()
}

// workerGCPercent is a worker's GC target, eight times the default: with
// one P, the GC's marking competes with the script itself. Measured
// (alternating A/B runs): 100 → 200 cut the pool's overhead per job
// (BenchmarkPerJob) from 38-50 µs to 30-38 µs; 200 → 800 raised
// PoolThroughput/cpf by 9 % (median of 5 pairs, 25,730 → 28,012 exec/s;
// 400 gained nothing). The GC's memory limit (setMemoryLimit: the baseline
// plus 1.25 SANDBOX_MEMORY_MB) still bounds a worker's garbage, whatever
// the target, and idleRelease returns it once the load stops.
const workerGCPercent = 800

// gcHeapMinimum is the heap the Go runtime lets grow before its first
// collection at the worker's target: 4 MB at the default target of 100,
// scaled by the target. With the default SANDBOX_MEMORY_MB, a worker's
// heap reaches about this much under load (its live heap is a few MB).
const gcHeapMinimum = 4 << 20 * workerGCPercent / 100

// worker is the child side: the limits it runs requests under and the
// memory it measured.
//
// A job's memory budget is relative to the worker's baseline: the live heap
// the worker keeps between jobs (the runtime's own share, the compiled
// programs it caches, everything but a job's garbage). Programs cached by
// earlier jobs are never charged to a later one. With B the baseline and
// S = SANDBOX_MEMORY_MB, the thresholds of a job are (see jobBudget):
//   - soft, B + S: live heap after a GC above which the watchdog
//     interrupts the job (SCRIPT_MEMORY_LIMIT);
//   - end, B + 1.5 S: heap objects when the job ends above which it failed
//     for memory even if it finished between two samples (a 100 MB typed
//     array allocated and measured in a millisecond). The GC's limit is
//     B + 1.25 S, so a script that only churns garbage stays below it;
//   - collect first, B + S/2: heap objects before a job above which the
//     worker collects, so that one job's garbage is not counted to the
//     next, and measures B afresh;
//   - hardMap, the start-up footprint + the baseline's growth + hardBudget:
//     memory mapped by the runtime above which the watchdog exits the
//     worker (a native built-in that ignores the interrupt and keeps
//     allocating);
//   - space, the heap's address space at start + the largest baseline
//     growth + 1.5 S + the stack limit: heap address space when the job
//     ends above which it failed for memory. The heap never gives address
//     space back, so this catches a buffer allocated and dropped between
//     two samples even when a GC freed it before the job ended. A worker
//     past it, or within S/4 of it, retires after answering. A job after
//     one that left more address space than that line less 1.5 S and the
//     stack limit (free space in pieces a large array may not fit) is
//     failed only past what was left plus those: a job fails for its own
//     growth, never for the address space an earlier one left. The first
//     job counts from the heap the worker's garbage spans anyway (the
//     GC's first target), not from the warm-up's few megabytes.
//
// B is measured (a GC, then the live heap) whenever garbage or programs
// added since the last measure could make it stale, and at least every
// remeasureEvery jobs: after the answer to the request that made it due,
// before the next request is read (the answer says so, and the pool gives
// that worker a job only when no other is idle), so that no job waits for
// the GC while another worker could run it; in between it is the last
// measure plus the cost of the programs cached since
// (sandbox.ProgramCacheStats), an overestimate. The program cache is bounded (cacheBytesFor); a baseline
// measured past its bound plus S/2 means something else grew: the worker
// retires cleanly after its next answer (retireBaseline).
type worker struct {
	limits sandbox.Limits
	stderr io.Writer
	ppid   int
	// in and out are the frame pipes. A request runs on the goroutine that
	// reads them, so a job can exchange frames with the parent mid-run.
	in  *bufio.Reader
	out io.Writer
	// inFD is in's file descriptor (awaitInput), -1 when it has none.
	inFD int
	// logs copies each job's console lines where the parent reads them if
	// it has to end the worker mid-job; nil without a log region.
	logs *logWriter

	script   uint64 // S
	maxStack uint64
	budget   uint64 // hardBudget
	// retireGrowth is how far the baseline may grow above the start-up
	// one before the worker retires.
	retireGrowth uint64
	start        memory // after the warm-up and a GC

	measured         uint64 // baseline at the last measure
	addedAtMeasure   uint64 // sandbox.ProgramCacheStats' added then
	jobsSinceMeasure int
	maxGrowth        uint64 // largest baseline growth so far
	memoryLimit      uint64 // the GC's limit, as last set
	heapAfterLastJob uint64
	// spaceAfterLastJob is the heap's address space when the last job
	// ended, what earlier jobs left; at start, the heap the worker's
	// garbage will span anyway (setUp).
	spaceAfterLastJob uint64
}

// remeasureEvery bounds how many jobs pass between two measures of the
// baseline: a full GC every thousand jobs costs nothing that shows.
const remeasureEvery = 1000

// cacheBytesFor is a worker's program cache bound: half the script's share,
// at least 8 MB. Measured: 8 MB holds a thousand scripts like the seed's
// cpf, or two sources of 60 KB of arrow functions.
func cacheBytesFor(memoryMB int) uint64 {
	return max(uint64(memoryMB)<<19, 8<<20)
}

// setUp applies cfg to this process: time zone, stack and memory limits, and
// a warm-up run that measures the runtime's own heap.
func setUp(cfg workerConfig, stderr io.Writer) (*worker, readyInfo, error) {
	var info readyInfo
	if cfg.TimeZone == "Local" {
		// Go's name for the host's zone: scripts never see it.
		return nil, info, errors.New(`time zone "Local" is the host's own: name an IANA zone such as UTC`)
	}
	loc, err := time.LoadLocation(cfg.TimeZone)
	if err != nil {
		return nil, info, fmt.Errorf("loading time zone %q: %w", cfg.TimeZone, err)
	}
	l := sandbox.Limits{
		Timeout:          time.Duration(cfg.TimeoutMS) * time.Millisecond,
		MemoryMB:         cfg.MemoryMB,
		MaxParallel:      1,
		MaxSourceBytes:   cfg.MaxSourceBytes,
		MaxInputBytes:    cfg.MaxInputBytes,
		MaxOutputBytes:   cfg.MaxOutputBytes,
		MaxCallStackSize: cfg.MaxCallStackSize,
		TimeZone:         loc,
		MaxLogEntries:    cfg.MaxLogEntries,
		MaxLogBytes:      cfg.MaxLogBytes,
		MaxHostCalls:     cfg.MaxHostCalls,
		MaxHostBytes:     cfg.MaxHostBytes,
	}
	if err := l.Validate(); err != nil {
		return nil, info, fmt.Errorf("validating limits: %w", err)
	}
	sandbox.UseTimeZone(loc)
	cacheBytes := cacheBytesFor(l.MemoryMB)
	sandbox.SetProgramCacheBytes(cacheBytes)

	info.MaxStackBytes = maxStackFor(l.MaxCallStackSize)
	debug.SetMaxStack(info.MaxStackBytes)

	// Warm up: the first run compiles the lockdown and fills caches, so
	// what stays live afterwards is the runtime's share, not a script's.
	warm := l
	warm.MaxSourceBytes = max(warm.MaxSourceBytes, len(warmUpScript))
	if res := sandbox.Execute(context.Background(), warm, sandbox.Request{Source: warmUpScript}); !res.OK() {
		return nil, info, fmt.Errorf("running the warm-up script: %w", res.Err)
	}
	runtime.GC()
	m := readMemory()
	info.BaseHeapBytes = m.liveHeap
	_, added := sandbox.ProgramCacheStats()

	w := &worker{
		limits:         l,
		stderr:         stderr,
		ppid:           os.Getppid(),
		script:         uint64(l.MemoryMB) << 20,
		maxStack:       uint64(info.MaxStackBytes),
		budget:         hardBudget(l.MemoryMB, info.MaxStackBytes),
		start:          m,
		measured:       m.liveHeap,
		addedAtMeasure: added,
	}
	w.retireGrowth = cacheBytes + w.script/2
	w.setMemoryLimit(m.liveHeap)

	// reach is the heap the worker's garbage will span anyway: the GC's
	// first target, or its memory limit when that is lower. The first job
	// is measured from it, as a later one is from what the jobs before it
	// left: measured from the few megabytes the warm-up left (4 or 8, by
	// the heap's 4 MB steps), a job that built and dropped 5 MB strings
	// beside 15 MB it kept was failed for memory in 25 runs of 40.
	reach := min(uint64(gcHeapMinimum), w.memoryLimit)
	w.spaceAfterLastJob = max(m.heapSpace, reach)

	if !raceEnabled {
		// That heap, prepared for huge pages (prepareHeap), less what the
		// heap already spans (m, read after the warm-up). Not under the
		// race detector, which writes its shadow of a fresh allocation at
		// once.
		info.PreparedHeapBytes = prepareHeap(reach - min(reach, m.heapSpace))

		vmSize, err := addressSpaceBytes()
		if err == nil {
			info.RlimitASBytes = vmSize + w.budget + w.retireGrowth + addressSpaceSlack
			err = setAddressSpaceLimit(info.RlimitASBytes)
		}
		if err != nil {
			return nil, info, fmt.Errorf("setting the OS memory limit: %w", err)
		}
	}
	return w, info, nil
}

// setMemoryLimit sets the GC's limit for a baseline: the GC works harder
// as the heap nears the script's share, which keeps the live-heap figure
// the watchdog reads fresh.
func (w *worker) setMemoryLimit(baseline uint64) {
	if limit := baseline + w.script + w.script/4; limit != w.memoryLimit {
		debug.SetMemoryLimit(int64(limit))
		w.memoryLimit = limit
	}
}

// budget is one job's memory thresholds (see worker).
type budget struct {
	soft, end, hardMap, space uint64
	// spaceLine is the worker's own bound on the heap's address space:
	// past it, less S/4, the worker retires after answering (the space
	// a worker's heap spans never shrinks).
	spaceLine uint64
	// retire: the baseline grew past its bound; the worker retires after
	// answering this job.
	retire bool
}

// baseline is B: the last measure plus the cost of the programs cached
// since. due says whether B may be stale (garbage or programs added since
// the last measure could have moved it, or remeasureEvery jobs have
// passed) and is to be measured.
func (w *worker) baseline() (b uint64, due bool) {
	_, added := sandbox.ProgramCacheStats()
	b = w.measured + (added - w.addedAtMeasure)
	return b, w.heapAfterLastJob > b+w.script/2 || b-w.measured > w.script/2 || w.jobsSinceMeasure >= remeasureEvery
}

// measure takes the baseline: a full GC, then the live heap.
func (w *worker) measure() {
	_, added := sandbox.ProgramCacheStats()
	runtime.GC()
	m := readMemory()
	w.measured, w.addedAtMeasure, w.jobsSinceMeasure = m.liveHeap, added, 0
	// The garbage the last job left is gone: without this, the next
	// jobBudget took the stale figure for new garbage and collected again,
	// on that job's time.
	w.heapAfterLastJob = m.heapObjects
}

// jobBudget returns the thresholds of the next job, measuring the baseline
// first if it may be stale. serve measures it after an answer whenever it
// is due, so a job seldom waits for that GC here.
func (w *worker) jobBudget() budget {
	b, due := w.baseline()
	if due {
		w.measure()
		b = w.measured
	}
	w.jobsSinceMeasure++
	growth := b - min(b, w.start.liveHeap)
	w.maxGrowth = max(w.maxGrowth, growth)
	w.setMemoryLimit(b)
	ownSpace := w.script + w.script/2 + w.maxStack
	line := w.start.heapSpace + w.maxGrowth + ownSpace
	return budget{
		soft:    b + w.script,
		end:     b + w.script + w.script/2,
		hardMap: w.start.mapped + growth + w.budget,
		// The address space this job may end at: the worker's line, or
		// what earlier jobs left plus the job's own share, if higher. An
		// earlier job can leave the heap within S/4 of the line, its free
		// space in pieces, and a job within its limits that makes one
		// array larger than the biggest piece grows the heap by it: it
		// failed for what the other left (a 23 MB array after a Map bomb
		// on the same worker, in 4 runs of 36).
		space:     max(line, w.spaceAfterLastJob+ownSpace),
		spaceLine: line,
		retire:    growth > w.retireGrowth,
	}
}

// warmUpScript is the script every worker runs once at start.
const warmUpScript = "return 1"

// maxStackFor sizes the goroutine stack limit from the JavaScript call
// depth: deep enough for MaxCallStackSize frames through native built-ins
// (which recurse in Go), small enough that recursion in Go code that no
// JavaScript limit sees (String of a deeply nested array) dies in
// milliseconds instead of growing towards the default 1 GB. Measured: 1,000
// frames of recursion through Array.prototype.map, getters, toString, sort
// and JSON.parse revivers fit in 2 MB (also under -race); 8 KB a frame is
// four times that.
func maxStackFor(callStack int) int {
	const perFrame = 8 << 10
	return min(max(callStack*perFrame, 8<<20), 512<<20)
}

// hardBudget is how much memory a worker may map beyond its start-up
// footprint (and its baseline's growth) before its watchdog ends it: twice
// the script's share (a growing slice briefly holds its old and new
// backing arrays), a stack at its limit while being copied, and slack for
// the runtime.
func hardBudget(memoryMB, maxStack int) uint64 {
	script := uint64(memoryMB) << 20
	return 2*script + uint64(maxStack)*3/2 + 32<<20
}

// addressSpaceSlack is added to RLIMIT_AS beyond the hard budget and the
// baseline's room to grow: the heap reserves address space in 64 MB arenas,
// and the watchdog, which sees the budget exceeded within a few
// milliseconds, should end a steadily growing script before the OS limit
// does. The OS limit is there for the single allocation too large to wait
// for the watchdog.
const addressSpaceSlack = 128 << 20

// idleRelease is how long a worker waits for its next job before it
// collects its garbage and returns the free memory to the OS. Under load a
// worker holds up to its GC target of garbage (measured: an idle pool of 8
// grew from 84 to 122 MB RSS after 4,000 jobs); once idle it shrinks back.
// Not sooner: a worker that gave its heap back faults every page of it in
// again when jobs return, and on this machine that halved a pool of 8's
// throughput in the first second after each lull (bench/peer, regex_extract
// in 1 s windows with isolated-vm measured in between: 448–499 runs/s with
// 250 ms, 924–1,094 with 5 s).
const idleRelease = 5 * time.Second

// serve answers requests until the parent closes stdin.
func (w *worker) serve() int {
	maxRequest := maxJobFrame(w.limits)
	var buf []byte
	// Armed after every answer, stopped when the next request arrives.
	// Should it fire just as one arrives, the request waits for one short
	// GC.
	release := time.AfterFunc(time.Hour, debug.FreeOSMemory)
	release.Stop()
	defer release.Stop()
	for {
		if w.inFD >= 0 && w.in.Buffered() == 0 {
			awaitInput(w.inFD)
		}
		f, err := readFrame(w.in, maxRequest)
		release.Stop()
		if errors.Is(err, io.EOF) {
			return 0
		}
		var reply *frame
		switch {
		case err != nil:
		case f.Kind == kindJob && f.Job != nil:
			res, retiring := w.runJob(f.ID, *f.Job)
			reply = &frame{Kind: kindResult, ID: f.ID, Result: &res, Retiring: retiring}
		case f.Kind == kindCheck && f.Check != nil:
			rep, retiring := w.runCheck(*f.Check)
			reply = &frame{Kind: kindReport, ID: f.ID, Report: &rep, Retiring: retiring}
		default:
			err = fmt.Errorf("%w: expected a job or a check frame, got %q", errMalformed, f.Kind)
		}
		if err != nil {
			_, _ = fmt.Fprintf(w.stderr, "flowscript-worker: reading a request: %v\n", err)
			return exitProtocol
		}
		// A measure due after this request is taken before the next one
		// is read, not on its time; the pool, told so, sends it to another
		// worker when one is idle.
		_, due := w.baseline()
		reply.Collecting = reply.Retiring == retireNone && due
		buf, err = appendFrame(buf[:0], reply)
		if err == nil {
			_, err = w.out.Write(buf)
		}
		if cap(buf) > 1<<20 {
			buf = nil // do not keep a big answer's buffer for the life of the worker
		}
		if err != nil {
			_, _ = fmt.Fprintf(w.stderr, "flowscript-worker: answering %s %d: %v\n", f.Kind, f.ID, err)
			return exitProtocol
		}
		if reply.Retiring != retireNone {
			return exitRetired
		}
		if reply.Collecting {
			w.measure()
		}
		release.Reset(idleRelease)
	}
}

// guarded runs one request (work) under the heap watchdog and the job's
// memory thresholds, recovering a panic of the worker's own code. It
// reports what it saw: whether memory was over the limits (overMemory),
// and why the worker must retire after answering (retireNone: it stays).
func (w *worker) guarded(work func(ctx context.Context)) (overMemory bool, retiring retireReason) {
	lim := w.jobBudget()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	dog := w.watch(lim, cancel)

	panicked := false
	func() {
		defer func() {
			if p := recover(); p != nil {
				_, _ = fmt.Fprintf(w.stderr, "flowscript-worker: panic running a request: %v\n%s", p, debug.Stack())
				panicked = true
			}
		}()
		work(ctx)
	}()
	tripped := dog.stop()
	m := readMemory()
	w.heapAfterLastJob, w.spaceAfterLastJob = m.heapObjects, m.heapSpace
	overMemory = tripped || m.heapObjects > lim.end || m.heapSpace > lim.space
	return overMemory, w.retirement(m, lim, panicked)
}

// retirement says whether the worker retires after a job that left its
// memory at m, and why (retireNone: it stays).
func (w *worker) retirement(m memory, lim budget, panicked bool) retireReason {
	switch {
	case panicked:
		return retirePanic
	case m.heapSpace > lim.spaceLine-w.script/4:
		// Past the line, or so near it that the next job would cross it
		// on a few pages of its own and fail for what this one left (a
		// job tripped on its live heap can leave the address space a few
		// kilobytes short of the line). A job that stays under the GC's
		// limit (B + 1.25 S) leaves more than S/4 and the stack limit
		// (measured: 16 MB or more of 60 with the defaults).
		return retireSpent
	case lim.retire:
		return retireBaseline
	}
	return retireNone
}

// errWorkerPanic is the answer to a request during which the worker's own
// code panicked. It retires after answering.
func errWorkerPanic() *sandbox.Error {
	return &sandbox.Error{Code: sandbox.CodeCrash, Message: "the sandbox worker failed unexpectedly; retry the script"}
}

// runJob runs one script; its host calls go to the parent under id.
func (w *worker) runJob(id uint64, req sandbox.Request) (res sandbox.Result, retiring retireReason) {
	start := time.Now()
	ran := false
	if len(req.Capabilities) > 0 {
		req.Host = &frameHost{w: w, id: id}
	}
	if w.logs != nil {
		w.logs.start(id)
		req.Logs = w.logs
	}
	over, retiring := w.guarded(func(ctx context.Context) {
		res = sandbox.Execute(ctx, w.limits, req)
		ran = true
	})
	switch {
	case !ran:
		res = sandbox.Result{Err: errWorkerPanic(), Logs: res.Logs, LogsTruncated: res.LogsTruncated}
	case over:
		res = sandbox.Result{Err: memoryLimitError(w.limits.MemoryMB), Logs: res.Logs, LogsTruncated: res.LogsTruncated}
	}
	res.Duration = time.Since(start)
	if res.Err != nil { // sandbox.Execute capped the output of a success
		res.Output = ""
		res.Err.Message = cutMessage(res.Err.Message)
	}
	return res, retiring
}

// frameHost answers a job's host calls through the parent: a host-call
// frame out under the job's id, then the worker blocks on its stdin until
// the parent's host reply under the same id. The parent answers by the
// job's deadline (a call still pending then is answered SCRIPT_TIMEOUT),
// so the wait is bounded; anything else on the pipe means the parent and
// the worker no longer agree, and the worker exits.
type frameHost struct {
	w   *worker
	id  uint64
	buf []byte
}

func (h *frameHost) Call(_ context.Context, call sandbox.HostCall) sandbox.HostReply {
	var err error
	h.buf, err = appendFrame(h.buf[:0], &frame{Kind: kindHostCall, ID: h.id, HostCall: &call})
	if err == nil {
		_, err = h.w.out.Write(h.buf)
	}
	var reply *frame
	if err == nil {
		reply, err = readFrame(h.w.in, maxHostFrame(h.w.limits))
	}
	if err == nil && (reply.Kind != kindHostReply || reply.ID != h.id || reply.HostReply == nil) {
		err = fmt.Errorf("%w: expected the host reply of job %d, got a %s frame for %d", errMalformed, h.id, reply.Kind, reply.ID)
	}
	if err != nil {
		_, _ = fmt.Fprintf(h.w.stderr, "flowscript-worker: host call of job %d: %v\n", h.id, err)
		os.Exit(exitProtocol)
	}
	return *reply.HostReply
}

// runCheck compiles and inspects one source without running it: the
// save-time check of a template (guardrails.Inspect). The parser ignores
// interrupts; the parent's kill bounds its time, the watchdog its memory.
func (w *worker) runCheck(req checkRequest) (rep checkReport, retiring retireReason) {
	start := time.Now()
	ran := false
	over, retiring := w.guarded(func(context.Context) {
		rep.Report = guardrails.Inspect(req.Source, req.InputNames, w.limits)
		ran = true
	})
	switch {
	case !ran:
		rep = checkReport{Err: errWorkerPanic()}
	case over:
		rep = checkReport{Err: memoryLimitError(w.limits.MemoryMB)}
	}
	rep.Duration = time.Since(start)
	for _, e := range []*sandbox.Error{rep.Err, rep.Report.Compile, rep.Report.Parse} {
		if e != nil {
			e.Message = cutMessage(e.Message)
		}
	}
	return rep, retiring
}

// watchdog samples a request's memory every watchInterval until stopped.
// Over the script's share of live heap it cancels the request's context (a
// job's VM is interrupted and the job reports SCRIPT_MEMORY_LIMIT); over
// the hard budget of mapped memory — a native built-in that ignores the
// interrupt and keeps allocating — it exits the worker, and the parent
// reports SCRIPT_MEMORY_LIMIT from the stderr line. Each sample runs from a
// timer, so a request that ends within watchInterval, as most do, costs a
// timer and no goroutine.
type watchdog struct {
	w      *worker
	lim    budget
	cancel context.CancelCauseFunc
	timer  *time.Timer

	mu      sync.Mutex
	stopped bool
	over    bool // the live heap went over the script's share
}

// watch starts the watchdog of one request.
func (w *worker) watch(lim budget, cancel context.CancelCauseFunc) *watchdog {
	d := &watchdog{w: w, lim: lim, cancel: cancel}
	d.mu.Lock() // a sample waits until d.timer is set
	defer d.mu.Unlock()
	d.timer = time.AfterFunc(watchInterval, d.sample)
	return d
}

// stop ends the sampling and reports whether a sample found the live heap
// over the script's share. No sample reads memory after it returns.
func (d *watchdog) stop() bool {
	d.timer.Stop()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	return d.over
}

// sample runs from d.timer: one check, then the next in watchInterval.
func (d *watchdog) sample() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	d.check()
	d.timer.Reset(watchInterval)
}

// check is one sample; it exits the worker past the hard budget, or when
// its parent is gone. d.mu is held.
func (d *watchdog) check() {
	w, m := d.w, readMemory()
	if m.mapped > d.lim.hardMap {
		_, _ = fmt.Fprintf(w.stderr, "%s: %d bytes mapped, budget %d\n", stderrMemoryHard, m.mapped, d.lim.hardMap)
		os.Exit(exitMemory)
	}
	if !d.over && m.liveHeap > d.lim.soft {
		d.over = true
		_, _ = fmt.Fprintf(w.stderr, "%s: live heap %d bytes, limit %d\n", stderrMemoryTrip, m.liveHeap, d.lim.soft)
		d.cancel(errors.New("memory limit exceeded"))
	}
	if os.Getppid() != w.ppid {
		_, _ = fmt.Fprintln(w.stderr, "flowscript-worker: the parent process is gone; exiting")
		os.Exit(exitOrphan)
	}
}

// memoryLimitError is the SCRIPT_MEMORY_LIMIT error, naming the limit.
func memoryLimitError(memoryMB int) *sandbox.Error {
	return &sandbox.Error{Code: sandbox.CodeMemoryLimit,
		Message: fmt.Sprintf("Script exceeded the memory limit of %d MB (SANDBOX_MEMORY_MB)", memoryMB)}
}

// cutMessage caps an error message a worker sends back: a script can throw
// a string of any size.
func cutMessage(s string) string {
	s, _ = textcut.Cut(s, maxErrorMessage)
	return s
}
