package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearchAboveKeepsWhatBeatsTheFloor checks the floored search the
// segments after the first run under (segments.go), on every DAAT engine:
// whatever the floor, its hits scoring at least the floor are exactly
// the unfloored top k's, and it returns no more than k hits. A floor at
// a hit's score, between two, above all and below all is tried.
func TestSearchAboveKeepsWhatBeatsTheFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for c := range 4 {
		spec := corpusSpec{
			Docs:   200 + rng.IntN(3000),
			Vocab:  20 + rng.IntN(300),
			Zipf:   0.8 + 0.5*rng.Float64(),
			AvgLen: 20 + 120*rng.Float64(),
			Seed:   rng.Uint64(),
			Codec:  testCodecs(t)[0],
		}
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			ix := openCorpus(t, spec)
			for _, name := range []string{"daat", "maxscore", "wand", "bmw", "cpu"} {
				e, err := New(ix, name)
				if err != nil {
					t.Fatal(err)
				}
				f := e.(floorSearcher)
				for range 40 {
					q := Query{Terms: randomQuery(rng, spec.Vocab), K: []int{1, 3, 10, 50}[rng.IntN(4)]}
					for _, mode := range []Mode{And, Or} {
						q.Mode = mode
						full, err := e.Search(ctx, Query{Terms: q.Terms, Mode: mode, K: 1 << 20})
						if err != nil {
							t.Fatal(err)
						}
						if len(full.Hits) == 0 {
							continue
						}
						top := full.Hits[:min(q.K, len(full.Hits))]
						i := rng.IntN(len(full.Hits))
						for _, floor := range []float32{full.Hits[i].Score, full.Hits[i].Score * 0.999, top[len(top)-1].Score, full.Hits[0].Score * 1.01, 0} {
							got, err := f.searchAbove(ctx, q, mode, floor)
							if err != nil {
								t.Fatal(err)
							}
							want := atLeast(top, floor)
							if len(got.Hits) > q.K || !slices.Equal(atLeast(got.Hits, floor), want) {
								t.Fatalf("%s %v above %v: %v, want %v above it", name, q, floor, got.Hits, want)
							}
						}
					}
				}
			}
		})
	}
}

// atLeast is the hits scoring floor or more.
func atLeast(hits []Hit, floor float32) []Hit {
	var out []Hit
	for _, h := range hits {
		if h.Score >= floor {
			out = append(out, h)
		}
	}
	return out
}
