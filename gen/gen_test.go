package gen

import (
	"bytes"
	"context"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
)

// smallParams keep test collections quick: short documents.
func smallParams() Params {
	p := DefaultParams()
	p.LenMu = math.Log(60)
	p.LenSigma = 0.9
	p.HeapsK = 8
	return p
}

func generate(t *testing.T, opts Options) (string, Report) {
	t.Helper()
	dir := t.TempDir()
	rep, err := Generate(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", opts, err)
	}
	return dir, rep
}

// readDir returns every file of an index directory.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	base := Options{Docs: 3000, Seed: 7, Params: smallParams(), Workers: 1}
	tests := []struct {
		name   string
		change func(*Options)
		same   bool
	}{
		{"same seed, 1 worker again", func(o *Options) {}, true},
		{"4 workers", func(o *Options) { o.Workers = 4 }, true},
		{"4 workers, tiny look-ahead", func(o *Options) { o.Workers = 4; o.AheadPostings = 1 }, true},
		{"other seed", func(o *Options) { o.Seed = 8 }, false},
		{"random order", func(o *Options) { o.Order = "random" }, false},
	}
	dir0, _ := generate(t, base)
	want := readDir(t, dir0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := base
			tt.change(&opts)
			dir, _ := generate(t, opts)
			got := readDir(t, dir)
			same := len(got) == len(want)
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					same = false
					if tt.same {
						t.Errorf("%s differs from the 1-worker index", name)
					}
				}
			}
			if same != tt.same {
				t.Errorf("identical = %v, want %v", same, tt.same)
			}
		})
	}
}

// decodeAll returns every list of an index and the sum of each
// document's frequencies.
func decodeAll(t *testing.T, ix *index.Index) (lens []uint64, dfs []uint32) {
	t.Helper()
	lens = make([]uint64, ix.NumDocs())
	for i := range ix.NumTerms() {
		info := ix.Term(i)
		c := ix.Cursor(info)
		n := uint32(0)
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			lens[d] += uint64(c.Freq())
			n++
		}
		if err := c.Err(); err != nil {
			t.Fatalf("term %q: %v", info.Term, err)
		}
		if n != info.DF {
			t.Fatalf("term %q: decoded %d postings, df %d", info.Term, n, info.DF)
		}
		dfs = append(dfs, n)
	}
	return lens, dfs
}

func TestGeneratedIndexIsConsistent(t *testing.T) {
	for _, order := range []string{"url", "random"} {
		t.Run(order, func(t *testing.T) {
			dir, rep := generate(t, Options{Docs: 2000, Seed: 3, Order: order, Params: smallParams(), Workers: 2})
			ix, err := index.Open(dir)
			if err != nil {
				t.Fatalf("index.Open: %v", err)
			}
			defer ix.Close()
			m := ix.Meta()
			if m.Docs != 2000 || m.Order != order || m.Terms != uint64(rep.Terms) || m.Postings != rep.Postings {
				t.Errorf("meta = %d docs, order %q, %d terms, %d postings; report says %d terms, %d postings",
					m.Docs, m.Order, m.Terms, m.Postings, rep.Terms, rep.Postings)
			}
			lens, _ := decodeAll(t, ix)
			for d, l := range lens {
				if uint64(ix.DocLen(uint32(d))) != l {
					t.Fatalf("DocLen(%d) = %d, want the sum of its frequencies %d", d, ix.DocLen(uint32(d)), l)
				}
			}
			urls := make([]string, ix.NumDocs())
			for d := range urls {
				urls[d] = ix.URL(uint32(d))
			}
			if sorted := sort.StringsAreSorted(urls); sorted != (order == "url") {
				t.Errorf("URLs sorted = %v with order %s", sorted, order)
			}
			if n := len(slices.Compact(slices.Sorted(slices.Values(urls)))); n != len(urls) {
				t.Errorf("%d distinct URLs for %d documents", n, len(urls))
			}
		})
	}
}

func TestTermsSurviveAnalysis(t *testing.T) {
	dir, _ := generate(t, Options{Docs: 1500, Seed: 5, Params: smallParams()})
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	a := analysis.New()
	for i := range ix.NumTerms() {
		term := ix.Term(i).Term
		if got := a.Terms(term); len(got) != 1 || got[0] != term {
			t.Fatalf("Terms(%q) = %q, want [%q]", term, got, term)
		}
	}
}

func TestGeneratedStatistics(t *testing.T) {
	p := smallParams()
	dir, rep := generate(t, Options{Docs: 20000, Seed: 11, Params: p})
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wantTokens := 20000 * math.Exp(p.LenMu+p.LenSigma*p.LenSigma/2)
	if got := float64(rep.Tokens); math.Abs(got/wantTokens-1) > 0.05 {
		t.Errorf("tokens = %.0f, want %.0f within 5%%", got, wantTokens)
	}
	wantV := p.HeapsK * math.Pow(wantTokens, p.HeapsBeta)
	if got := float64(rep.Terms); math.Abs(got/wantV-1) > 0.05 {
		t.Errorf("terms = %.0f, want K T^beta = %.0f within 5%%", got, wantV)
	}
}

func TestFitRecoversParameters(t *testing.T) {
	p := DefaultParams()
	p.LenMu, p.LenSigma = math.Log(80), 0.8
	p.HeapsK, p.HeapsBeta = 6, 0.6
	p.ZipfS, p.TFTail, p.Locality = 0.9, 1.6, 0.6
	dir, _ := generate(t, Options{Docs: 20000, Seed: 1, Params: p})
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// Another seed for the simulations, so that the fit cannot land on
	// the very collection it measures.
	res, err := Fit(context.Background(), ix, FitOptions{Seed: 2, Iterations: 10})
	if err != nil {
		t.Fatalf("Fit: %v", err)
	}
	got := res.Params
	tokens := float64(res.Observed.Tokens)
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"len_mu", got.LenMu, p.LenMu, 0.1},
		// Lengths come from 625 groups of 32 documents: the moments are noisy.
		{"len_sigma", got.LenSigma, p.LenSigma, 0.15},
		{"zipf_s", got.ZipfS, p.ZipfS, 0.1},
		{"tf_tail", got.TFTail, p.TFTail, 0.15},
		{"locality", got.Locality, p.Locality, 0.15},
		// beta is measured within one collection (see Fit): close, not equal.
		{"heaps_beta", got.HeapsBeta, p.HeapsBeta, 0.06},
		{"ln vocabulary at this size", math.Log(got.HeapsK) + got.HeapsBeta*math.Log(tokens),
			math.Log(p.HeapsK) + p.HeapsBeta*math.Log(tokens), 0.1},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > tt.tol {
			t.Errorf("fitted %s = %.3f, want %.3f within %.2f", tt.name, tt.got, tt.want, tt.tol)
		}
	}
	if d := math.Abs(res.Model.Log2Gap - res.Target.Log2Gap); d > 0.05 {
		t.Errorf("model mean log2 gap %.3f, index %.3f", res.Model.Log2Gap, res.Target.Log2Gap)
	}
}

func TestQueries(t *testing.T) {
	dir, _ := generate(t, Options{Docs: 5000, Seed: 4, Params: smallParams()})
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	const n = 4000
	qs, rep, err := Queries(ix, QueryOptions{N: n, Seed: 9})
	if err != nil {
		t.Fatalf("Queries: %v", err)
	}
	if len(qs) != n {
		t.Fatalf("%d queries, want %d", len(qs), n)
	}
	var lengths [6]int
	var postings float64
	for _, q := range qs {
		if len(q.Terms) < 2 || len(q.Terms) > 5 {
			t.Fatalf("query %s has %d terms", q.ID, len(q.Terms))
		}
		if len(slices.Compact(slices.Sorted(slices.Values(q.Terms)))) != len(q.Terms) {
			t.Errorf("query %s repeats a term: %q", q.ID, q.Terms)
		}
		var sum uint64
		for _, term := range q.Terms {
			info, ok := ix.Lookup(term)
			if !ok {
				t.Fatalf("query %s: term %q not in the index", q.ID, term)
			}
			sum += uint64(info.DF)
		}
		if sum != q.Postings {
			t.Errorf("query %s: postings %d, want %d", q.ID, q.Postings, sum)
		}
		lengths[len(q.Terms)]++
		postings += float64(sum)
	}
	for k := 2; k <= 5; k++ {
		share := float64(lengths[k]) / n
		if want := QueryLengthShares[k-2]; math.Abs(share-want) > 0.03 {
			t.Errorf("share of %d-term queries = %.3f, want %.2f", k, share, want)
		}
	}
	if mean := postings / n; math.Abs(mean/rep.TargetPostings-1) > 0.25 {
		t.Errorf("mean postings per query = %.0f, want %.0f within 25%%", mean, rep.TargetPostings)
	}
	again, _, err := Queries(ix, QueryOptions{N: n, Seed: 9})
	if err != nil || !slices.EqualFunc(qs, again, func(a, b Query) bool { return slices.Equal(a.Terms, b.Terms) }) {
		t.Errorf("Queries with the same seed differ (err %v)", err)
	}
}

func TestSolveSpectrum(t *testing.T) {
	tests := []struct {
		name            string
		s, beta, u, voc float64
	}{
		{"crawl-like", 0.9, 0.62, 1.4e5, 1.2e4},
		{"gov2-like", 1.0, 0.6, 9e9, 3e7},
		{"steep head", 1.3, 0.6, 1e7, 2e5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := solveSpectrum(tt.s, tt.beta, tt.u, tt.voc)
			if err != nil {
				t.Fatalf("solveSpectrum: %v", err)
			}
			if got := sp.vocab(tt.u); math.Abs(got/tt.voc-1) > 1e-3 {
				t.Errorf("vocab = %.4g, want %.4g", got, tt.voc)
			}
			// The shares sum to 1: brute force over the first million ranks
			// plus the integrated rest.
			sum := 0.0
			for r := 1; r <= 1e6; r++ {
				sum += sp.f(float64(r))
			}
			sum += rankSum(sp.f, 1e6+1, sp.c*sp.a, sp.s2)
			if math.Abs(sum-1) > 1e-3 {
				t.Errorf("sum of f = %.6f, want 1", sum)
			}
		})
	}
}

func TestLexiconIsABijection(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 17, 18, 19, 324, 1000, 5000} {
		l := newLexicon(n, 42)
		seen := make([]bool, n)
		prev := ""
		for p := range n {
			id := l.termID(p)
			if id < 0 || id >= n || seen[id] {
				t.Fatalf("n=%d: termID(%d) = %d repeats or is out of range", n, p, id)
			}
			seen[id] = true
			term := l.term(p)
			if p > 0 && term <= prev {
				t.Fatalf("n=%d: term(%d) = %q not after %q", n, p, term, prev)
			}
			prev = term
		}
	}
}

func TestRandomLog2Gap(t *testing.T) {
	// Continuity where the exact sum hands over to the asymptote, and the
	// value for a dense list.
	a, b := randomLog2Gap(1.0001e-4), randomLog2Gap(0.9999e-4)
	if math.Abs(a-b) > 1e-3 {
		t.Errorf("randomLog2Gap around 1e-4: %.5f and %.5f", a, b)
	}
	if got := randomLog2Gap(1); got != 0 {
		t.Errorf("randomLog2Gap(1) = %v, want 0", got)
	}
	// p = 1/2: sum_g 2^-g log2 g.
	want := 0.0
	for g := 1; g < 200; g++ {
		want += math.Pow(2, -float64(g)) * math.Log2(float64(g))
	}
	if got := randomLog2Gap(0.5); math.Abs(got-want) > 1e-9 {
		t.Errorf("randomLog2Gap(0.5) = %v, want %v", got, want)
	}
}

func TestParamsValidate(t *testing.T) {
	bad := DefaultParams()
	bad.HeapsBeta = 1.2
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted heaps_beta 1.2")
	}
	bad = DefaultParams()
	bad.HeapsBeta, bad.ZipfS = 0.8, 1.3
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted zipf_s 1.3 with heaps_beta 0.8")
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Errorf("DefaultParams().Validate() = %v", err)
	}
	if _, err := Generate(context.Background(), t.TempDir(), Options{Docs: 0}); err == nil {
		t.Error("Generate accepted 0 documents")
	}
	if _, err := Generate(context.Background(), t.TempDir(), Options{Docs: 10, Order: "crawl"}); err == nil {
		t.Error("Generate accepted order crawl")
	}
}

// TestFitIsDeterministic compares whole results, the simulated moments
// included, so one round is enough to cover every step that splits work
// between workers (observing the index, simulating); most of Fit's time is
// spent solving the model, whatever the collection's size.
func TestFitIsDeterministic(t *testing.T) {
	dir, _ := generate(t, Options{Docs: 1000, Seed: 6, Params: smallParams()})
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var got []FitResult
	for _, w := range []int{1, 3} {
		res, err := Fit(context.Background(), ix, FitOptions{Workers: w, Seed: 1, Iterations: 1})
		if err != nil {
			t.Fatalf("Fit(workers %d): %v", w, err)
		}
		got = append(got, res)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("Fit with 1 worker = %+v, with 3 = %+v", got[0], got[1])
	}
}
