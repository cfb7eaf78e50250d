package sandbox

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"runtime/metrics"
	"sync"
)

// DefaultProgramCacheBytes bounds the compiled programs a process keeps, by
// what they cost (see programCost), not by how many they are: one source of
// 1 KB with a hundred /a{1000}/ literals keeps 4.4 MB alive, a 60 KB array
// of arrow functions 3 MB, the seed's cpf script 4 KB. Flows reuse a small
// set of scripts; a bound keeps a stream of one-off or huge scripts from
// growing the heap. A sandbox worker sets its own bound (SetProgramCacheBytes).
const DefaultProgramCacheBytes = 16 << 20

// programs is the process-wide cache of compiled programs, safe for
// concurrent use: a *Program is immutable once compiled.
var programs = newProgramCache(DefaultProgramCacheBytes)

// SetProgramCacheBytes sets the bound of the process's program cache, in
// bytes of cost, evicting the least recently used programs over it.
func SetProgramCacheBytes(n uint64) { programs.setMax(n) }

// ProgramCacheStats says what the process's program cache holds and has
// held: the cost of the programs in it now, and of every program ever put
// in it (a counter that only grows: the cost added since some moment is the
// difference of two readings).
func ProgramCacheStats() (held, added uint64) { return programs.stats() }

// programCost estimates, in bytes, what a compiled program keeps alive: the
// source text it holds for positions plus what compiling it allocated, an
// upper bound of the rest (measured over arrow functions, regex literals,
// object literals and plain statements: 2 to 4.5 times what stays live).
// The floor covers small compiles, whose allocations the runtime's counter
// only sees a span at a time, with a margin (the seed's cpf script keeps
// 3.3 KB: its floor is 8.8 KB).
func programCost(textBytes int, allocated uint64) uint64 {
	floor := uint64(16*textBytes + 4<<10)
	return uint64(textBytes) + max(allocated, floor)
}

var allocsSample = sync.Pool{New: func() any {
	return &[1]metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
}}

// allocatedBytes is the process's heap allocations so far. With programs
// compiled on several goroutines at once it counts the others' too: costs
// are then overestimated, which only makes the cache evict sooner.
func allocatedBytes() uint64 {
	s := allocsSample.Get().(*[1]metrics.Sample)
	defer allocsSample.Put(s)
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

type cacheKeyT [sha256.Size]byte

// cacheKey hashes the source and the ordered names; the names are part of
// the key because they are the generated function's parameters.
func cacheKey(source string, names []string) cacheKeyT {
	// Each part goes in with its length first, so no two lists of parts
	// hash the same bytes: a source ending in "\x00a" with no inputs is not
	// that source's prefix with an input named a. The parts are laid out
	// in a reused buffer and hashed in one call: no allocation per job.
	bp := keyBuffers.Get().(*[]byte)
	b := (*bp)[:0]
	b = binary.AppendUvarint(b, uint64(len(source)))
	b = append(b, source...)
	for _, name := range names {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
	}
	k := cacheKeyT(sha256.Sum256(b))
	if cap(b) <= maxKeptKeyBuffer {
		*bp = b
		keyBuffers.Put(bp)
	}
	return k
}

// keyBuffers are cacheKey's buffers; one over maxKeptKeyBuffer (a source
// of that size) is left to the GC.
var keyBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxKeptKeyBuffer = 64 << 10

// programCache is a least-recently-used cache bounded by the programs'
// cost in bytes.
type programCache struct {
	mu    sync.Mutex
	max   uint64
	held  uint64
	added uint64
	order *list.List // front = most recently used; values are *cacheEntry
	items map[cacheKeyT]*list.Element
}

type cacheEntry struct {
	key  cacheKeyT
	prog *Program
}

func newProgramCache(maxBytes uint64) *programCache {
	return &programCache{
		max:   maxBytes,
		order: list.New(),
		items: make(map[cacheKeyT]*list.Element),
	}
}

func (c *programCache) get(k cacheKeyT) (*Program, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).prog, true
}

// put keeps p unless it alone costs more than the bound (it is then simply
// not cached: compiling it again is the price of its size).
func (c *programCache) put(k cacheKeyT, p *Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	if p.cost > c.max {
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, prog: p})
	c.held += p.cost
	c.added += p.cost
	c.evict()
}

func (c *programCache) evict() {
	for c.held > c.max {
		oldest := c.order.Back()
		e := oldest.Value.(*cacheEntry)
		c.order.Remove(oldest)
		delete(c.items, e.key)
		c.held -= e.prog.cost
	}
}

func (c *programCache) setMax(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = n
	c.evict()
}

func (c *programCache) stats() (held, added uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held, c.added
}

func (c *programCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
