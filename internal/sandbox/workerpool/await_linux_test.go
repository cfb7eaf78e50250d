package workerpool

import (
	"os"
	"testing"
	"time"
)

// TestAwaitInput checks awaitInput's three ways out: input arriving while
// it waits, the writer closing the pipe, and nothing at all (it gives up
// after its slices and leaves the read to block). Its gain, the worker's
// context switches per job, is measured by BenchmarkDrainRatio
// (internal/executorapp) and BenchmarkPoolThroughput.
func TestAwaitInput(t *testing.T) {
	pipe := func(t *testing.T) (r, w *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
		return r, w
	}
	wait := func(r *os.File) time.Duration {
		start := time.Now()
		awaitInput(int(r.Fd()))
		return time.Since(start)
	}
	total := time.Duration(awaitSlice * awaitSlices)

	t.Run("input", func(t *testing.T) {
		r, w := pipe(t)
		go func() {
			time.Sleep(time.Millisecond)
			_, _ = w.Write([]byte("x"))
		}()
		_ = wait(r)
		// Whether it returned on the write or gave up first (a slow
		// machine), the byte is there to read without blocking.
		var b [1]byte
		if n, err := r.Read(b[:]); n != 1 || err != nil {
			t.Fatalf("read after awaitInput: %d, %v", n, err)
		}
		_, _ = w.Write([]byte("y"))
		if d := wait(r); d >= total {
			t.Errorf("awaitInput took %s with input already there, want well under %s", d, total)
		}
	})
	t.Run("closed", func(t *testing.T) {
		r, w := pipe(t)
		_ = w.Close()
		if d := wait(r); d >= total {
			t.Errorf("awaitInput took %s on a closed pipe, want well under %s", d, total)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		r, _ := pipe(t)
		// About total; sooner when signals (the GC's, the runtime
		// monitor's preemption) cut slices short, which is harmless.
		if d := wait(r); d > 20*total {
			t.Errorf("awaitInput gave up after %s with no input, want about %s", d, total)
		}
	})
}
