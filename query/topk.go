package query

import (
	"container/heap"
	"sort"
)

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

// Push offers a hit and reports whether it was kept.
func (t *TopK) Push(x Hit) bool {
	if len(t.h) < t.k {
		heap.Push(&t.h, x)
		return true
	}
	if !better(x, t.h[0]) {
		return false
	}
	t.h[0] = x
	heap.Fix(&t.h, 0)
	return true
}

// Hits returns the kept hits in rank order.
func (t *TopK) Hits() []Hit {
	out := append([]Hit(nil), t.h...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) } // worst at the root
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
