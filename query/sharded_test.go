package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// shardedCase compares, for every CPU engine, the single index's answer
// to q with the shards': each shard's engine's hits merged by MergeHits,
// and Sharded's. Both must equal it bit for bit.
type shardedCase struct {
	whole  map[string]Engine
	shards map[string][]Engine // per engine, one per shard
	first  []uint32
	merged map[string]Engine // Sharded
}

func newShardedCase(t testing.TB, ix *index.Index, shards []*index.Index) *shardedCase {
	t.Helper()
	c := &shardedCase{whole: map[string]Engine{}, shards: map[string][]Engine{}, merged: map[string]Engine{}}
	for _, s := range shards {
		info, _ := s.Shard()
		c.first = append(c.first, info.FirstDoc)
	}
	for _, name := range Engines() {
		e, err := New(ix, name)
		if err != nil {
			t.Fatal(err)
		}
		c.whole[name] = e
		for _, s := range shards {
			e, err := New(s, name)
			if err != nil {
				t.Fatal(err)
			}
			c.shards[name] = append(c.shards[name], e)
		}
		m, err := OpenSharded(shards, name, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		c.merged[name] = m
	}
	return c
}

func (c *shardedCase) check(t *testing.T, q Query) {
	t.Helper()
	ctx := context.Background()
	for name, e := range c.whole {
		want, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		// AND-then-OR decides on the whole collection's AND hits: the
		// per-shard merge below asks each shard in the mode the whole
		// answered in.
		mode := q.Mode
		if mode == AndOr {
			and, err := e.Search(ctx, Query{Terms: q.Terms, Phrases: q.Phrases, Mode: And, K: q.K})
			if err != nil {
				t.Fatal(err)
			}
			mode = Or
			if len(and.Hits) >= q.K {
				mode = And
			}
		}
		var parts [][]Hit
		for j, se := range c.shards[name] {
			sq := q
			sq.Mode = mode
			r, err := se.Search(ctx, sq)
			if err != nil {
				t.Fatal(err)
			}
			var p []Hit
			for _, h := range r.Hits {
				p = append(p, Hit{DocID: h.DocID + c.first[j], Score: h.Score})
			}
			parts = append(parts, p)
		}
		if got := MergeHits(q.K, parts...); !slices.Equal(got, want.Hits) && (len(got) > 0 || len(want.Hits) > 0) {
			t.Errorf("%s: %d shards merged: %v\n got  %v\n want %v", name, len(parts), q, got, want.Hits)
		}
		got, err := c.merged[name].Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Hits, want.Hits) && (len(got.Hits) > 0 || len(want.Hits) > 0) {
			t.Errorf("%s: Sharded over %d shards: %v\n got  %v\n want %v", name, len(parts), q, got.Hits, want.Hits)
		}
	}
}

// TestShardsMatchSingleIndexOnRandomCorpora: on random corpora split into
// 1, 2, 3 and 5 shards, every CPU engine in every mode answers over the
// shards (each shard's top k merged, and Sharded) exactly what it
// answers over the single index, bit for bit, queries with terms that
// some shards lack included.
func TestShardsMatchSingleIndexOnRandomCorpora(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	corpora := 3
	if testing.Short() {
		corpora = 1
	}
	absent := 0 // queries with a term that some shard lacks and another has
	for _, codec := range testCodecs(t) {
		for c := range corpora {
			spec := corpusSpec{
				Docs:   20 + rng.IntN(1000),
				Vocab:  20 + rng.IntN(600),
				Zipf:   0.8 + 0.5*rng.Float64(),
				AvgLen: 10 + 80*rng.Float64(),
				Seed:   rng.Uint64(),
				Codec:  codec,
			}
			ix := openCorpus(t, spec)
			for _, n := range []int{1, 2, 3, 5} {
				t.Run(fmt.Sprintf("%s/%d/shards=%d", codec, c, n), func(t *testing.T) {
					shards := testindex.Shards(t, ix, n)
					sc := newShardedCase(t, ix, shards)
					for range 30 {
						q := Query{
							Terms: randomQuery(rng, spec.Vocab),
							Mode:  []Mode{And, Or, AndOr}[rng.IntN(3)],
							K:     []int{1, 3, 10, 10, 50, 1000}[rng.IntN(6)],
						}
						for _, term := range q.Terms {
							_, in0 := shards[0].DocFreq(term)
							_, inLast := shards[n-1].DocFreq(term)
							if in0 != inLast {
								absent++
							}
						}
						sc.check(t, q)
					}
				})
			}
		}
	}
	if absent == 0 {
		t.Error("no query had a term that one shard lacks and another holds")
	}
}

// TestShardsMatchSingleIndexOnSampleCrawl: the sample crawl split into 3
// shards answers every query of examples/queries.txt, in every mode,
// exactly as the single index does, with every CPU engine.
func TestShardsMatchSingleIndexOnSampleCrawl(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	shards := testindex.Shards(t, ix, 3)
	sc := newShardedCase(t, ix, shards)
	a := analysis.New()
	queries := readQueries(t, "../examples/queries.txt")
	for _, mode := range []Mode{And, Or, AndOr} {
		t.Run(string(mode), func(t *testing.T) {
			for _, text := range queries {
				sc.check(t, mustParse(t, a, text, mode, 10))
			}
		})
	}
}

// TestMergeHits: ties go to the lower docid, k bounds the answer, and a
// part's hits below the k-th are not needed.
func TestMergeHits(t *testing.T) {
	tests := []struct {
		name  string
		k     int
		parts [][]Hit
		want  []Hit
	}{
		{"none", 3, nil, nil},
		{"k zero", 0, [][]Hit{{{1, 2}}}, nil},
		{"interleaved", 3, [][]Hit{{{0, 5}, {1, 2}}, {{10, 4}, {11, 3}}}, []Hit{{0, 5}, {10, 4}, {11, 3}}},
		{"ties to lower docid", 2, [][]Hit{{{7, 1}}, {{3, 1}}, {{5, 1}}}, []Hit{{3, 1}, {5, 1}}},
		{"fewer than k", 10, [][]Hit{{{2, 1}}, {}, {{9, 3}}}, []Hit{{9, 3}, {2, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MergeHits(tt.k, tt.parts...); !slices.Equal(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Errorf("MergeHits(%d, %v) = %v, want %v", tt.k, tt.parts, got, tt.want)
			}
		})
	}
}
