package query

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
	"testing"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// testEngines are the engines checked against the exhaustive scorer: every
// registered engine, plus the bitmap baseline with a cache small enough to
// evict.
func testEngines(t testing.TB, ix *index.Index) map[string]Engine {
	t.Helper()
	engines := map[string]Engine{"bitmap-tiny": NewBitmap(ix, BitmapOptions{CacheBytes: 4 << 10})}
	for _, name := range Engines() {
		e, err := New(ix, name)
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		engines[name] = e
	}
	return engines
}

// checkTopK reports how got differs from the reference want beyond what
// float32 ties allow: the same number of hits, scores equal within 1e-5
// relative rank by rank, and a docid in one list but not the other only
// when its score ties the last place.
func checkTopK(got, want []Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	near := func(a, b float32) bool {
		return math.Abs(float64(a)-float64(b)) <= 1e-5*math.Max(math.Abs(float64(a)), math.Abs(float64(b)))
	}
	for i := range got {
		if !near(got[i].Score, want[i].Score) {
			return fmt.Errorf("rank %d: score %v, want %v", i, got[i].Score, want[i].Score)
		}
		if i > 0 && better(got[i], got[i-1]) {
			return fmt.Errorf("rank %d: %v ranks above %v", i, got[i], got[i-1])
		}
	}
	if len(want) == 0 {
		return nil
	}
	last := want[len(want)-1].Score
	inWant := map[uint32]bool{}
	for _, h := range want {
		inWant[h.DocID] = true
	}
	for _, h := range got {
		if !inWant[h.DocID] && !near(h.Score, last) {
			return fmt.Errorf("docid %d (score %v) is not in the reference and does not tie its last score %v", h.DocID, h.Score, last)
		}
		delete(inWant, h.DocID)
	}
	for _, h := range want {
		if inWant[h.DocID] && !near(h.Score, last) {
			return fmt.Errorf("reference docid %d (score %v) is missing", h.DocID, h.Score)
		}
	}
	return nil
}

// compareEngines runs q on every engine and checks each against the
// exhaustive scorer: within checkTopK's tolerance and, since every CPU
// engine adds term scores in query order and breaks ties by docid,
// identical bit for bit. It returns the postings each engine scored.
func compareEngines(t *testing.T, engines map[string]Engine, q Query) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	want, err := engines["exhaustive"].Search(ctx, q)
	if err != nil {
		t.Fatalf("exhaustive.Search(%v): %v", q, err)
	}
	scored := map[string]int64{}
	for name, e := range engines {
		got, err := e.Search(ctx, q)
		if err != nil {
			t.Errorf("%s.Search(%v): %v", name, q, err)
			continue
		}
		if err := checkTopK(got.Hits, want.Hits); err != nil {
			t.Errorf("%s.Search(%v): %v\n got  %v\n want %v", name, q, err, got.Hits, want.Hits)
		} else if !slices.Equal(got.Hits, want.Hits) {
			t.Errorf("%s.Search(%v) = %v, want exactly %v", name, q, got.Hits, want.Hits)
		}
		if got.Stats.Algorithm == "" {
			t.Errorf("%s.Search(%v): empty Stats.Algorithm", name, q)
		}
		scored[name] = got.Stats.PostingsScored
	}
	return scored
}

// testCodecs are the codecs the random corpora are written with.
func testCodecs(t *testing.T) []string {
	var out []string
	for _, name := range []string{"varint-SU", "bp128"} {
		if _, err := codecplugins.Lookup(name); err == nil {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		t.Fatal("neither varint-SU nor bp128 is registered")
	}
	return out
}

func TestEnginesMatchExhaustiveOnRandomCorpora(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	corpora := 12
	if testing.Short() {
		corpora = 4
	}
	for _, codec := range testCodecs(t) {
		for c := range corpora {
			spec := corpusSpec{
				Docs:   50 + rng.IntN(4000),
				Vocab:  20 + rng.IntN(400),
				Zipf:   0.8 + 0.5*rng.Float64(),
				AvgLen: 20 + 120*rng.Float64(),
				Seed:   rng.Uint64(),
				Codec:  codec,
			}
			t.Run(fmt.Sprintf("%s/%d", codec, c), func(t *testing.T) {
				ix := openCorpus(t, spec)
				engines := testEngines(t, ix)
				total := map[string]int64{}
				for range 60 {
					q := Query{
						Terms: randomQuery(rng, spec.Vocab),
						Mode:  []Mode{And, Or, AndOr}[rng.IntN(3)],
						K:     []int{1, 3, 10, 10, 50, 1000}[rng.IntN(6)],
					}
					for name, n := range compareEngines(t, engines, q) {
						total[name] += n
					}
				}
				if total["bmw"] > total["daat"] {
					t.Errorf("bmw scored %d postings, more than exhaustive DAAT's %d", total["bmw"], total["daat"])
				}
			})
		}
	}
}

// readQueries reads a queries file: one per line, optionally id<TAB>text.
func readQueries(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if _, text, ok := strings.Cut(line, "\t"); ok {
			line = text
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEnginesMatchExhaustiveOnSampleCrawl(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	engines := testEngines(t, ix)
	queries := readQueries(t, "../examples/queries.txt")
	if len(queries) < 100 {
		t.Fatalf("read %d queries from examples/queries.txt, want 200", len(queries))
	}
	a := analysis.New()
	for _, mode := range []Mode{And, Or, AndOr} {
		for _, k := range []int{10, 100} {
			t.Run(fmt.Sprintf("%s/k=%d", mode, k), func(t *testing.T) {
				for _, text := range queries {
					compareEngines(t, engines, mustParse(t, a, text, mode, k))
				}
			})
		}
	}
}

// skipCorpus is a collection where "common" is in every document and
// "rare" in a few spread across it.
func skipCorpus(t *testing.T, docs int) *index.Index {
	t.Helper()
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	all := make([]uint32, docs)
	freqs := make([]uint32, docs)
	for d := range docs {
		lens[d] = uint32(10 + d%37)
		urls[d] = fmt.Sprintf("doc/%d", d)
		all[d] = uint32(d)
		freqs[d] = uint32(1 + d%5)
	}
	rare := []uint32{17, uint32(docs / 3), uint32(docs/2 + 1), uint32(docs - 2)}
	return testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, lens, urls,
		testindex.Postings{Term: "common", DocIDs: all, Freqs: freqs},
		testindex.Postings{Term: "rare", DocIDs: rare, Freqs: []uint32{1, 2, 3, 4}})
}

func TestAndSkipsBlocks(t *testing.T) {
	ix := skipCorpus(t, 100_000)
	info, _ := ix.Lookup("common")
	longBlocks := int64(info.NumBlocks(ix.BlockSize()))
	for _, name := range []string{"daat", "maxscore", "wand", "bmw", "cpu"} {
		t.Run(name, func(t *testing.T) {
			e, err := New(ix, name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(context.Background(), Query{Terms: []string{"common", "rare"}, Mode: And, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 4 {
				t.Fatalf("Search(common AND rare) = %d hits, want 4", len(res.Hits))
			}
			// The rare list's one block, then one block of the long
			// list per rare docid, plus the long list's first block.
			if res.Stats.BlocksDecoded > 6 || res.Stats.BlocksDecoded*100 > longBlocks {
				t.Errorf("Search(common AND rare) decoded %d blocks, want <= 6 (long list: %d blocks)", res.Stats.BlocksDecoded, longBlocks)
			}
			if res.Stats.BlocksSkipped < longBlocks-6 {
				t.Errorf("Search(common AND rare) skipped %d blocks, want >= %d", res.Stats.BlocksSkipped, longBlocks-6)
			}
			if res.Stats.PostingsScored != 8 {
				t.Errorf("Search(common AND rare) scored %d postings, want 8", res.Stats.PostingsScored)
			}
		})
	}
}

func TestBlockMaxWANDSkipsBlocks(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 100_000, Vocab: 2000, Zipf: 1, AvgLen: 100, Seed: 7, Codec: "varint-SU"})
	q := Query{Terms: []string{termName(3), termName(40), termName(300)}, Mode: Or, K: 10}
	exh, err := New(ix, "daat")
	if err != nil {
		t.Fatal(err)
	}
	bmw, err := New(ix, "bmw")
	if err != nil {
		t.Fatal(err)
	}
	want, err := exh.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bmw.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Hits, want.Hits) {
		t.Fatalf("bmw.Search(%v) = %v, want %v", q, got.Hits, want.Hits)
	}
	if got.Stats.BlocksDecoded*2 > want.Stats.BlocksDecoded || got.Stats.PostingsScored*10 > want.Stats.PostingsScored {
		t.Errorf("bmw decoded %d blocks and scored %d postings; exhaustive DAAT %d and %d: want at most half and a tenth",
			got.Stats.BlocksDecoded, got.Stats.PostingsScored, want.Stats.BlocksDecoded, want.Stats.PostingsScored)
	}
}

// countdownContext reports cancellation from the n-th call of Err on.
type countdownContext struct {
	context.Context
	n int
}

func (c *countdownContext) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestCancelledSearchStops(t *testing.T) {
	ix := skipCorpus(t, 100_000)
	engines := testEngines(t, ix)
	// Large k: nothing can be pruned, every engine visits every document.
	q := Query{Terms: []string{"common", "rare"}, Mode: Or, K: 200_000}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, e := range engines {
		t.Run(name, func(t *testing.T) {
			if _, err := e.Search(cancelled, q); !errors.Is(err, context.Canceled) {
				t.Errorf("Search(cancelled context) error = %v, want context.Canceled", err)
			}
			// Cancelled after the first checks: the engine must notice
			// while walking the 100,000-posting list.
			ctx := &countdownContext{Context: context.Background(), n: 2}
			if _, err := e.Search(ctx, q); !errors.Is(err, context.Canceled) {
				t.Errorf("Search(context cancelled mid-query) error = %v, want context.Canceled", err)
			}
		})
	}
}

func TestStatsAlgorithm(t *testing.T) {
	ix := skipCorpus(t, 1000)
	tests := []struct {
		engine string
		q      Query
		want   string
	}{
		{"cpu", Query{Terms: []string{"common", "rare"}, Mode: And, K: 10}, "and"},
		{"cpu", Query{Terms: []string{"common", "rare"}, Mode: Or, K: 10}, "maxscore"},
		{"cpu", Query{Terms: []string{"common", "rare"}, Mode: AndOr, K: 2}, "and"},
		{"cpu", Query{Terms: []string{"common", "rare"}, Mode: AndOr, K: 10}, "and+maxscore"},
		{"bmw", Query{Terms: []string{"common", "rare"}, Mode: And, K: 10}, "and-blockmax"},
		{"maxscore", Query{Terms: []string{"common"}, Mode: Or, K: 10}, "maxscore"},
		{"bitmap", Query{Terms: []string{"common"}, Mode: Or, K: 10}, "bitmap"},
	}
	for _, tt := range tests {
		t.Run(tt.engine+"/"+string(tt.q.Mode), func(t *testing.T) {
			e, err := New(ix, tt.engine)
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Algorithm != tt.want {
				t.Errorf("%s.Search(%v).Stats.Algorithm = %q, want %q", tt.engine, tt.q, res.Stats.Algorithm, tt.want)
			}
		})
	}
}

// TestEnginesConcurrent runs every engine from several goroutines at once
// (run it with -race): answers must not depend on what runs beside them.
func TestEnginesConcurrent(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 3000, Vocab: 300, Zipf: 1, AvgLen: 60, Seed: 21, Codec: "varint-SU"})
	rng := rand.New(rand.NewPCG(22, 23))
	var qs []Query
	for range 30 {
		qs = append(qs, Query{Terms: randomQuery(rng, 300), Mode: []Mode{And, Or, AndOr}[rng.IntN(3)], K: 10})
	}
	for name, e := range testEngines(t, ix) {
		want := make([][]Hit, len(qs))
		for i, q := range qs {
			res, err := e.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = res.Hits
		}
		errs := make(chan error, 4)
		for w := range 4 {
			go func() {
				for i := range qs {
					i = (i + w*7) % len(qs)
					res, err := e.Search(context.Background(), qs[i])
					if err == nil && !slices.Equal(res.Hits, want[i]) {
						err = fmt.Errorf("Search(%v) = %v, want %v", qs[i], res.Hits, want[i])
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Errorf("%s, concurrently: %v", name, err)
			}
		}
	}
}

// mustParse is Parse for texts the test knows to be well formed.
func mustParse(t testing.TB, a *analysis.Analyzer, text string, mode Mode, k int) Query {
	t.Helper()
	q, err := Parse(a, text, mode, k)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
