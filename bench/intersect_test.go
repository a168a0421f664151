package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestIntersect: every algorithm on every shape up to MaxLen, shortest
// list first, each finding the same intersection.
func TestIntersect(t *testing.T) {
	rep, err := Intersect(context.Background(), IntersectOptions{MaxLen: 10000, MinTime: time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Shortest 100: ratios 1, 10, 100; 1,000: 1, 10; 10,000: 1. Pairs and
	// triples of each, every algorithm.
	if want := 6 * 2 * len(intersectAlgorithms); len(rep.Results) != want {
		t.Fatalf("Intersect: %d rows, want %d", len(rep.Results), want)
	}
	results := map[string]int{}
	for _, r := range rep.Results {
		shape := fmt.Sprint(r.Lengths)
		if n, ok := results[shape]; ok && n != r.Result {
			t.Errorf("Intersect %v: %s found %d docids, another algorithm %d", r.Lengths, r.Algorithm, r.Result, n)
		}
		results[shape] = r.Result
		if r.NsPerElem <= 0 || len(r.Lengths) < 2 || r.Lengths[0] > r.Lengths[1] {
			t.Errorf("Intersect row %+v: want a positive time and the shortest list first", r)
		}
	}
}

func TestRandomSortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tt := range []struct {
		n        int
		universe uint32
	}{{100, 400}, {10_000, 40_000}, {1000, 1000}, {5000, 1 << 30}} {
		l := randomSortedList(rng, tt.n, tt.universe)
		if len(l) < tt.n*8/10 || len(l) > tt.n*12/10 {
			t.Errorf("randomSortedList(%d, %d): %d docids, want about %d", tt.n, tt.universe, len(l), tt.n)
		}
		for i, d := range l {
			if d >= tt.universe || (i > 0 && d <= l[i-1]) {
				t.Fatalf("randomSortedList(%d, %d)[%d] = %d: out of order or range", tt.n, tt.universe, i, d)
			}
		}
	}
}
