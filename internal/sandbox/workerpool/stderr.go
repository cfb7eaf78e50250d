package workerpool

import (
	"bytes"
	"sync"
)

// stderrTail keeps what a worker wrote on stderr since the current job
// started: the first headMax bytes (a Go fatal error names its cause on its
// first line, before the goroutine dump) and the last tailMax bytes.
type stderrTail struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte
	total int
}

const (
	// The head holds a fatal error's first goroutine whole: Go prints the
	// innermost and the outermost 50 frames of a deep stack, 15–25 KB,
	// and the outermost tell compiling from running (overflowedCompiling).
	stderrHeadMax = 32 << 10
	stderrTailMax = 4 << 10
)

// Write implements io.Writer; it never fails.
func (s *stderrTail) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += len(p)
	rest := p
	if room := stderrHeadMax - len(s.head); room > 0 {
		n := min(room, len(rest))
		s.head = append(s.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		s.tail = append(s.tail, rest...)
		if over := len(s.tail) - stderrTailMax; over > 0 {
			s.tail = append(s.tail[:0], s.tail[over:]...)
		}
	}
	return len(p), nil
}

// reset forgets what was written so far (a new job starts).
func (s *stderrTail) reset() {
	s.mu.Lock()
	s.head, s.tail, s.total = s.head[:0], s.tail[:0], 0
	s.mu.Unlock()
}

// text returns the head and the tail, with a marker where bytes were
// dropped between them.
func (s *stderrTail) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total <= len(s.head)+len(s.tail) {
		return string(s.head) + string(s.tail)
	}
	return string(s.head) + "\n[…]\n" + string(s.tail)
}

// firstLine returns the first non-empty line of text that starts with one
// of the prefixes, or "".
func firstLine(text string, prefixes ...string) string {
	for line := range bytes.Lines([]byte(text)) {
		line = bytes.TrimSpace(line)
		for _, p := range prefixes {
			if bytes.HasPrefix(line, []byte(p)) {
				return string(line)
			}
		}
	}
	return ""
}
