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
)

// process is the parent's handle on one worker process. It is owned by one
// goroutine at a time: the pool's idle channel hands it over.
type process struct {
	slot *slot
	cmd  *exec.Cmd
	pid  int
	info readyInfo

	stdin  *os.File
	frames chan *frame // closed when stdout ends; readErr says why
	// readErr is written before frames closes.
	readErr error

	exited chan struct{} // closed when the process has been reaped
	// waitErr is written before exited closes.
	waitErr    error
	stderr     stderrTail
	stderrDone chan struct{}

	maxReply int
	nextID   uint64
	buf      []byte
	busy     atomic.Bool // a job is running: Close kills instead of closing stdin
}

// startProcess starts a worker and waits for its ready frame. wg counts the
// process's goroutines (reaper, stdout reader, stderr copier).
func startProcess(ctx context.Context, cfg Config, s *slot, wg *sync.WaitGroup) (*process, error) {
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	closeAll := func() {
		for _, f := range pipes {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := 0; i < len(pipes); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("creating the worker's pipes: %w", err)
		}
		pipes[i], pipes[i+1] = r, w
	}
	stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]

	cmd := exec.Command(cfg.Executable, cfg.workerArgs...)
	cmd.Env = []string{} // empty, not nil: nil would inherit the parent's environment
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	// Its own process group: a Ctrl-C or a SIGTERM sent to the parent's
	// group does not kill a worker under a running job; the parent decides
	// when workers end (and they exit when their stdin closes).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Start()
	// The child has its ends now; the parent keeps only its own.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		stderrR.Close()
		return nil, fmt.Errorf("starting sandbox worker %q: %w", cfg.Executable, err)
	}

	p := &process{
		slot:       s,
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      stdinW,
		frames:     make(chan *frame, 1),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		maxReply:   maxResultFrame(cfg.Limits),
	}
	wg.Add(3)
	go func() {
		defer wg.Done()
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer wg.Done()
		defer stdoutR.Close()
		p.readLoop(stdoutR)
	}()
	go func() {
		defer wg.Done()
		defer stderrR.Close()
		io.Copy(&p.stderr, stderrR)
		close(p.stderrDone)
	}()

	if err := p.handshake(ctx, cfg); err != nil {
		p.kill()
		p.awaitExit(cfg.StartTimeout)
		p.stdin.Close()
		if text := firstLine(p.stderr.text(), "flowscript-worker:", "fatal error:", "panic:"); text != "" {
			err = fmt.Errorf("%w (worker stderr: %s)", err, text)
		}
		return nil, fmt.Errorf("starting sandbox worker %q: %w", cfg.Executable, err)
	}
	return p, nil
}

// handshake sends the config and waits for the ready frame.
func (p *process) handshake(ctx context.Context, cfg Config) error {
	l := cfg.Limits
	conf := &workerConfig{
		TimeoutMS:        l.Timeout.Milliseconds(),
		MemoryMB:         l.MemoryMB,
		MaxSourceBytes:   l.MaxSourceBytes,
		MaxInputBytes:    l.MaxInputBytes,
		MaxOutputBytes:   l.MaxOutputBytes,
		MaxCallStackSize: l.MaxCallStackSize,
		TimeZone:         l.TimeZone.String(),
	}
	p.stdin.SetWriteDeadline(time.Now().Add(cfg.StartTimeout))
	if err := writeFrame(p.stdin, &frame{Kind: kindConfig, Config: conf}); err != nil {
		return fmt.Errorf("sending the config: %w", err)
	}
	timer := time.NewTimer(cfg.StartTimeout)
	defer timer.Stop()
	select {
	case f, ok := <-p.frames:
		switch {
		case !ok && errors.Is(p.readErr, errMalformed):
			return fmt.Errorf("%w (does the binary call workerpool.MaybeRunWorker first thing in main?)", p.readErr)
		case !ok:
			return fmt.Errorf("the worker exited before it was ready: %w", p.endError())
		case f.Kind != kindReady || f.Ready == nil:
			return fmt.Errorf("%w: expected a ready frame, got %q", errMalformed, f.Kind)
		case f.Ready.Error != "":
			return errors.New(f.Ready.Error)
		}
		p.info = *f.Ready
		return nil
	case <-timer.C:
		return fmt.Errorf("the worker was not ready within %v", cfg.StartTimeout)
	case <-ctx.Done():
		return fmt.Errorf("waiting for the worker to be ready: %w", context.Cause(ctx))
	}
}

// readLoop delivers the frames on the worker's stdout until it ends or
// speaks garbage.
func (p *process) readLoop(stdout io.Reader) {
	defer close(p.frames)
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		f, err := readFrame(r, max(maxControlFrame, p.maxReply))
		if err != nil {
			p.readErr = err
			return
		}
		p.frames <- f
	}
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
	p.stdin.SetWriteDeadline(deadline)
	_, err := p.stdin.Write(p.buf)
	if cap(p.buf) > 1<<20 {
		p.buf = nil // do not keep a big script's buffer for the life of the worker
	}
	if err != nil {
		return fmt.Errorf("sending a job to worker %d: %w", p.pid, err)
	}
	return nil
}

// kill ends the worker now. Killing one that already exited is harmless.
func (p *process) kill() {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		// Nothing else to do: the reaper still collects it if it ends.
		_ = err
	}
}

// dead reports whether the worker has exited or its stdout closed.
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

// endError says how the worker's stdout ended: its read error, or how the
// process exited.
func (p *process) endError() error {
	if p.readErr != nil && !errors.Is(p.readErr, io.EOF) {
		return p.readErr
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return p.waitErr
		}
		return errors.New("exit status 0")
	default:
		return errors.New("its stdout closed")
	}
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
	p.stdin.Close()
	if !p.awaitExit(grace) {
		p.kill()
	}
}
