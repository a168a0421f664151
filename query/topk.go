package query

import "slices"

// TopK keeps the k best hits seen so far: highest score first, lower docid
// first among equal scores. It is a bounded min-heap whose root is the
// worst kept hit, so Threshold is the score a new hit must beat.
type TopK struct {
	k int
	h hitHeap
}

// NewTopK makes an empty top-k of capacity k (k >= 1).
func NewTopK(k int) *TopK {
	// k may be huge (a TREC run, a careless flag): let the heap grow.
	return &TopK{k: k, h: make(hitHeap, 0, min(k, 1024))}
}

// reset empties t and makes its capacity k, keeping its memory.
func (t *TopK) reset(k int) {
	t.k, t.h = k, t.h[:0]
}

// better reports whether a ranks above b.
func better(a, b Hit) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.DocID < b.DocID)
}

// Full reports whether k hits are held.
func (t *TopK) Full() bool { return len(t.h) == t.k }

// Threshold is the score of the worst kept hit once full, else 0. A
// document scoring below it cannot enter; one scoring exactly it enters
// only with a lower docid than the worst kept hit.
func (t *TopK) Threshold() float32 {
	if len(t.h) < t.k {
		return 0
	}
	return t.h[0].Score
}

// admits reports whether Push would keep x.
func (t *TopK) admits(x Hit) bool { return len(t.h) < t.k || better(x, t.h[0]) }

// Push offers a hit and reports whether it was kept.
func (t *TopK) Push(x Hit) bool {
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		t.h.up(len(t.h) - 1)
		return true
	}
	if !better(x, t.h[0]) {
		return false
	}
	t.h[0] = x
	t.h.down(0)
	return true
}

// Hits returns the kept hits in rank order.
func (t *TopK) Hits() []Hit {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		return 1 // hits are distinct documents: never equal
	})
	return out
}

// hitHeap is a binary heap of hits with the worst at the root: no parent
// ranks above its children. (By hand rather than container/heap, which
// boxes every pushed hit into an interface: an allocation per hit.)
type hitHeap []Hit

// up moves h[i] toward the root while its parent ranks above it.
func (h hitHeap) up(i int) {
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], x) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// down moves h[i] toward the leaves while it ranks above its worse child.
func (h hitHeap) down(i int) {
	n := len(h)
	x := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && better(h[c], h[c+1]) {
			c++
		}
		if !better(x, h[c]) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}
