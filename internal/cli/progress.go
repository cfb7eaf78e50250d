package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressBar redraws one line on a terminal: a bar, done/total, the rate
// and the time left. It writes only \r-updated text, never a newline, and
// clears its line when it stops.
type progressBar struct {
	w     io.Writer
	total int
	done  func() int
	start time.Time
	width int // of the last line drawn, to blank it out

	stop chan struct{}
	wg   sync.WaitGroup
}

// progressInterval is how often the bar is redrawn. A run shorter than it
// never shows one.
const progressInterval = 250 * time.Millisecond

// startProgress draws the bar on w every progressInterval until stopped;
// done reports how many of total are finished.
func startProgress(w io.Writer, total int, done func() int) *progressBar {
	p := &progressBar{w: w, total: total, done: done, start: time.Now(), stop: make(chan struct{})}
	p.wg.Go(func() {
		tick := time.NewTicker(progressInterval)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				p.clear()
				return
			case now := <-tick.C:
				p.draw(now)
			}
		}
	})
	return p
}

// Stop clears the line and returns once the bar is gone.
func (p *progressBar) Stop() {
	close(p.stop)
	p.wg.Wait()
}

func (p *progressBar) draw(now time.Time) {
	line := progressLine(p.done(), p.total, now.Sub(p.start))
	pad := max(p.width-len(line), 0)
	p.width = len(line)
	_, _ = fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

func (p *progressBar) clear() {
	if p.width > 0 {
		_, _ = fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
}

// progressLine is "[#####.....]  2500/5000  50%  410 jobs/s  eta 6s".
func progressLine(done, total int, elapsed time.Duration) string {
	const barWidth = 30
	frac := 0.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	filled := int(frac * barWidth)
	bar := strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%s] %d/%d %3.0f%%  %.0f jobs/s  eta %s", bar, done, total, 100*frac, rate, eta)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
