package workerpool

import (
	"slices"
	"sync"
)

// idleSet holds the idle workers, most recently used first. A job goes to
// the worker that finished last: its pages and caches are warm and its
// process was the last to sleep, and when fewer jobs run than there are
// workers the same few take them all while the rest stay asleep (and give
// their heap back after idleRelease). A queue would hand each job to the
// worker idle longest, waking all of them in turn.
//
// tokens counts the workers in stack: receive a token, then pop.
type idleSet struct {
	tokens chan struct{}
	mu     sync.Mutex
	stack  []*process
}

func newIdleSet(n int) *idleSet {
	return &idleSet{tokens: make(chan struct{}, n), stack: make([]*process, 0, n)}
}

// put adds proc; it never blocks while the set holds at most one worker
// per slot.
func (s *idleSet) put(proc *process) {
	s.mu.Lock()
	s.stack = append(s.stack, proc)
	s.mu.Unlock()
	s.tokens <- struct{}{}
}

// putUnder adds proc under the other idle workers: it gets a job only when
// none of them is left.
func (s *idleSet) putUnder(proc *process) {
	s.mu.Lock()
	s.stack = slices.Insert(s.stack, 0, proc)
	s.mu.Unlock()
	s.tokens <- struct{}{}
}

// pop returns the worker that became idle last; call it once per token
// received from tokens.
func (s *idleSet) pop() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := len(s.stack) - 1
	proc := s.stack[last]
	s.stack[last] = nil
	s.stack = s.stack[:last]
	return proc
}

// len is how many workers are idle.
func (s *idleSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stack)
}
