package api

import (
	"container/list"
	"sync"

	"github.com/gpusearch/gpusearch/query"
)

// cached is a cached answer: the ranked hits to the cached depth, with
// their URLs, and the statistics of the search that produced them.
type cached struct {
	hits  []Hit
	stats query.Stats
}

// lru is a bounded least-recently-used map, safe for concurrent use. A nil
// *lru is a disabled cache: Get misses and Add does nothing.
type lru struct {
	mu    sync.Mutex
	cap   int
	ll    *list.List // front: most recently used; values are *lruEntry
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	val cached
}

// newLRU makes a cache of capacity entries, or nil (disabled) when
// capacity <= 0.
func newLRU(capacity int) *lru {
	if capacity <= 0 {
		return nil
	}
	return &lru{cap: capacity, ll: list.New(), items: make(map[string]*list.Element, capacity)}
}

// Get returns the value stored under key and marks it recently used.
func (c *lru) Get(key string) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return cached{}, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry).val, true
}

// Add stores val under key, evicting the least recently used entry when
// full. Values are shared with readers and must not be modified.
func (c *lru) Add(key string, val cached) {
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
	if c.ll.Len() >= c.cap {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(*lruEntry).key)
	}
	c.items[key] = c.ll.PushFront(&lruEntry{key: key, val: val})
}

// Len is the number of entries held.
func (c *lru) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Cap is the capacity, 0 for a disabled cache.
func (c *lru) Cap() int {
	if c == nil {
		return 0
	}
	return c.cap
}
