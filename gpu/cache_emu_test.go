//go:build !cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

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
		{Docs: 3*orSpan + 500, Vocab: 60, Zipf: 1, Density: 0.6, Codec: "gpu-bp256", Seed: 46}, // several OR spans
	}
	for i, spec := range specs {
		policy := CachePolicies[i%len(CachePolicies)]
		t.Run(fmt.Sprintf("%s-%d/%s", spec.Codec, spec.Docs, policy), func(t *testing.T) {
			checkListCache(t, openCorpus(t, spec), spec, policy, func(ix *index.Index, co cacheOptions) (*qengine, error) {
				return newQEngineCache(ix, startEmu(t, bin), co)
			})
		})
	}
}

// TestCacheSimMatchesEngine: the simulation of a log of AND and OR
// queries counts exactly the hits, misses and evictions of the engine
// that runs them one at a time, for each policy.
func TestCacheSimMatchesEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	spec := corpusSpec{Docs: 3000, Vocab: 120, Zipf: 1.1, Density: 0.6, Codec: "bp128", Seed: 47}
	ix := openCorpus(t, spec)
	longMin, capacity := cacheSizes(t, ix)
	var qs []query.Query
	for _, q := range randomQueries(rand.New(rand.NewPCG(47, 1)), 60, spec.Vocab) {
		if q.Mode != query.AndOr {
			qs = append(qs, q)
		}
	}
	sim, err := NewCacheSim(ix, longMin)
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range CachePolicies {
		e, err := newQEngineCache(ix, startEmu(t, bin), cacheOptions{policy: policy, bytes: capacity, longMin: longMin})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if _, _, err := e.search(context.Background(), []query.Query{q}, false); err != nil {
				t.Fatal(err)
			}
		}
		got := e.qc.lc.snapshot()
		e.release()
		want, err := sim.Run(policy, capacity, qs, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: engine counted %+v, simulation %+v", policy, got, want)
		}
		if want.Hits == 0 || want.Misses == 0 {
			t.Errorf("%s: %+v: want hits and misses", policy, want)
		}
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
