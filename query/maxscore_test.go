package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaxScoreLoopsMatchExhaustive runs MaxScore with each of its loops
// for several essential lists, a candidate at a time and a window at a
// time (windowed; probing every non-essential list or reading one,
// bulkRule), in one phase and in two (phased), on random corpora: OR and AND-then-OR top k, and the
// floored search of a segment (searchAbove), must give exactly the
// exhaustive reference's hits.
func TestMaxScoreLoopsMatchExhaustive(t *testing.T) {
	defer func(v struct{ lists int }) { windowRule = v }(windowRule)
	defer func(v struct{ maxFirst int }) { phaseRule = v }(phaseRule)
	defer func(v windowBulk) { bulkRule = v }(bulkRule)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		lists    int // windowRule
		maxFirst int // phaseRule
		bulk     int // bulkRule
	}{
		{"candidates", 1 << 62, 0, 2},
		{"windows", 0, 0, 2},
		{"windows-probing-every-list", 0, 0, 0},
		{"windows-reading-a-list", 0, 0, 1 << 30},
		{"windows-from-three-lists", 3, 0, 2},
		{"phases", 1 << 62, 1 << 62, 2},
		{"phases-windows", 0, 1 << 62, 2},
		{"phases-windows-reading-a-list", 0, 1 << 62, 1 << 30},
		{"phases-from-lists-under-300", 2, 300, 2},
	} {
		rng := rand.New(rand.NewPCG(5, 6))
		windowRule.lists = tc.lists
		phaseRule.maxFirst = tc.maxFirst
		bulkRule.ratio = tc.bulk
		for c := range 4 {
			spec := corpusSpec{
				Docs:   100 + rng.IntN(6000),
				Vocab:  20 + rng.IntN(300),
				Zipf:   0.7 + 0.5*rng.Float64(),
				AvgLen: 20 + 120*rng.Float64(),
				Seed:   rng.Uint64(),
				Codec:  testCodecs(t)[c%len(testCodecs(t))],
			}
			t.Run(fmt.Sprintf("%s/%d", tc.name, c), func(t *testing.T) {
				ix := openCorpus(t, spec)
				ref := NewExhaustive(ix)
				e, err := New(ix, "maxscore")
				if err != nil {
					t.Fatal(err)
				}
				f := e.(floorSearcher)
				for range 60 {
					q := Query{
						Terms: randomQuery(rng, spec.Vocab),
						Mode:  []Mode{Or, Or, AndOr}[rng.IntN(3)],
						K:     []int{1, 3, 10, 10, 50, 1000}[rng.IntN(6)],
					}
					want, err := ref.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					got, err := e.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got.Hits, want.Hits) {
						t.Fatalf("%v: %v, want %v", q, got.Hits, want.Hits)
					}
					if len(want.Hits) == 0 || q.Mode != Or {
						continue
					}
					floor := want.Hits[rng.IntN(len(want.Hits))].Score
					above, err := f.searchAbove(ctx, q, Or, floor)
					if err != nil {
						t.Fatal(err)
					}
					if w := atLeast(want.Hits, floor); !slices.Equal(atLeast(above.Hits, floor), w) {
						t.Fatalf("%v above %v: %v, want %v above it", q, floor, above.Hits, w)
					}
				}
			})
		}
	}
}
