// Package lru is a bounded least-recently-used map from strings to
// values, safe for concurrent use: the result caches of the server and
// of the broker.
package lru

import (
	"container/list"
	"sync"
)

// Cache holds at most its capacity of entries, evicting the least
// recently used. A nil *Cache is a disabled cache: Get misses and Add
// keeps nothing.
type Cache[V any] struct {
	mu    sync.Mutex
	cap   int
	ll    *list.List // front: most recently used; values are *entry[V]
	items map[string]*list.Element
}

type entry[V any] struct {
	key string
	val V
}

// New makes a cache of capacity entries, or nil (disabled) when
// capacity <= 0.
func New[V any](capacity int) *Cache[V] {
	if capacity <= 0 {
		return nil
	}
	return &Cache[V]{cap: capacity, ll: list.New(), items: make(map[string]*list.Element, capacity)}
}

// Get returns the value stored under key and marks it recently used.
// Values are shared with every reader and must not be modified.
func (c *Cache[V]) Get(key string) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return zero, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*entry[V]).val, true
}

// Add stores val under key, evicting the least recently used entry when
// full.
func (c *Cache[V]) Add(key string, val V) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value.(*entry[V]).val = val
		c.ll.MoveToFront(e)
		return
	}
	if c.ll.Len() >= c.cap {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(*entry[V]).key)
	}
	c.items[key] = c.ll.PushFront(&entry[V]{key: key, val: val})
}

// Len is the number of entries held.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Cap is the capacity, 0 for a disabled cache.
func (c *Cache[V]) Cap() int {
	if c == nil {
		return 0
	}
	return c.cap
}
