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

// This file holds the list cache's engine checks, shared by the emulated
// tests and the cuda ones.

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

// checkListCache opens an engine over ix (spec's collection) with open,
// under a list cache of policy that holds only the six longest lists (a
// quarter of the lists long), and checks that it answers random queries
// in every mode exactly as the exhaustive scorer, bit for bit: one query
// at a time with the cache emptied before each (every long list
// streams), one query at a time with the cache kept, in batches (split
// into groups that fit), and from concurrent callers whose groups wait
// for each other's pinned lists.
func checkListCache(t *testing.T, ix *index.Index, spec corpusSpec, policy string, open func(*index.Index, cacheOptions) (*qengine, error)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(spec.Seed, 5))
	qs := randomQueries(rng, 27, spec.Vocab)
	longMin, capacity := cacheSizes(t, ix)
	e, err := open(ix, cacheOptions{policy: policy, bytes: capacity, longMin: longMin})
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
	checkConcurrent(t, e, ix, workspaces+1, 1, 5, spec)
	st := e.qc.lc.snapshot()
	if st.Misses == 0 || st.Hits == 0 || st.Evictions == 0 || st.StreamedBytes == 0 {
		t.Errorf("cache stats %+v: want hits, misses and evictions", st)
	}
	if st.UsedBytes > st.CapacityBytes {
		t.Errorf("cache holds %d bytes, more than its %d", st.UsedBytes, st.CapacityBytes)
	}
}

// TestCacheBudget: an index that fits its budget beside the scratch
// reserve stays resident; one that does not gets a cache of what the
// budget leaves, or, when that cannot hold its longest list, an error
// wrapping ErrOutOfMemory; an asked-for size wins.
func TestCacheBudget(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 3000, Vocab: 120, Zipf: 1.1, Density: 0.6, Codec: "gpu-bp256", Seed: 48})
	dh, fh := IndexColumns(ix)
	full := residentBytes(ix, &dh, &fh)
	longMin, _ := cacheSizes(t, ix)
	lay, err := newCacheLayout(ix, &dh, &fh, longMin)
	if err != nil {
		t.Fatal(err)
	}
	var largest int64
	for _, s := range lay.sizes {
		largest = max(largest, s)
	}
	tests := []struct {
		name   string
		co     cacheOptions
		want   bool  // a cache
		capMin int64 // its capacity at least
		oom    bool
	}{
		{"unbounded", cacheOptions{}, false, 0, false},
		{"fits", cacheOptions{budget: 2 * full}, false, 0, false},
		{"reserve does not fit", cacheOptions{budget: full + full/8}, true, largest, false},
		{"asked for", cacheOptions{budget: 2 * full, bytes: 5000}, true, 5000, false},
		{"too small", cacheOptions{budget: full / 4}, true, 0, true},
	}
	for _, tt := range tests {
		if got := wantCache(ix, &dh, &fh, tt.co); got != tt.want {
			t.Errorf("%s: wantCache = %v, want %v", tt.name, got, tt.want)
		}
		if !tt.want {
			continue
		}
		c, err := cacheCapacity(ix, &dh, &fh, lay, tt.co)
		if tt.oom != errors.Is(err, ErrOutOfMemory) || (err == nil && c < tt.capMin) {
			t.Errorf("%s: capacity %d, %v; want at least %d, out of memory %v", tt.name, c, err, tt.capMin, tt.oom)
		}
	}
}
