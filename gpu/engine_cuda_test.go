//go:build cuda

package gpu

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// testEngine opens a GPU engine over ix for the test.
func testEngine(t *testing.T, ix *index.Index) *Engine {
	t.Helper()
	e, err := NewEngine(ix, Options{})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// TestEngineMatchesExhaustive: random corpora in every GPU codec and in a
// CPU codec (re-encoded at upload), random queries in every mode.
func TestEngineMatchesExhaustive(t *testing.T) {
	codecs := append(append([]string(nil), gpuCodecs...), "bp128")
	for i, codec := range codecs {
		t.Run(codec, func(t *testing.T) {
			spec := corpusSpec{Docs: 30000 + 7000*i, Vocab: 800, Zipf: 1.0, Density: 0.7, Codec: codec, Seed: uint64(10 + i)}
			ix := openCorpus(t, spec)
			e := testEngine(t, ix)
			if want := codec == "bp128"; e.Reencoded() != want {
				t.Errorf("Reencoded() = %v, want %v", e.Reencoded(), want)
			}
			checkEngine(t, e.q, ix, randomQueries(rand.New(rand.NewPCG(spec.Seed, 1)), 300, spec.Vocab))
		})
	}
}

// TestEngineLongLists: lists of hundreds of thousands of postings, so that
// candidate arrays span more tiles than tile_scan has threads and the
// top-k's dense passes run many CTAs.
func TestEngineLongLists(t *testing.T) {
	spec := corpusSpec{Docs: 600000, Vocab: 60, Zipf: 1.2, Density: 0.9, Codec: "gpu-bp256", Seed: 3}
	ix := openCorpus(t, spec)
	e := testEngine(t, ix)
	qs := randomQueries(rand.New(rand.NewPCG(3, 3)), 60, spec.Vocab)
	for _, k := range []int{10, 1000} {
		for _, m := range []query.Mode{query.And, query.Or} {
			qs = append(qs, query.Query{Terms: []string{termName(1), termName(2)}, Mode: m, K: k})
		}
	}
	checkEngine(t, e.q, ix, qs)
}

// TestEngineTies: many documents share the top score, so the top-k needs
// radix rounds past the first (one query alone, and in a batch).
func TestEngineTies(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 50000, Vocab: 30, Zipf: 1, Density: 0.2, Codec: "gpu-bp256", Seed: 9, Ties: true})
	e := testEngine(t, ix)
	var qs []query.Query
	for _, k := range []int{1, 10, 4095, 4097, 20000, 60000} {
		qs = append(qs,
			query.Query{Terms: []string{termName(1)}, Mode: query.Or, K: k},
			query.Query{Terms: []string{termName(2), termName(1)}, Mode: query.And, K: k},
			query.Query{Terms: []string{termName(2), termName(7)}, Mode: query.AndOr, K: k})
	}
	checkEngine(t, e.q, ix, qs)
}

// TestEngineSampleCrawl: the sample crawl indexed with gpu-bp256, its
// queries in every mode.
func TestEngineSampleCrawl(t *testing.T) {
	dir := t.TempDir()
	opts := indexer.Options{DocIDCodec: "gpu-bp256", FreqCodec: "gpu-bp256", Workers: 2}
	if _, err := indexer.Build(context.Background(), "../examples/crawl", dir, opts); err != nil {
		t.Fatalf("indexer.Build: %v", err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	e := testEngine(t, ix)
	f, err := os.Open("../examples/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, text, ok := strings.Cut(sc.Text(), "\t"); ok {
			texts = append(texts, text)
		}
	}
	if len(texts) < 100 {
		t.Fatalf("read %d queries from examples/queries.txt, want 200", len(texts))
	}
	a := analysis.New()
	for _, mode := range []query.Mode{query.And, query.Or, query.AndOr} {
		for _, k := range []int{10, 100} {
			t.Run(fmt.Sprintf("%s/k=%d", mode, k), func(t *testing.T) {
				var qs []query.Query
				for _, text := range texts {
					q, err := query.Parse(a, text, mode, k)
					if err != nil {
						t.Fatal(err)
					}
					qs = append(qs, q)
				}
				checkEngine(t, e.q, ix, qs)
			})
		}
	}
}

// TestEngineProfile: every phase a pass goes through is timed. An AND
// pass alone of few candidates ends its top-k in the kernel that scores
// (no top-k phase); with the size bounds at 0 it takes the general steps.
func TestEngineProfile(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 100000, Vocab: 100, Zipf: 1, Density: 0.8, Codec: "gpu-bp256", Seed: 5})
	e := testEngine(t, ix)
	tests := []struct {
		mode    query.Mode
		general bool
		phases  []Phase
	}{
		{query.And, true, []Phase{PhaseInit, PhaseSelection, PhaseDecode, PhaseIntersect, PhaseScore, PhaseTopK}},
		{query.And, false, []Phase{PhaseInit, PhaseSelection, PhaseDecode, PhaseScore}},
		{query.Or, false, []Phase{PhaseInit, PhaseDecode, PhaseScore, PhaseTopK}},
	}
	keys, cands := e.q.ctaKeys, e.q.stepCands
	defer func() { e.q.ctaKeys, e.q.stepCands = keys, cands }()
	for _, tt := range tests {
		e.q.ctaKeys, e.q.stepCands = keys, cands
		if tt.general {
			e.q.ctaKeys, e.q.stepCands = 0, 0
		}
		q := query.Query{Terms: []string{termName(2), termName(1), termName(9)}, Mode: tt.mode, K: 10}
		res, ph, err := e.Profile(context.Background(), q)
		if err != nil {
			t.Fatalf("Profile(%v): %v", q, err)
		}
		t.Logf("%s: %v, total %v, took %v", tt.mode, ph.Map(), ph.Total(), res.Stats.Took)
		for _, p := range tt.phases {
			if ph[p] <= 0 {
				t.Errorf("Profile(%v): phase %s took %v, want > 0", q, p, ph[p])
			}
		}
		if ph.Total() > res.Stats.Took {
			t.Errorf("Profile(%v): phases total %v, more than the query's %v", q, ph.Total(), res.Stats.Took)
		}
	}
}

func TestEngineErrors(t *testing.T) {
	// 300,000 documents: the norms alone pass a 1 MB budget.
	ix := openCorpus(t, corpusSpec{Docs: 300000, Vocab: 10, Zipf: 1, Density: 0.1, Codec: "gpu-bp256", Seed: 6})
	ctx := context.Background()
	if _, err := NewEngine(ix, Options{MemoryBudgetMB: 1}); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("NewEngine with a 1 MB budget: %v, want ErrOutOfMemory", err)
	}
	if _, err := NewEngine(ix, Options{Device: 99}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("NewEngine on device 99: %v, want ErrNoDevice", err)
	}
	e, err := NewEngine(ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, query.Query{Terms: []string{termName(1)}, Mode: "xor", K: 10}); err == nil {
		t.Errorf("Search with mode xor succeeded")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Search(cancelled, query.Query{Terms: []string{termName(1)}, Mode: query.Or, K: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: %v, want context.Canceled", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := e.Search(ctx, query.Query{Terms: []string{termName(1)}, Mode: query.Or, K: 10}); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close: %v, want ErrClosed", err)
	}
}

// TestEngineTopKTree: the max-tree top-k gives the exhaustive scorer's
// answers to OR and AND+OR queries, with ties and with k past a group.
func TestEngineTopKTree(t *testing.T) {
	if _, err := NewEngine(openCorpus(t, corpusSpec{Docs: 100, Vocab: 5, Zipf: 1, Density: 0.5, Codec: "gpu-bp256", Seed: 1}),
		Options{TopK: "heap"}); err == nil {
		t.Error("NewEngine with TopK heap: want an error")
	}
	for _, spec := range []corpusSpec{
		{Docs: 400000, Vocab: 200, Zipf: 1.1, Density: 0.3, Codec: "gpu-bp256", Seed: 21},
		{Docs: 50000, Vocab: 30, Zipf: 1, Density: 0.2, Codec: "gpu-bp128", Seed: 9, Ties: true},
	} {
		ix := openCorpus(t, spec)
		e, err := NewEngine(ix, Options{TopK: TopKTree})
		if err != nil {
			t.Fatalf("NewEngine: %v", err)
		}
		var qs []query.Query
		for _, q := range randomQueries(rand.New(rand.NewPCG(spec.Seed, 2)), 120, spec.Vocab) {
			if q.Mode != query.And {
				qs = append(qs, q)
			}
		}
		for _, k := range []int{1, 10, 513, 5000} {
			qs = append(qs, query.Query{Terms: []string{termName(1), termName(2)}, Mode: query.Or, K: k})
		}
		checkEngine(t, e.q, ix, qs)
		e.Close()
	}
}

// TestEngineWaitModes: every way of waiting for the device gives the
// exhaustive scorer's answers, and an unknown one is refused. Usage counts
// the runs, with device time inside the host's.
func TestEngineWaitModes(t *testing.T) {
	spec := corpusSpec{Docs: 20000, Vocab: 300, Zipf: 1.0, Density: 0.6, Codec: "gpu-bp256", Seed: 31}
	ix := openCorpus(t, spec)
	if _, err := NewEngine(ix, Options{Wait: "sleep"}); err == nil {
		t.Error("NewEngine with Wait sleep: want an error")
	}
	for _, mode := range []string{"auto", "spin", "yield", "block"} {
		t.Run(mode, func(t *testing.T) {
			e, err := NewEngine(ix, Options{Wait: mode})
			if err != nil {
				t.Fatalf("NewEngine: %v", err)
			}
			defer e.Close()
			if u := e.Usage(); u.Runs != 0 {
				t.Errorf("Usage before any query = %+v, want none", u)
			}
			checkEngine(t, e.q, ix, randomQueries(rand.New(rand.NewPCG(spec.Seed, 4)), 60, spec.Vocab))
			if u := e.Usage(); u.Runs < 60 || u.Busy <= 0 || u.Busy > u.Held {
				t.Errorf("Usage after 60 queries and their batch = %+v, want 60 runs or more and 0 < Busy <= Held", u)
			}
		})
	}
}

// TestEngineConcurrent: callers whose batches overlap on the host, each
// with its own workspace, get the exhaustive scorer's answers.
func TestEngineConcurrent(t *testing.T) {
	spec := corpusSpec{Docs: 200000, Vocab: 400, Zipf: 1.1, Density: 0.3, Codec: "gpu-bp256", Seed: 41}
	ix := openCorpus(t, spec)
	e := testEngine(t, ix)
	checkConcurrent(t, e.q, ix, 6, 8, 40, spec)
}

// TestEngineGraphs: the engine with CUDA graphs (the default) and without
// answer every query alike, one at a time and in batches, and the driver
// accepted every graph, made and patched: the same shapes come back with
// other lists, grids and sizes.
func TestEngineGraphs(t *testing.T) {
	spec := corpusSpec{Docs: 40000, Vocab: 500, Zipf: 1.0, Density: 0.7, Codec: "gpu-bp256", Seed: 21}
	ix := openCorpus(t, spec)
	on := testEngine(t, ix)
	off, err := NewEngine(ix, Options{NoGraphs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	qs := randomQueries(rand.New(rand.NewPCG(21, 2)), 200, spec.Vocab)
	ctx := context.Background()
	for round := range 2 {
		for i, q := range qs {
			a, err := on.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := off.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !sameHits(a.Hits, b.Hits) {
				t.Fatalf("round %d query %d %v: graphs %v, launches %v", round, i, q, a.Hits, b.Hits)
			}
		}
		for n := 1; n <= 64; n *= 4 {
			a, err := on.SearchBatch(ctx, qs[:n])
			if err != nil {
				t.Fatal(err)
			}
			b, err := off.SearchBatch(ctx, qs[:n])
			if err != nil {
				t.Fatal(err)
			}
			for i := range a {
				if !sameHits(a[i].Hits, b[i].Hits) {
					t.Fatalf("batch of %d, query %d: graphs %v, launches %v", n, i, a[i].Hits, b[i].Hits)
				}
			}
		}
	}
	if err := on.GraphsBroken(); err != nil {
		t.Errorf("the driver refused a graph: %v", err)
	}
}

// sameHits reports whether two rankings are equal, scores bit for bit.
func sameHits(a, b []query.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].DocID != b[i].DocID || math.Float32bits(a[i].Score) != math.Float32bits(b[i].Score) {
			return false
		}
	}
	return true
}

// TestEngineListCache: on the device, under a list cache that holds only
// the six longest lists, every policy answers exactly (checkListCache),
// the long lists copied from page-locked host memory.
func TestEngineListCache(t *testing.T) {
	for i, codec := range []string{"gpu-bp256", "bp128"} {
		spec := corpusSpec{Docs: 40000, Vocab: 400, Zipf: 1.0, Density: 0.7, Codec: codec, Seed: uint64(60 + i)}
		policy := CachePolicies[i%len(CachePolicies)]
		t.Run(codec+"/"+policy, func(t *testing.T) {
			checkListCache(t, openCorpus(t, spec), spec, policy, func(ix *index.Index, co cacheOptions) (*qengine, error) {
				d, be, err := openBackend(DeviceOptions{})
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { be.close(); d.Close() })
				return newQEngineCache(ix, be, co)
			})
		})
	}
}

// TestShardsOnTwoDevices: a random collection split into two shards,
// shard i's engine on device i, searched at once and merged, answers
// every mode as the exhaustive scorer over the whole collection. It
// needs two GPUs and skips with one.
func TestShardsOnTwoDevices(t *testing.T) {
	if d, err := OpenDevice(DeviceOptions{Ordinal: 1}); err != nil {
		t.Skipf("a second GPU: %v", err)
	} else {
		d.Close()
	}
	devicesOnce.Do(func() {
		query.Register("gpu-devices-test", query.Driver{Needs: query.Needs{GPU: true}, Open: func(ix *index.Index, o query.Options) (query.Engine, error) {
			return NewEngine(ix, Options{Device: o.GPU.Device})
		}})
	})
	spec := corpusSpec{Docs: 60000, Vocab: 500, Zipf: 1.0, Density: 0.7, Codec: "gpu-bp256", Seed: 70}
	ix := openCorpus(t, spec)
	shards := testindex.Shards(t, ix, 2)
	e, err := query.OpenSharded(shards, "gpu-devices-test", query.Options{GPU: query.GPUOptions{Devices: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.(interface{ Close() error }).Close()
	ref := query.NewExhaustive(ix)
	qs := randomQueries(rand.New(rand.NewPCG(70, 1)), 150, spec.Vocab)
	batch, err := e.(query.BatchEngine).SearchBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want, err := ref.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Hits, want.Hits) || !slices.Equal(batch[i].Hits, want.Hits) {
			t.Errorf("%v: got %v, batch %v, want %v", q, got.Hits, batch[i].Hits, want.Hits)
		}
	}
}

// devicesOnce registers TestShardsOnTwoDevices's driver once per binary.
var devicesOnce sync.Once
