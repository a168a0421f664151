//go:build !cuda

package gpu

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// cacheSizes picks a long-list size for ix that makes about a quarter of
// its lists long, and returns it with the cache bytes of the six largest
// long lists, as the cache rounds them: room for any query of at most six
// terms.
func cacheSizes(t *testing.T, ix *index.Index) (longMin, capacity int64) {
	t.Helper()
	dh, fh := IndexColumns(ix)
	dh, _, err := gpuColumn(dh)
	if err != nil {
		t.Fatal(err)
	}
	if fh, _, err = gpuColumn(fh); err != nil {
		t.Fatal(err)
	}
	all, err := newCacheLayout(ix, &dh, &fh, 1)
	if err != nil {
		t.Fatal(err)
	}
	sizes := slices.Clone(all.sizes)
	slices.Sort(sizes)
	longMin = sizes[len(sizes)*3/4]
	lay, err := newCacheLayout(ix, &dh, &fh, longMin)
	if err != nil {
		t.Fatal(err)
	}
	if len(lay.terms) < 8 || lay.shortDoc == 0 {
		t.Fatalf("%d long lists and %d bytes of short ones: want both kinds", len(lay.terms), lay.shortDoc)
	}
	sizes = slices.Clone(lay.sizes)
	slices.Sort(sizes)
	for _, s := range sizes[len(sizes)-6:] {
		capacity += align(s, cacheAlign)
	}
	return longMin, capacity
}

// TestListCacheEmulated: under a list cache that holds only the six
// longest lists (a quarter of the lists long), every policy answers every mode exactly as the
// exhaustive scorer, bit for bit: one query at a time with the cache
// emptied before each (every long list streams), one query at a time
// with the cache kept, in batches (split into groups that fit), and from
// concurrent callers whose groups wait for each other's pinned lists.
func TestListCacheEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	specs := []corpusSpec{
		{Docs: 3000, Vocab: 120, Zipf: 1.1, Density: 0.6, Codec: "gpu-bp256", Seed: 41},
		{Docs: 2500, Vocab: 100, Zipf: 0.9, Density: 0.5, Codec: "gpu-vbyte1024", Seed: 42},
		{Docs: 2000, Vocab: 100, Zipf: 1.0, Density: 0.5, Codec: "bp128", Seed: 43},
		{Docs: 1500, Vocab: 80, Zipf: 1.0, Density: 0.5, Codec: "gpu-pfordelta", Seed: 44},
		{Docs: 3*orSpan + 500, Vocab: 60, Zipf: 1, Density: 0.6, Codec: "gpu-bp256", Seed: 46},
	}
	for i, spec := range specs {
		policy := CachePolicies[i%len(CachePolicies)]
		t.Run(spec.Codec+"/"+policy, func(t *testing.T) {
			ix := openCorpus(t, spec)
			rng := rand.New(rand.NewPCG(spec.Seed, 5))
			qs := randomQueries(rng, 36, spec.Vocab)
			longMin, capacity := cacheSizes(t, ix)
			e, err := newQEngineCache(ix, startEmu(t, bin), cacheOptions{policy: policy, bytes: capacity, longMin: longMin})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.release() })
			if e.qc == nil {
				t.Fatal("no list cache")
			}
			ref := query.NewExhaustive(ix)
			ctx := context.Background()
			for _, q := range qs {
				e.qc.lc.mu.Lock()
				e.qc.lc.evictAll()
				e.qc.lc.mu.Unlock()
				want, err := ref.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				rs, _, err := e.search(ctx, []query.Query{q}, false)
				if err != nil {
					t.Fatalf("search(%v): %v", q, err)
				}
				if !slices.Equal(rs[0].Hits, want.Hits) {
					t.Errorf("search(%v) from an empty cache = %v, want %v", q, rs[0].Hits, want.Hits)
				}
			}
			checkEngine(t, e, ix, qs)
			checkConcurrent(t, e, ix, workspaces+1, 2, 5, spec)
			st := e.qc.lc.snapshot()
			if st.Misses == 0 || st.Hits == 0 || st.Evictions == 0 || st.StreamedBytes == 0 {
				t.Errorf("cache stats %+v: want hits, misses and evictions", st)
			}
			if st.UsedBytes > st.CapacityBytes {
				t.Errorf("cache holds %d bytes, more than its %d", st.UsedBytes, st.CapacityBytes)
			}
		})
	}
}

// TestListCacheTooSmall: a query whose long lists exceed the cache fails
// with ErrListsTooLarge; a budget that cannot hold the longest list
// fails at open with ErrOutOfMemory.
func TestListCacheTooSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	spec := corpusSpec{Docs: 3000, Vocab: 40, Zipf: 1.1, Density: 0.6, Codec: "gpu-bp256", Seed: 45}
	ix := openCorpus(t, spec)
	e, err := newQEngineCache(ix, startEmu(t, bin), cacheOptions{bytes: 1024, longMin: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer e.release()
	q := query.Query{Terms: []string{termName(1), termName(2)}, Mode: query.Or, K: 10}
	if _, _, err := e.search(context.Background(), []query.Query{q}, false); !errors.Is(err, ErrListsTooLarge) {
		t.Errorf("query over a 1 KiB cache = %v, want ErrListsTooLarge", err)
	}
	if _, err := newQEngineCache(ix, startEmu(t, bin), cacheOptions{budget: 4096, longMin: 600}); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("open under a 4 KiB budget = %v, want ErrOutOfMemory", err)
	}
}
