package workerpool

import (
	"bufio"
	"errors"
	"io"
	"os"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// fakeWorkerArg starts a test binary as a misbehaving worker, to test how
// the parent copes with garbage, early exits and wrong answers.
const fakeWorkerArg = "__workerpool-fake-worker"

// runFakeWorker speaks the protocol like a worker, except where mode or a
// job's source says otherwise:
//
//	mode "never-ready": reads the config, never answers
//	mode "setup-error": answers the config with an error
//	mode "die-when-idle": says ready, then exits
//	source "garbage": prints text instead of a frame, then waits
//	source "exit": exits in the middle of the job
//	source "wrong-id": answers with another job's id
//	source "huge-frame": announces a 3 GB frame
//	other sources: answers "ok:" + source
func runFakeWorker(mode string) int {
	in := bufio.NewReader(os.Stdin)
	out := os.Stdout
	if _, err := readFrame(in, maxControlFrame); err != nil {
		return 1
	}
	switch mode {
	case "never-ready":
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "setup-error":
		_ = writeFrame(out, &frame{Kind: kindReady, Ready: &readyInfo{Error: "loading time zone \"Mars/Olympus\": unknown time zone"}})
		return exitSetup
	}
	_ = writeFrame(out, &frame{Kind: kindReady, Ready: &readyInfo{PID: os.Getpid()}})
	if mode == "die-when-idle" {
		return 1
	}
	for {
		f, err := readFrame(in, 1<<20)
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			return exitProtocol
		}
		switch f.Job.Source {
		case "garbage":
			_, _ = out.WriteString("hello from a worker that prints to stdout\n")
			_, _ = io.Copy(io.Discard, in)
			return 0
		case "exit":
			_, _ = os.Stderr.WriteString("about to leave\n")
			time.Sleep(10 * time.Millisecond)
			return 9
		case "wrong-id":
			_ = writeFrame(out, &frame{Kind: kindResult, ID: f.ID + 1, Result: &sandbox.Result{Output: "late"}})
		case "huge-frame":
			_, _ = out.WriteString(frameMagic + "\xc0\x00\x00\x00")
			_, _ = io.Copy(io.Discard, in)
			return 0
		default:
			_ = writeFrame(out, &frame{Kind: kindResult, ID: f.ID, Result: &sandbox.Result{Output: "ok:" + f.Job.Source}})
		}
	}
}
