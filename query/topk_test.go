package query_test

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

// rank sorts hits as results are ordered: score descending, docid
// ascending.
func rank(hits []query.Hit) []query.Hit {
	out := slices.Clone(hits)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].DocID < out[j].DocID
	})
	return out
}

func TestTopK(t *testing.T) {
	h := func(d uint32, s float32) query.Hit { return query.Hit{DocID: d, Score: s} }
	tests := []struct {
		name      string
		k         int
		push      []query.Hit
		kept      []bool
		want      []query.Hit
		threshold float32
	}{
		{"empty", 3, nil, nil, []query.Hit{}, 0},
		{"not full", 3, []query.Hit{h(1, 2), h(2, 5)}, []bool{true, true}, []query.Hit{h(2, 5), h(1, 2)}, 0},
		{"full", 2, []query.Hit{h(1, 2), h(2, 5), h(3, 1), h(4, 3)}, []bool{true, true, false, true}, []query.Hit{h(2, 5), h(4, 3)}, 3},
		{"ties keep the lower docid", 2, []query.Hit{h(9, 1), h(8, 1), h(7, 1), h(10, 1)}, []bool{true, true, true, false}, []query.Hit{h(7, 1), h(8, 1)}, 1},
		{"tie with threshold, lower docid enters", 1, []query.Hit{h(5, 2), h(6, 2), h(4, 2)}, []bool{true, false, true}, []query.Hit{h(4, 2)}, 2},
		{"zero scores", 2, []query.Hit{h(3, 0), h(1, 0), h(2, 0)}, []bool{true, true, true}, []query.Hit{h(1, 0), h(2, 0)}, 0},
		{"k one", 1, []query.Hit{h(1, 1), h(2, 3), h(3, 2)}, []bool{true, true, false}, []query.Hit{h(2, 3)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := query.NewTopK(tt.k)
			for i, x := range tt.push {
				if got := top.Push(x); got != tt.kept[i] {
					t.Errorf("Push(%v) = %v, want %v", x, got, tt.kept[i])
				}
			}
			if got := top.Hits(); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Hits() = %v, want %v", got, tt.want)
			}
			if got := top.Threshold(); got != tt.threshold {
				t.Errorf("Threshold() = %v, want %v", got, tt.threshold)
			}
			if got, want := top.Full(), len(tt.want) == tt.k; got != want {
				t.Errorf("Full() = %v, want %v", got, want)
			}
		})
	}
}

// TestTopKRandom pushes random hits with many tied scores and checks, after
// every push, that the kept hits are the best k of all pushed so far and
// that Push reported whether the new hit is among them.
func TestTopKRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, k := range []int{1, 2, 5, 50, 100} {
		for trial := range 20 {
			top := query.NewTopK(k)
			var all []query.Hit
			n := r.IntN(300)
			for _, d := range r.Perm(n) {
				x := query.Hit{DocID: uint32(d), Score: float32(r.IntN(1+trial)) / 4}
				kept := top.Push(x)
				all = append(all, x)
				want := rank(all)[:min(k, len(all))]
				if got := top.Hits(); !slices.Equal(got, want) {
					t.Fatalf("k=%d trial %d after %d pushes: Hits() = %v, want %v", k, trial, len(all), got, want)
				}
				if in := slices.Contains(want, x); kept != in {
					t.Fatalf("k=%d: Push(%v) = %v, but the hit is in the top k: %v", k, x, kept, in)
				}
				var threshold float32
				if len(want) == k {
					threshold = want[k-1].Score
				}
				if top.Threshold() != threshold || top.Full() != (len(want) == k) {
					t.Fatalf("k=%d: Threshold(), Full() = %v, %v; want %v, %v", k, top.Threshold(), top.Full(), threshold, len(want) == k)
				}
			}
		}
	}
}

// TestTopKHitsIsACopy checks that the caller may keep and change Hits'
// result while the TopK goes on.
func TestTopKHitsIsACopy(t *testing.T) {
	top := query.NewTopK(2)
	top.Push(query.Hit{DocID: 1, Score: 1})
	top.Push(query.Hit{DocID: 2, Score: 2})
	hits := top.Hits()
	hits[0].Score = 100
	top.Push(query.Hit{DocID: 3, Score: 3})
	want := []query.Hit{{DocID: 3, Score: 3}, {DocID: 2, Score: 2}}
	if got := top.Hits(); !slices.Equal(got, want) {
		t.Errorf("Hits() = %v, want %v", got, want)
	}
}
