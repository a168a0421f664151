package gpu

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// The list cache's policies (Options.CachePolicy, gpu.cache_policy).
const (
	// CacheLRU evicts the list whose last use is oldest.
	CacheLRU = "lru"
	// CacheLFU evicts the list used least often, with dynamic aging (the
	// LFU-DA of web caches): a list's priority is its use count, kept
	// while it is evicted too, plus the cache's age at its last use, and
	// each eviction raises the age to the evicted list's priority, so that
	// lists popular long ago do not stay forever. Ties go to the older
	// last use.
	CacheLFU = "lfu"
)

// CachePolicies lists the policies, default first.
var CachePolicies = []string{CacheLRU, CacheLFU}

// checkPolicy validates a policy name; "" means CacheLRU.
func checkPolicy(p string) (string, error) {
	if p == "" {
		return CacheLRU, nil
	}
	if !slices.Contains(CachePolicies, p) {
		return "", fmt.Errorf("gpu: unknown cache policy %q (want %s or %s)", p, CacheLRU, CacheLFU)
	}
	return p, nil
}

// ErrListsTooLarge is wrapped by the error of a query whose long lists
// together exceed the list cache: it cannot run under the memory budget.
var ErrListsTooLarge = errors.New("gpu: a query's long lists exceed the list cache")

// CacheStats counts a list cache's work: accesses to long lists by a
// query pass (a list a batch uses twice counts once), those found on the
// device (hits) and those streamed in (misses), and evictions.
type CacheStats struct {
	Policy        string `json:"policy"`
	CapacityBytes int64  `json:"capacity_bytes"`
	UsedBytes     int64  `json:"used_bytes"`
	Resident      int    `json:"resident_lists"`
	LongLists     int    `json:"long_lists"`
	LongBytes     int64  `json:"long_bytes"`
	Hits          int64  `json:"hits"`
	Misses        int64  `json:"misses"`
	HitBytes      int64  `json:"hit_bytes"`
	// StreamedBytes is the bytes of the missed lists, copied to the device.
	StreamedBytes int64 `json:"streamed_bytes"`
	Evictions     int64 `json:"evictions"`
	EvictedBytes  int64 `json:"evicted_bytes"`
}

// HitRate is the share of list accesses that hit, 0 without accesses.
func (s CacheStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// ByteHitRate is the share of accessed bytes that hit.
func (s CacheStats) ByteHitRate() float64 {
	if s.HitBytes+s.StreamedBytes == 0 {
		return 0
	}
	return float64(s.HitBytes) / float64(s.HitBytes+s.StreamedBytes)
}

// cacheAlign is the alignment of a list's place in the cache.
const cacheAlign = 256

// extent is a free range of the cache, in bytes from its start.
type extent struct{ off, size int64 }

// cacheEntry is one long list's state in the cache.
type cacheEntry struct {
	off      int64
	resident bool
	ready    bool  // its bytes are on the device (false while a run loads them)
	pins     int32 // runs using it; a pinned entry is never evicted
	prio     uint64
	last     uint64 // tick of its last use
	count    uint64 // uses (CacheLFU), kept across evictions
	hpos     int    // place in the heap while resident
}

// listCache is the bookkeeping of the device-side cache of long lists:
// where each resident list lies in the cache's bytes, which are pinned by
// runs in flight, and which to evict. It moves no bytes itself: acquire
// says which lists to copy where, and the caller copies them. Lists are
// numbered 0..n-1 with their sizes fixed at creation. It is safe for
// concurrent use; the simulation of a query log runs the same code.
type listCache struct {
	policy   string
	capacity int64
	size     []int64 // per list, rounded up to cacheAlign

	mu   sync.Mutex
	cond *sync.Cond
	ent  []cacheEntry
	// heap holds the resident lists no run pins, least valuable first:
	// the candidates for eviction. A pinned list leaves it until its last
	// run releases it.
	heap     entryHeap
	free     []extent // by offset, coalesced
	tick     uint64
	age      uint64 // CacheLFU's dynamic age
	pinned   int    // entries with pins > 0
	resident int
	stats    CacheStats
}

// newListCache makes an empty cache of capacity bytes over lists of the
// given sizes.
func newListCache(policy string, capacity int64, sizes []int64) (*listCache, error) {
	policy, err := checkPolicy(policy)
	if err != nil {
		return nil, err
	}
	if capacity <= 0 {
		return nil, fmt.Errorf("gpu: list cache of %d bytes", capacity)
	}
	c := &listCache{policy: policy, capacity: capacity &^ (cacheAlign - 1), size: make([]int64, len(sizes)),
		ent: make([]cacheEntry, len(sizes))}
	c.cond = sync.NewCond(&c.mu)
	c.heap.c = c
	c.free = []extent{{0, c.capacity}}
	c.stats.Policy, c.stats.CapacityBytes, c.stats.LongLists = policy, c.capacity, len(sizes)
	for i, s := range sizes {
		c.size[i] = (s + cacheAlign - 1) &^ (cacheAlign - 1)
		c.stats.LongBytes += s
	}
	return c, nil
}

// cacheLoad is a list to copy to the device before a run: list id, to
// offset off of the cache.
type cacheLoad struct {
	id  int32
	off int64
}

// acquire pins lists ids (distinct) on the device for one run and
// returns those to copy there first, at the places it gave them; the
// caller copies them, then calls loaded, and calls release(ids) once
// its run is over. To make room it evicts unpinned lists by the policy.
// It waits while the lists cannot fit beside those other runs pin, or
// while another run is loading one of them; lists that together exceed
// the cache fail with ErrListsTooLarge.
func (c *listCache) acquire(ids []int32) ([]cacheLoad, error) {
	var need int64
	for _, id := range ids {
		need += c.size[id]
	}
	if need > c.capacity {
		return nil, fmt.Errorf("%w: %d bytes, the cache holds %d (raise gpu.memory_budget_mb)", ErrListsTooLarge, need, c.capacity)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if c.loading(ids) {
			c.cond.Wait()
			continue
		}
		if loads, ok := c.place(ids); ok {
			return loads, nil
		}
		if c.pinned == 0 {
			// Nothing else is pinned, yet the lists do not fit: the
			// free space is in pieces. Start over from an empty cache,
			// which holds them (need <= capacity).
			c.evictAll()
			loads, _ := c.place(ids)
			return loads, nil
		}
		c.cond.Wait()
	}
}

// loading reports whether a run is still copying one of ids.
func (c *listCache) loading(ids []int32) bool {
	for _, id := range ids {
		if e := &c.ent[id]; e.resident && !e.ready {
			return true
		}
	}
	return false
}

// place pins ids, placing the missing ones, or, if they cannot all be
// placed now, undoes what it did (evictions stay) and returns false.
func (c *listCache) place(ids []int32) ([]cacheLoad, bool) {
	for _, id := range ids {
		if c.ent[id].resident {
			c.pin(id)
		}
	}
	var loads []cacheLoad
	for _, id := range ids {
		e := &c.ent[id]
		if e.resident {
			continue
		}
		off, ok := c.allocEvicting(c.size[id])
		if !ok {
			for _, l := range loads {
				c.unpin(l.id)
				c.drop(l.id)
			}
			for _, id := range ids {
				if c.ent[id].resident {
					c.unpin(id)
				}
			}
			return nil, false
		}
		*e = cacheEntry{off: off, resident: true, count: e.count, hpos: -1}
		c.resident++
		c.pin(id)
		loads = append(loads, cacheLoad{id: id, off: off})
	}
	// Placed: count the accesses and update the priorities (of pinned
	// lists, outside the heap).
	missed := make(map[int32]bool, len(loads))
	for _, l := range loads {
		missed[l.id] = true
	}
	for _, id := range ids {
		e := &c.ent[id]
		c.tick++
		e.last, e.count = c.tick, e.count+1
		if c.policy == CacheLFU {
			e.prio = c.age + e.count
		} else {
			e.prio = c.tick
		}
		if missed[id] {
			c.stats.Misses++
			c.stats.StreamedBytes += c.size[id]
		} else {
			c.stats.Hits++
			c.stats.HitBytes += c.size[id]
		}
	}
	return loads, true
}

// loaded marks the lists of loads as on the device, or, when their copy
// failed (err), drops them.
func (c *listCache) loaded(loads []cacheLoad, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range loads {
		if err != nil {
			c.unpin(l.id)
			c.drop(l.id)
			continue
		}
		c.ent[l.id].ready = true
	}
	c.cond.Broadcast()
}

// release unpins ids after their run.
func (c *listCache) release(ids []int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.ent[id].resident {
			c.unpin(id)
		}
	}
	c.cond.Broadcast()
}

// pin takes a resident list out of the eviction candidates for a run.
func (c *listCache) pin(id int32) {
	e := &c.ent[id]
	if e.pins == 0 {
		c.pinned++
		if e.hpos >= 0 {
			heap.Remove(&c.heap, e.hpos)
		}
	}
	e.pins++
}

// unpin ends a run's use of a resident list; the last makes it a
// candidate for eviction again.
func (c *listCache) unpin(id int32) {
	e := &c.ent[id]
	e.pins--
	if e.pins == 0 {
		c.pinned--
		heap.Push(&c.heap, id)
	}
}

// allocEvicting finds size bytes, evicting unpinned lists by the policy
// until a free extent fits; false when only pinned lists are left. Since
// no extent fitted before an eviction, only the one it freed (merged with
// its neighbours) can fit after it.
func (c *listCache) allocEvicting(size int64) (int64, bool) {
	if off, ok := c.alloc(size); ok {
		return off, true
	}
	for {
		id, ok := c.victim()
		if !ok {
			return 0, false
		}
		if c.policy == CacheLFU {
			c.age = max(c.age, c.ent[id].prio)
		}
		c.stats.Evictions++
		c.stats.EvictedBytes += c.size[id]
		if i := c.drop(id); c.free[i].size >= size {
			return c.take(i, size), true
		}
	}
}

// victim is the least valuable unpinned resident list.
func (c *listCache) victim() (int32, bool) {
	if c.heap.Len() == 0 {
		return 0, false
	}
	return c.heap.ids[0], true
}

// drop removes a resident, unpinned list and frees its bytes; it
// returns the index of the free extent that holds them.
func (c *listCache) drop(id int32) int {
	e := &c.ent[id]
	heap.Remove(&c.heap, e.hpos)
	i := c.release1(e.off, c.size[id])
	c.resident--
	*e = cacheEntry{count: e.count, hpos: -1}
	return i
}

// evictAll drops every resident list (none is pinned).
func (c *listCache) evictAll() {
	for c.heap.Len() > 0 {
		id := c.heap.ids[0]
		c.stats.Evictions++
		c.stats.EvictedBytes += c.size[id]
		c.drop(id)
	}
}

// alloc takes size bytes from the first free extent that holds them.
func (c *listCache) alloc(size int64) (int64, bool) {
	for i, x := range c.free {
		if x.size >= size {
			return c.take(i, size), true
		}
	}
	return 0, false
}

// take allocates size bytes from the start of free extent i.
func (c *listCache) take(i int, size int64) int64 {
	x := c.free[i]
	if x.size == size {
		c.free = slices.Delete(c.free, i, i+1)
	} else {
		c.free[i] = extent{x.off + size, x.size - size}
	}
	return x.off
}

// release1 returns [off, off+size) to the free extents, merging it with
// its neighbours, and returns the index of the extent that holds it.
func (c *listCache) release1(off, size int64) int {
	i, _ := slices.BinarySearchFunc(c.free, off, func(x extent, off int64) int {
		switch {
		case x.off < off:
			return -1
		case x.off > off:
			return 1
		}
		return 0
	})
	c.free = slices.Insert(c.free, i, extent{off, size})
	if i+1 < len(c.free) && c.free[i].off+c.free[i].size == c.free[i+1].off {
		c.free[i].size += c.free[i+1].size
		c.free = slices.Delete(c.free, i+1, i+2)
	}
	if i > 0 && c.free[i-1].off+c.free[i-1].size == c.free[i].off {
		c.free[i-1].size += c.free[i].size
		c.free = slices.Delete(c.free, i, i+1)
		i--
	}
	return i
}

// snapshot returns the statistics so far.
func (c *listCache) snapshot() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Resident = c.resident
	for _, x := range c.free {
		s.UsedBytes -= x.size
	}
	s.UsedBytes += c.capacity
	return s
}

// entryHeap orders the resident lists by priority, then last use, then
// id: the least valuable first.
type entryHeap struct {
	c   *listCache
	ids []int32
}

func (h *entryHeap) Len() int { return len(h.ids) }
func (h *entryHeap) Less(i, j int) bool {
	a, b := &h.c.ent[h.ids[i]], &h.c.ent[h.ids[j]]
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	if a.last != b.last {
		return a.last < b.last
	}
	return h.ids[i] < h.ids[j]
}
func (h *entryHeap) Swap(i, j int) {
	h.ids[i], h.ids[j] = h.ids[j], h.ids[i]
	h.c.ent[h.ids[i]].hpos = i
	h.c.ent[h.ids[j]].hpos = j
}
func (h *entryHeap) Push(x any) {
	id := x.(int32)
	h.c.ent[id].hpos = len(h.ids)
	h.ids = append(h.ids, id)
}
func (h *entryHeap) Pop() any {
	id := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	h.c.ent[id].hpos = -1
	return id
}
