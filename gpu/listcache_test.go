package gpu

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// access runs one query's lists through c as a run would: acquire, load,
// release. It returns the lists that missed.
func access(t *testing.T, c *listCache, ids ...int32) []int32 {
	t.Helper()
	loads, err := c.acquire(ids)
	if err != nil {
		t.Fatalf("acquire(%v): %v", ids, err)
	}
	c.loaded(loads, nil)
	c.release(ids)
	var missed []int32
	for _, l := range loads {
		missed = append(missed, l.id)
	}
	slices.Sort(missed)
	return missed
}

// TestListCachePolicies: a cache of three lists of one size, the same
// accesses under each policy: LRU evicts the list used longest ago, LFU
// the one used least often.
func TestListCachePolicies(t *testing.T) {
	sizes := []int64{256, 256, 256, 256}
	tests := []struct {
		policy string
		want   []int32 // what the last access misses
	}{
		// 0 is used three times, then 1, 2, then 3 needs room: LRU drops
		// 0 (oldest use), so 0 misses again; LFU drops 1 and keeps 0.
		{CacheLRU, []int32{0}},
		{CacheLFU, nil},
	}
	for _, tt := range tests {
		c, err := newListCache(tt.policy, 3*256, sizes)
		if err != nil {
			t.Fatal(err)
		}
		for _, ids := range [][]int32{{0}, {0}, {0}, {1}, {2}, {3}} {
			access(t, c, ids...)
		}
		if got := access(t, c, 0); !slices.Equal(got, tt.want) {
			t.Errorf("%s: access to 0 missed %v, want %v", tt.policy, got, tt.want)
		}
		st := c.snapshot()
		if st.Hits+st.Misses != 7 || st.Evictions == 0 {
			t.Errorf("%s: stats %+v", tt.policy, st)
		}
	}
	if _, err := newListCache("fifo", 256, sizes); err == nil {
		t.Error("unknown policy accepted")
	}
}

// TestListCacheFragments: freed neighbours merge, and lists that fit only
// in an emptied cache (the free space in pieces) are placed after all.
func TestListCacheFragments(t *testing.T) {
	c, err := newListCache(CacheLRU, 4*256, []int64{256, 256, 256, 256, 512})
	if err != nil {
		t.Fatal(err)
	}
	access(t, c, 0, 1, 2, 3)
	// 4 needs two adjacent slots: LRU evicts 0, then 1, which merge.
	if got := access(t, c, 4); !slices.Equal(got, []int32{4}) {
		t.Fatalf("missed %v", got)
	}
	if got := access(t, c, 2, 3); got != nil {
		t.Errorf("2 and 3 should have stayed, missed %v", got)
	}
	// 0 and 1 come back, evicting 4; then 4 with 0 pinned alongside.
	access(t, c, 0, 1)
	if got := access(t, c, 4, 0); !slices.Equal(got, []int32{4}) {
		t.Errorf("missed %v, want [4]", got)
	}
	st := c.snapshot()
	if st.UsedBytes > st.CapacityBytes || len(c.free) > 2 {
		t.Errorf("used %d of %d, free extents %v", st.UsedBytes, st.CapacityBytes, c.free)
	}
	if _, err := c.acquire([]int32{4, 0, 1, 2}); !errors.Is(err, ErrListsTooLarge) {
		t.Errorf("lists over the capacity: %v", err)
	}
}

// TestListCachePinsWait: a run that needs room another run's pinned lists
// take waits until they are released, and a run that needs a list another
// is still loading waits for the load.
func TestListCachePinsWait(t *testing.T) {
	c, err := newListCache(CacheLRU, 2*256, []int64{256, 256, 256})
	if err != nil {
		t.Fatal(err)
	}
	loads, err := c.acquire([]int32{0, 1})
	if err != nil || len(loads) != 2 {
		t.Fatalf("acquire: %v %v", loads, err)
	}
	done := make(chan []int32)
	go func() {
		done <- access(t, c, 2)
	}()
	go func() {
		done <- access(t, c, 0)
	}()
	select {
	case got := <-done:
		t.Fatalf("a run went ahead of pinned or loading lists: missed %v", got)
	case <-time.After(20 * time.Millisecond):
	}
	c.loaded(loads, nil)
	c.release([]int32{0, 1})
	a, b := <-done, <-done
	if len(a)+len(b) < 1 {
		t.Errorf("missed %v and %v, want 2 to miss", a, b)
	}
}

// TestListCacheRandom: random accesses by concurrent runs never place two
// resident lists over each other nor outside the cache, and the counts
// add up.
func TestListCacheRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int64, 60)
	for i := range sizes {
		sizes[i] = 1 + rng.Int64N(3000)
	}
	for _, policy := range CachePolicies {
		c, err := newListCache(policy, 20000, sizes)
		if err != nil {
			t.Fatal(err)
		}
		var accesses int64
		done := make(chan int64)
		for w := range 4 {
			go func() {
				r := rand.New(rand.NewPCG(uint64(w), 3))
				var n int64
				for range 300 {
					var ids []int32
					for range 1 + r.IntN(4) {
						id := int32(min(59, int(r.ExpFloat64()*12)))
						if !slices.Contains(ids, id) {
							ids = append(ids, id)
						}
					}
					loads, err := c.acquire(ids)
					if err != nil {
						t.Error(err)
						break
					}
					c.loaded(loads, nil)
					c.release(ids)
					n += int64(len(ids))
				}
				done <- n
			}()
		}
		for range 4 {
			accesses += <-done
		}
		st := c.snapshot()
		if st.Hits+st.Misses != accesses || st.Hits == 0 {
			t.Errorf("%s: %d hits + %d misses, %d accesses", policy, st.Hits, st.Misses, accesses)
		}
		type span struct{ lo, hi int64 }
		var used []span
		for id, e := range c.ent {
			if e.resident {
				used = append(used, span{e.off, e.off + c.size[id]})
			}
			if e.pins != 0 {
				t.Errorf("%s: list %d still pinned %d times", policy, id, e.pins)
			}
		}
		for _, x := range c.free {
			used = append(used, span{x.off, x.off + x.size})
		}
		slices.SortFunc(used, func(a, b span) int { return int(a.lo - b.lo) })
		end := int64(0)
		for _, u := range used {
			if u.lo != end {
				t.Errorf("%s: lists and free space do not tile the cache at %d: %v", policy, end, used)
				break
			}
			end = u.hi
		}
		if end != c.capacity {
			t.Errorf("%s: tiles end at %d, capacity %d", policy, end, c.capacity)
		}
	}
}

// BenchmarkListCacheBatch: one batch's acquire of 3,000 lists, half of
// them resident, in a cache of 40,000 lists' room among 100,000: the
// host-side cost a large batch pays before its copies.
func BenchmarkListCacheBatch(b *testing.B) {
	for _, policy := range CachePolicies {
		b.Run(policy, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			sizes := make([]int64, 100000)
			for i := range sizes {
				sizes[i] = 256 * (1 + rng.Int64N(8))
			}
			c, err := newListCache(policy, 40000*4*256, sizes)
			if err != nil {
				b.Fatal(err)
			}
			ids := make([]int32, 3000)
			for b.Loop() {
				for i := range ids {
					ids[i] = int32(rng.IntN(len(sizes)))
				}
				slices.Sort(ids)
				ids = slices.Compact(ids)
				loads, err := c.acquire(ids)
				if err != nil {
					b.Fatal(err)
				}
				c.loaded(loads, nil)
				c.release(ids)
				ids = ids[:cap(ids)]
			}
		})
	}
}
