package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	_ "github.com/gpusearch/gpusearch/codecplugins/bp"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// This file holds the query engine's test harness, shared by the CPU
// tests (kernels emulated) and the cuda tests (kernels on the GPU).

// corpusSpec describes a random collection: term r (1-based) is in a
// document with probability about Density * r^-Zipf, so a few terms are
// in most documents and most terms in few.
type corpusSpec struct {
	Docs    int
	Vocab   int
	Zipf    float64
	Density float64
	Codec   string
	Seed    uint64
	// Ties: every document has the same length, and the first terms' in
	// every document with frequency 1, so many scores tie exactly.
	Ties bool
}

func termName(r int) string { return fmt.Sprintf("t%04d", r) }

// openCorpus writes spec's collection with index.NewWriter and opens it.
func openCorpus(t testing.TB, spec corpusSpec) *index.Index {
	t.Helper()
	rng := rand.New(rand.NewPCG(spec.Seed, 77))
	dir := t.TempDir()
	lens := make([]uint32, spec.Docs)
	urls := make([]string, spec.Docs)
	for d := range lens {
		lens[d] = uint32(1 + rng.IntN(400))
		if spec.Ties {
			lens[d] = 100
		}
		urls[d] = fmt.Sprintf("doc/%06d", d)
	}
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: spec.Codec, FreqCodec: spec.Codec, Order: "crawl"}, lens, urls)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	var docs, freqs []uint32
	for r := 1; r <= spec.Vocab; r++ {
		p := min(1, spec.Density*math.Pow(float64(r), -spec.Zipf))
		docs, freqs = docs[:0], freqs[:0]
		for d := range spec.Docs {
			switch {
			case spec.Ties && r <= 2:
				if r == 1 || d%3 != 0 {
					docs, freqs = append(docs, uint32(d)), append(freqs, 1)
				}
			case rng.Float64() < p:
				f := uint32(1)
				for f < 60 && rng.Float64() < 0.4 {
					f++
				}
				docs, freqs = append(docs, uint32(d)), append(freqs, f)
			}
		}
		if len(docs) == 0 {
			docs, freqs = append(docs, uint32(rng.IntN(spec.Docs))), append(freqs, 1)
		}
		if err := w.AddTerm(termName(r), docs, freqs); err != nil {
			t.Fatalf("AddTerm: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// randomQueries draws n queries of 1 to 6 terms (frequent ranks likelier,
// sometimes a missing term or a duplicate) in every mode, k from 1 to 100.
func randomQueries(rng *rand.Rand, n, vocab int) []query.Query {
	modes := []query.Mode{query.And, query.Or, query.AndOr}
	var qs []query.Query
	for i := range n {
		q := query.Query{Mode: modes[i%3], K: []int{1, 3, 10, 10, 37, 100}[rng.IntN(6)]}
		for range 1 + rng.IntN(6) {
			switch x := rng.Float64(); {
			case x < 0.05:
				q.Terms = append(q.Terms, "missing")
			case x < 0.1 && len(q.Terms) > 0:
				q.Terms = append(q.Terms, q.Terms[rng.IntN(len(q.Terms))])
			default:
				r := int(math.Exp(rng.Float64() * math.Log(float64(vocab+1))))
				q.Terms = append(q.Terms, termName(max(1, min(vocab, r))))
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// daatBlocks is the number of docid blocks a DAAT AND traversal decodes in
// every list but the shortest: the shortest list drives, and each other
// list, in order of length, seeks with NextGEQ to the driver's document,
// which decodes only the block it lands in. No pruning.
func daatBlocks(ix *index.Index, terms []string) (blocks int, ok bool) {
	seen := map[string]bool{}
	var ls []*index.Cursor
	for _, t := range terms {
		info, found := ix.Lookup(t)
		if !found {
			return 0, false
		}
		if !seen[t] {
			seen[t] = true
			ls = append(ls, ix.Cursor(info))
		}
	}
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].Len() < ls[b].Len() })
	d := ls[0].DocID()
	for d != index.NoMoreDocs {
		next := uint32(0)
		for _, c := range ls[1:] {
			if x := c.NextGEQ(d); x != d {
				next = x
				break
			}
		}
		if next == 0 {
			d = ls[0].Next()
		} else {
			d = ls[0].NextGEQ(next)
		}
	}
	for _, c := range ls[1:] {
		blocks += c.BlocksDecoded()
	}
	return blocks, true
}

// shortestBlocks is the block count of the query's shortest list.
func shortestBlocks(ix *index.Index, terms []string) int {
	n := math.MaxInt
	for _, t := range terms {
		if info, ok := ix.Lookup(t); ok && int(info.DF) < n {
			n = int(info.DF)
		}
	}
	return (n + ix.BlockSize() - 1) / ix.BlockSize()
}

// checkEngine runs qs one by one and as one batch on e and checks every
// answer against the exhaustive scorer, bit for bit, and the blocks AND
// decodes against a DAAT traversal's. Queries alone take turns between
// the engine's size bounds (short AND steps in one CTA, their skip
// searches in shared memory, a top-k in one CTA; fused with their decodes
// when the columns share a format), the same with global skip searches,
// the general steps with a top-k in one CTA, neither, and the short steps
// apart from their decodes.
func checkEngine(t *testing.T, e *qengine, ix *index.Index, qs []query.Query) {
	t.Helper()
	ctx := context.Background()
	ref := query.NewExhaustive(ix)
	var single []query.Result
	defer func(keys, cands, skips int64, unfused bool) {
		e.ctaKeys, e.stepCands, e.skipBlocks, e.unfused = keys, cands, skips, unfused
	}(e.ctaKeys, e.stepCands, e.skipBlocks, e.unfused)
	ctaKeys, stepCands, skipBlocks := e.ctaKeys, e.stepCands, e.skipBlocks
	for i, q := range qs {
		e.ctaKeys, e.stepCands, e.skipBlocks, e.unfused = ctaKeys, stepCands, skipBlocks, false
		switch i % 5 {
		case 1:
			e.skipBlocks = 0
		case 2:
			e.stepCands = 0
		case 3:
			e.stepCands, e.ctaKeys = 0, 0
		case 4:
			e.unfused = true
		}
		want, err := ref.Search(ctx, q)
		if err != nil {
			t.Fatalf("exhaustive %v: %v", q, err)
		}
		rs, _, err := e.search(ctx, []query.Query{q}, true)
		if err != nil {
			t.Fatalf("search(%v): %v", q, err)
		}
		got := rs[0]
		single = append(single, got)
		if !slices.Equal(got.Hits, want.Hits) {
			t.Errorf("search(%v) = %v, want %v", q, got.Hits, want.Hits)
		}
		if got.Stats.Algorithm == "" {
			t.Errorf("search(%v): empty Stats.Algorithm", q)
		}
		if q.Mode != query.And || got.Stats.BlocksDecoded == 0 {
			continue
		}
		daat, ok := daatBlocks(ix, q.Terms)
		if gpu := int(got.Stats.BlocksDecoded) - shortestBlocks(ix, q.Terms); ok && gpu > daat {
			t.Errorf("search(%v) decoded %d blocks outside the shortest list, DAAT %d", q, gpu, daat)
		}
	}
	// The batch once with the default wave limits, and once with waves
	// of a few hundred postings or candidates (one or two passes each).
	for _, small := range []bool{false, true} {
		if small {
			defer func(postings, cands int64) { e.wavePostings, e.waveCandidates = postings, cands }(e.wavePostings, e.waveCandidates)
			e.wavePostings, e.waveCandidates = 512, 512
		}
		batch, _, err := e.search(ctx, qs, false)
		if err != nil {
			t.Fatalf("search of a batch of %d (small waves %v): %v", len(qs), small, err)
		}
		for i := range qs {
			if !slices.Equal(batch[i].Hits, single[i].Hits) {
				t.Errorf("batch answer (small waves %v) to %v = %v, alone %v", small, qs[i], batch[i].Hits, single[i].Hits)
			}
			b, a := batch[i].Stats, single[i].Stats
			if b.BlocksDecoded != a.BlocksDecoded || b.BlocksSkipped != a.BlocksSkipped || b.PostingsScored != a.PostingsScored {
				t.Errorf("batch (small waves %v) stats of %v: %+v, alone %+v", small, qs[i], b, a)
			}
		}
	}
}

// checkConcurrent has callers search at once, each rounds batches of n
// random queries, and compares every answer with the exhaustive scorer's.
func checkConcurrent(t *testing.T, e *qengine, ix *index.Index, callers, rounds, n int, spec corpusSpec) {
	t.Helper()
	batches := make([][][]query.Query, callers)
	got := make([][][]query.Result, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for c := range callers {
		rng := rand.New(rand.NewPCG(spec.Seed, uint64(c)))
		batches[c] = make([][]query.Query, rounds)
		got[c] = make([][]query.Result, rounds)
		for r := range rounds {
			batches[c][r] = randomQueries(rng, n, spec.Vocab)
		}
		wg.Go(func() {
			for r := range rounds {
				if got[c][r], _, errs[c] = e.search(context.Background(), batches[c][r], false); errs[c] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	ref := query.NewExhaustive(ix)
	for c := range callers {
		if errs[c] != nil {
			t.Fatalf("caller %d: %v", c, errs[c])
		}
		for r := range rounds {
			for i, q := range batches[c][r] {
				want, err := ref.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[c][r][i].Hits, want.Hits) {
					t.Errorf("caller %d, round %d: %v = %v, want %v", c, r, q, got[c][r][i].Hits, want.Hits)
				}
			}
		}
	}
}
