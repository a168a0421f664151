package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/query/intersect"
)

// This file holds the intersection tests shared by the emulated and the
// cuda builds.

// isectCase is a set of random sorted lists: lens[0] docids and more,
// drawn below universe.
type isectCase struct {
	lens     []int
	universe uint32
}

func isectCases() []isectCase {
	return []isectCase{
		{[]int{1, 1}, 10},
		{[]int{0, 50}, 100},
		{[]int{40, 40}, 60},
		{[]int{33, 2000}, 4000},      // one SVS segment and a bit
		{[]int{500, 50000}, 200000},  // ratio 100
		{[]int{64, 640, 6400}, 8000}, // three lists, dense
		{[]int{300, 3000, 3000, 30000, 300}, 1 << 20},
		{[]int{1000, 1000}, 1 << 31}, // sparse: the hash shift is large
		{[]int{2, 3, 4, 5, 6, 7, 8, 9}, 12},
	}
}

func randomSorted(r *rand.Rand, n int, universe uint32) []uint32 {
	set := map[uint32]bool{}
	for len(set) < n && len(set) < int(universe) {
		set[r.Uint32N(universe)] = true
	}
	out := make([]uint32, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// checkIntersect runs every algorithm through upload on random cases and
// compares with query/intersect's merge.
func checkIntersect(t *testing.T, upload func([][]uint32) (func(string) ([]uint32, error), func(), error)) {
	t.Helper()
	r := rand.New(rand.NewPCG(4, 4))
	for _, c := range isectCases() {
		lists := make([][]uint32, len(c.lens))
		for i, n := range c.lens {
			lists[i] = randomSorted(r, n, c.universe)
		}
		// A shared docid or two, so that small cases intersect.
		if len(lists[0]) > 0 {
			x := lists[0][len(lists[0])/2]
			for i := range lists {
				if !slices.Contains(lists[i], x) {
					lists[i] = append(lists[i], x)
					slices.Sort(lists[i])
				}
			}
		}
		want := intersect.MergeAll(nil, lists...)
		run, free, err := upload(lists)
		if err != nil {
			t.Fatalf("upload %v: %v", c.lens, err)
		}
		for _, alg := range IntersectAlgorithms {
			got, err := run(alg)
			if err != nil {
				t.Errorf("%s on %v: %v", alg, c.lens, err)
				continue
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%s on lists of %v: %d docids %v, want %d %v", alg, c.lens, len(got), head(got), len(want), head(want))
			}
		}
		free()
	}
	if _, _, err := upload([][]uint32{{1}}); err == nil {
		t.Error("upload of one list: want an error")
	}
}

func head(s []uint32) string {
	if len(s) > 8 {
		return fmt.Sprint(s[:8], "...")
	}
	return fmt.Sprint(s)
}
