package workerpool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// process is the parent's handle on one worker process. It is owned by one
// goroutine at a time: the pool's idle channel hands it over.
type process struct {
	slot *slot
	cmd  *exec.Cmd
	pid  int
	info readyInfo

	stdin *os.File
	// stdout is read by the owner only, with blocking reads: the kernel
	// wakes the reading thread as soon as a reply arrives (no poller and no
	// reader goroutine on the hot path). A read never outlives its job: a
	// timer kills the worker at the deadline, which ends the read.
	stdout *os.File
	reader *bufio.Reader

	exited chan struct{} // closed when the process has been reaped
	// waitErr is written before exited closes.
	waitErr    error
	stderr     stderrTail
	stderrDone chan struct{}

	// logs is the worker's log region (logregion.go), nil when the
	// platform has none; lost is what it held when the worker died under a
	// job.
	logs *os.File
	lost struct {
		logs      []sandbox.LogEntry
		truncated bool
	}

	maxReply  int
	nextID    uint64
	buf       []byte
	busy      atomic.Bool // a job is running: Close kills instead of closing stdin
	closeOnce sync.Once
}

// startProcess starts a worker and waits for its ready frame. wg counts the
// process's goroutines (reaper, stderr copier).
func startProcess(ctx context.Context, cfg Config, s *slot, wg *sync.WaitGroup) (*process, error) {
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	closeAll := func() {
		for _, f := range pipes {
			if f != nil {
				_ = f.Close()
			}
		}
	}
	for i := 0; i < len(pipes); i += 2 {
		newPipe := os.Pipe
		if i == 2 {
			newPipe = blockingPipe
		}
		r, w, err := newPipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("creating the worker's pipes: %w", err)
		}
		pipes[i], pipes[i+1] = r, w
	}
	stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]

	// The log region is a comfort, not a guarantee: a worker starts
	// without one when it cannot be made.
	logs, err := newLogRegion(logRegionSize(cfg.Limits))
	if err != nil {
		logs = nil
	}

	// Not CommandContext: ctx bounds the start only; a worker lives until the
	// pool replaces or closes it.
	cmd := exec.Command(cfg.Executable, cfg.workerArgs...) //nolint:noctx // see above
	if logs != nil {
		cmd.ExtraFiles = []*os.File{logs} // its descriptor 3
	}
	cmd.Env = []string{} // empty, not nil: nil would inherit the parent's environment
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	// Its own process group: a Ctrl-C or a SIGTERM sent to the parent's
	// group does not kill a worker under a running job; the parent decides
	// when workers end (and they exit when their stdin closes).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child has its ends now; the parent keeps only its own.
	_ = stdinR.Close()
	_ = stdoutW.Close()
	_ = stderrW.Close()
	if err != nil {
		_ = stdinW.Close()
		_ = stdoutR.Close()
		_ = stderrR.Close()
		if logs != nil {
			_ = logs.Close()
		}
		return nil, fmt.Errorf("starting sandbox worker %q: %w", cfg.Executable, err)
	}

	p := &process{
		slot:       s,
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      stdinW,
		stdout:     stdoutR,
		logs:       logs,
		reader:     bufio.NewReaderSize(stdoutR, 64<<10),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		maxReply:   max(maxResultFrame(cfg.Limits), maxHostFrame(cfg.Limits), maxControlFrame),
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer wg.Done()
		defer func() { _ = stderrR.Close() }()
		_, _ = io.Copy(&p.stderr, stderrR)
		close(p.stderrDone)
	}()

	if err := p.handshake(ctx, cfg); err != nil {
		p.kill()
		p.awaitExit(cfg.StartTimeout)
		p.closePipes()
		if text := firstLine(p.stderr.text(), "flowscript-worker:", "fatal error:", "panic:"); text != "" {
			err = fmt.Errorf("%w (worker stderr: %s)", err, text)
		}
		return nil, fmt.Errorf("starting sandbox worker %q: %w", cfg.Executable, err)
	}
	return p, nil
}

// handshake sends the config and waits for the ready frame, killing the
// worker when StartTimeout passes or ctx ends first.
func (p *process) handshake(ctx context.Context, cfg Config) error {
	l := cfg.Limits
	conf := &workerConfig{
		TimeoutMS:        l.Timeout.Milliseconds(),
		MemoryMB:         l.MemoryMB,
		MaxSourceBytes:   l.MaxSourceBytes,
		MaxInputBytes:    l.MaxInputBytes,
		MaxOutputBytes:   l.MaxOutputBytes,
		MaxCallStackSize: l.MaxCallStackSize,
		MaxLogEntries:    l.MaxLogEntries,
		MaxLogBytes:      l.MaxLogBytes,
		MaxHostCalls:     l.MaxHostCalls,
		MaxHostBytes:     l.MaxHostBytes,
		TimeZone:         l.TimeZone.String(),
	}
	if p.logs != nil {
		conf.LogsFD, conf.LogsBytes = logsFD, logRegionSize(l)
	}
	var killedFor atomic.Pointer[error]
	killFor := func(err error) {
		if killedFor.CompareAndSwap(nil, &err) {
			p.kill()
		}
	}
	timer := time.AfterFunc(cfg.StartTimeout, func() {
		killFor(fmt.Errorf("the worker was not ready within %v", cfg.StartTimeout))
	})
	defer timer.Stop()
	stop := context.AfterFunc(ctx, func() {
		killFor(fmt.Errorf("waiting for the worker to be ready: %w", context.Cause(ctx)))
	})
	defer stop()

	_ = p.stdin.SetWriteDeadline(time.Now().Add(cfg.StartTimeout))
	err := writeFrame(p.stdin, &frame{Kind: kindConfig, Config: conf})
	var f *frame
	if err == nil {
		f, err = readFrame(p.reader, maxControlFrame)
	} else {
		err = fmt.Errorf("sending the config: %w", err)
	}
	if why := killedFor.Load(); why != nil {
		return *why
	}
	switch {
	case errors.Is(err, errMalformed):
		return fmt.Errorf("%w (does the binary call workerpool.MaybeRunWorker first thing in main?)", err)
	case err != nil:
		p.awaitExit(exitWait)
		return fmt.Errorf("the worker exited before it was ready (%s): %w", p.exitStatus(), err)
	case f.Kind != kindReady || f.Ready == nil:
		return fmt.Errorf("%w: expected a ready frame, got %q", errMalformed, f.Kind)
	case f.Ready.Error != "":
		return errors.New(f.Ready.Error)
	}
	p.info = *f.Ready
	return nil
}

// encode prepares f for write and returns its size in bytes.
func (p *process) encode(f *frame) (int, error) {
	var err error
	p.buf, err = appendFrame(p.buf[:0], f)
	return len(p.buf), err
}

// write sends the encoded frame. The deadline keeps a wedged worker (alive
// but not reading) from blocking the caller.
func (p *process) write(deadline time.Time) error {
	_ = p.stdin.SetWriteDeadline(deadline)
	_, err := p.stdin.Write(p.buf)
	if cap(p.buf) > 1<<20 {
		p.buf = nil // do not keep a big script's buffer for the life of the worker
	}
	if err != nil {
		return fmt.Errorf("sending a job to worker %d: %w", p.pid, err)
	}
	return nil
}

// read reads the worker's next frame.
func (p *process) read() (*frame, error) {
	return readFrame(p.reader, p.maxReply)
}

// kill ends the worker now. Killing one that already exited is harmless;
// the reaper collects it either way.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
}

// dead reports whether the worker has exited.
func (p *process) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// awaitExit waits until the worker is reaped and its stderr is read, at
// most d. It reports whether that happened.
func (p *process) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for _, ch := range []chan struct{}{p.exited, p.stderrDone} {
		select {
		case <-ch:
		case <-timer.C:
			return false
		}
	}
	return true
}

// exitStatus describes how the worker exited, or says it has not.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return p.waitErr.Error()
		}
		return "exit status 0"
	default:
		return "still running"
	}
}

// stop ends an idle worker: closing stdin makes it exit; a worker that does
// not within grace is killed.
func (p *process) stop(grace time.Duration) {
	_ = p.stdin.Close()
	if !p.awaitExit(grace) {
		p.kill()
		p.awaitExit(grace)
	}
	p.closePipes()
}

// closePipes releases the parent's ends of the pipes, once.
func (p *process) closePipes() {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		_ = p.stdout.Close()
		if p.logs != nil {
			_ = p.logs.Close()
		}
	})
}

// logsFD is the log region's descriptor in a worker: its first extra file.
const logsFD = 3

// readLogs reads the console lines the worker, now gone, left in its log
// region for the request it was running.
func (p *process) readLogs(l sandbox.Limits) ([]sandbox.LogEntry, bool) {
	if p.logs == nil {
		return nil, false
	}
	buf := make([]byte, logRegionSize(l))
	n, _ := p.logs.ReadAt(buf, 0) // short only if the region is: readLogRegion checks
	return readLogRegion(buf[:n], p.nextID, l)
}

// blockingPipe is os.Pipe with the read end left in blocking mode, which
// the Go runtime then reads with plain read(2) calls instead of the poller.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	syscall.ForkLock.RLock()
	err = syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
