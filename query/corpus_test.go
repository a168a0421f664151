package query

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/index"
)

// corpusSpec describes a synthetic collection: terms of Zipfian frequency,
// independent of each other, over documents of varied length.
type corpusSpec struct {
	Docs   int
	Vocab  int     // distinct terms
	Zipf   float64 // exponent s: term r occurs with probability ~ r^-s
	AvgLen float64 // mean document length in tokens
	Seed   uint64
	Codec  string // docid and frequency codec
}

// termName is the name of the term of frequency rank r (1-based); names
// sort in rank order.
func termName(r int) string { return fmt.Sprintf("t%06d", r) }

// writeCorpus generates the collection of spec and writes its index to dir
// with index.NewWriter.
//
// Document lengths are drawn first (log-normal around AvgLen). Term r has
// token probability p_r = r^-s / H; a document holds it with probability
// 1 - exp(-AvgLen * p_r), documents chosen by geometric skips, so the cost
// is the number of postings, not Docs x Vocab. Its frequency there is 1 plus
// a Poisson draw whose mean grows with p_r and the document's length.
func writeCorpus(tb testing.TB, dir string, spec corpusSpec) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(spec.Seed, 0x9e3779b97f4a7c15))
	lens := make([]uint32, spec.Docs)
	urls := make([]string, spec.Docs)
	for d := range lens {
		l := spec.AvgLen * math.Exp(0.6*rng.NormFloat64()-0.18)
		lens[d] = uint32(max(1, math.Round(l)))
		urls[d] = fmt.Sprintf("doc/%08d", d)
	}
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: spec.Codec, FreqCodec: spec.Codec, Order: "crawl"}, lens, urls)
	if err != nil {
		tb.Fatalf("NewWriter: %v", err)
	}
	var h float64
	for r := 1; r <= spec.Vocab; r++ {
		h += math.Pow(float64(r), -spec.Zipf)
	}
	var docs, freqs []uint32
	for r := 1; r <= spec.Vocab; r++ {
		p := math.Pow(float64(r), -spec.Zipf) / h
		lambda := spec.AvgLen * p
		q := -math.Expm1(-lambda)
		docs, freqs = docs[:0], freqs[:0]
		for d := nextIncluded(rng, -1, q); d < spec.Docs; d = nextIncluded(rng, d, q) {
			docs = append(docs, uint32(d))
			freqs = append(freqs, 1+poisson(rng, lambda*float64(lens[d])/spec.AvgLen))
		}
		if len(docs) == 0 {
			docs, freqs = append(docs, uint32(rng.IntN(spec.Docs))), append(freqs, 1)
		}
		if err := w.AddTerm(termName(r), docs, freqs); err != nil {
			tb.Fatalf("AddTerm(%s): %v", termName(r), err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("Close: %v", err)
	}
}

// nextIncluded is the next document after d chosen with probability q.
func nextIncluded(rng *rand.Rand, d int, q float64) int {
	if q >= 1 {
		return d + 1
	}
	skip := math.Floor(math.Log(1-rng.Float64()) / math.Log1p(-q))
	if skip > 1<<31 {
		return math.MaxInt32
	}
	return d + 1 + int(skip)
}

// poisson draws from a Poisson distribution of mean lambda (normal
// approximation above 30).
func poisson(rng *rand.Rand, lambda float64) uint32 {
	if lambda > 30 {
		return uint32(max(0, math.Round(lambda+math.Sqrt(lambda)*rng.NormFloat64())))
	}
	limit, prod, n := math.Exp(-lambda), rng.Float64(), uint32(0)
	for prod > limit {
		prod *= rng.Float64()
		n++
	}
	return n
}

// openCorpus writes spec's collection into a temporary directory and opens it.
func openCorpus(tb testing.TB, spec corpusSpec) *index.Index {
	tb.Helper()
	dir := tb.TempDir()
	writeCorpus(tb, dir, spec)
	ix, err := index.Open(dir)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// randomQuery picks 1 to 6 distinct terms: mostly Zipf-weighted ranks, so
// that frequent terms are common in queries as in real logs, sometimes a
// uniformly chosen rank or a term the index does not hold.
func randomQuery(rng *rand.Rand, vocab int) []string {
	n := 1 + rng.IntN(6)
	seen := map[string]bool{}
	var terms []string
	for len(terms) < n {
		var t string
		switch x := rng.Float64(); {
		case x < 0.05:
			t = "missing"
		case x < 0.35:
			t = termName(1 + rng.IntN(vocab))
		default:
			// Log-uniform rank: every order of magnitude equally likely.
			t = termName(min(vocab, int(math.Exp(rng.Float64()*math.Log(float64(vocab+1))))))
		}
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return terms
}
