package sandbox

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// programCacheSize bounds the compiled programs kept in memory. Flows reuse
// a small set of scripts; a bound keeps a stream of one-off scripts from
// growing the heap.
const programCacheSize = 1024

// programs is the process-wide cache of compiled programs, safe for
// concurrent use: a *Program is immutable once compiled.
var programs = newProgramCache(programCacheSize)

type cacheKeyT [sha256.Size]byte

// cacheKey hashes the source and the ordered names; the names are part of
// the key because they are the generated function's parameters.
func cacheKey(source string, names []string) cacheKeyT {
	h := sha256.New()
	h.Write([]byte(source))
	for _, n := range names {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	var k cacheKeyT
	h.Sum(k[:0])
	return k
}

type programCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *cacheEntry
	items map[cacheKeyT]*list.Element
}

type cacheEntry struct {
	key  cacheKeyT
	prog *Program
}

func newProgramCache(max int) *programCache {
	return &programCache{
		max:   max,
		order: list.New(),
		items: make(map[cacheKeyT]*list.Element, max),
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

func (c *programCache) put(k cacheKeyT, p *Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, prog: p})
	for c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*cacheEntry).key)
	}
}

func (c *programCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
