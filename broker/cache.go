package broker

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// lru is a bounded least-recently-used cache of answers, safe for
// concurrent use; a nil *lru is off: it misses and keeps nothing.
type lru struct {
	mu           sync.Mutex
	cap          int
	ll           *list.List // front: most recently used; values are *lruEntry
	items        map[string]*list.Element
	hits, misses atomic.Int64
}

type lruEntry struct {
	key string
	val SearchResponse
}

// newLRU makes a cache of capacity entries, nil when capacity <= 0.
func newLRU(capacity int) *lru {
	if capacity <= 0 {
		return nil
	}
	return &lru{cap: capacity, ll: list.New(), items: make(map[string]*list.Element)}
}

// get returns the answer under key. Its hits are shared and must not be
// modified.
func (c *lru) get(key string) (SearchResponse, bool) {
	if c == nil {
		return SearchResponse{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		c.misses.Add(1)
		return SearchResponse{}, false
	}
	c.hits.Add(1)
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry).val, true
}

// add stores an answer, evicting the least recently used one when full.
func (c *lru) add(key string, val SearchResponse) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value.(*lruEntry).val = val
		c.ll.MoveToFront(e)
		return
	}
	c.items[key] = c.ll.PushFront(&lruEntry{key: key, val: val})
	if c.ll.Len() > c.cap {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*lruEntry).key)
	}
}

// len is the number of answers held.
func (c *lru) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
