package index

import (
	"hash/maphash"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// termTable finds a term's ordinal in the lexicon by hashing: open
// addressing with linear probing over a power-of-two table 3/8 to 3/4
// full, each slot the term's ordinal+1 (0: empty) under the top 32 bits of
// its hash, so that a probe reads a term only when those bits match. It
// costs 8 bytes a slot, 11 to 22 a term (67 MB for 5.7 million); a lookup
// reads about one cache line of slots and the one term it finds, where a
// binary search of that lexicon missed the cache at most of its 23 probes
// and, narrowed by sampled keys, still took about 1 us: a third of the
// GPU engine's host time on AND batches (a CPU profile on the H100 machine).
type termTable struct {
	seed  maphash.Seed
	slots []uint64
}

// newTermTable indexes n terms, term(i) being the i-th, hashing them on
// every core.
func newTermTable(n int, term func(i int) string) termTable {
	t := termTable{seed: maphash.MakeSeed()}
	if n == 0 {
		return t
	}
	t.slots = make([]uint64, 1<<bits.Len(uint(n+n/3)))
	mask := uint64(len(t.slots) - 1)
	workers := min(runtime.GOMAXPROCS(0), 1+n/(1<<16))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				h := maphash.String(t.seed, term(i))
				v := h&^(1<<32-1) | uint64(i+1)
				for s := h & mask; ; s = (s + 1) & mask {
					if atomic.CompareAndSwapUint64(&t.slots[s], 0, v) {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	return t
}

// find returns the ordinal of term, term(i) being the i-th.
func (t *termTable) find(term string, termAt func(i int) string) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	return t.findHashed(t.hash(term), term, termAt)
}

// hash is term's hash, from which its probes start (slot) and whose top
// 32 bits tag its slot.
func (t *termTable) hash(term string) uint64 { return maphash.String(t.seed, term) }

// slot is the first slot a term of hash h probes; the table has slots.
func (t *termTable) slot(h uint64) *uint64 { return &t.slots[h&uint64(len(t.slots)-1)] }

// tagged returns the ordinal slot value v holds when v carries hash h's
// tag: the term find would compare first.
func tagged(v, h uint64) (int, bool) {
	if v == 0 || v&^(1<<32-1) != h&^(1<<32-1) {
		return 0, false
	}
	return int(uint32(v)) - 1, true
}

// findHashed is find for a term whose hash h is known; the table has
// slots.
func (t *termTable) findHashed(h uint64, term string, termAt func(i int) string) (int, bool) {
	mask := uint64(len(t.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			return 0, false
		}
		if i, ok := tagged(v, h); ok && termAt(i) == term {
			return i, true
		}
	}
}
