package gen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
)

// QueryLengthShares is the share of generated queries with 2, 3, 4 and 5
// terms (mean 3.02): short queries dominate web and efficiency-track logs,
// and one-term queries, which need no list processing, are left out.
var QueryLengthShares = [4]float64{0.40, 0.30, 0.18, 0.12}

// Gov2PostingsPerDoc is the mean number of postings a query's lists hold,
// per document of the collection, in the efficiency-track queries run on
// Gov2 by Ding, He and Suel (3.74 million postings over 25.2 million
// documents).
const Gov2PostingsPerDoc = 3.74e6 / 25.2e6

// QueryOptions control Queries. The zero value of a field means its
// default.
type QueryOptions struct {
	N    int    // number of queries (default 1000)
	Seed uint64 // the queries are a function of the index and the seed
	// PostingsPerDoc is the wanted mean postings per query over the number
	// of documents (default Gov2PostingsPerDoc).
	PostingsPerDoc float64
}

// Query is one generated query.
type Query struct {
	ID       string
	Terms    []string
	Postings uint64 // sum of the terms' document frequencies
}

// QueryReport describes a generated query set.
type QueryReport struct {
	Alpha          float64 `json:"alpha"`
	Queries        int     `json:"queries"`
	MeanTerms      float64 `json:"mean_terms"`
	MeanPostings   float64 `json:"mean_postings"`
	TargetPostings float64 `json:"target_postings"`
	// Rejected counts the distinct terms drawn that query analysis would
	// not map back to themselves.
	Rejected int `json:"rejected_terms"`
}

// Queries draws queries from an index's lexicon. A query has 2 to 5
// distinct terms (QueryLengthShares); each term is drawn with probability
// proportional to df^alpha, alpha solved so that the expected postings per
// query are PostingsPerDoc times the number of documents. Terms that the
// query analyzer would not map back to themselves (Porter2 is not
// idempotent on every stem) are redrawn, so every query term is found.
func Queries(ix *index.Index, opts QueryOptions) ([]Query, QueryReport, error) {
	if opts.N <= 0 {
		opts.N = 1000
	}
	if opts.PostingsPerDoc <= 0 {
		opts.PostingsPerDoc = Gov2PostingsPerDoc
	}
	var rep QueryReport
	nt := ix.NumTerms()
	if nt < 5 {
		return nil, rep, fmt.Errorf("gen: queries: the index has %d terms, fewer than 5", nt)
	}
	// Terms grouped by df: byDF lists term ids sorted by df, and each
	// distinct df owns a run of it.
	byDF := make([]uint32, nt)
	dfs := make([]uint32, nt)
	for i := range nt {
		byDF[i] = uint32(i)
		dfs[i] = ix.Term(i).DF
	}
	slices.SortStableFunc(byDF, func(a, b uint32) int { return int(dfs[a]) - int(dfs[b]) })
	var vals []float64 // distinct dfs
	var counts []float64
	var starts []int
	for i, t := range byDF {
		if i == 0 || dfs[t] != dfs[byDF[i-1]] {
			vals = append(vals, float64(dfs[t]))
			counts = append(counts, 0)
			starts = append(starts, i)
		}
		counts[len(counts)-1]++
	}
	starts = append(starts, nt)
	meanLen := 0.0
	for i, s := range QueryLengthShares {
		meanLen += float64(i+2) * s
	}
	rep.TargetPostings = opts.PostingsPerDoc * float64(ix.NumDocs())
	perTerm := rep.TargetPostings / meanLen
	meanDF := func(a float64) float64 {
		var num, den float64
		for i, v := range vals {
			w := counts[i] * math.Pow(v, a)
			num += w * v
			den += w
		}
		return num / den
	}
	lo, hi := -3.0, 4.0
	switch {
	case meanDF(lo) >= perTerm:
		rep.Alpha = lo
	case meanDF(hi) <= perTerm:
		rep.Alpha = hi
	default:
		for hi-lo > 1e-9 {
			mid := (lo + hi) / 2
			if meanDF(mid) < perTerm {
				lo = mid
			} else {
				hi = mid
			}
		}
		rep.Alpha = (lo + hi) / 2
	}
	cum := make([]float64, len(vals))
	acc := 0.0
	for i, v := range vals {
		acc += counts[i] * math.Pow(v, rep.Alpha)
		cum[i] = acc
	}
	r := rand.New(stream(opts.Seed, saltQuery, 0))
	a := analysis.New()
	survives := map[int]bool{}
	draw := func() (int, bool) {
		b := sort.SearchFloat64s(cum, r.Float64()*acc)
		b = min(b, len(vals)-1)
		t := int(byDF[starts[b]+r.IntN(starts[b+1]-starts[b])])
		ok, seen := survives[t]
		if !seen {
			term := ix.Term(t).Term
			got := a.Terms(term)
			ok = len(got) == 1 && got[0] == term
			survives[t] = ok
			if !ok {
				rep.Rejected++
			}
		}
		return t, ok
	}
	width := len(fmt.Sprint(opts.N))
	out := make([]Query, 0, opts.N)
	var total uint64
	var terms int
	for q := range opts.N {
		k := queryLength(r.Float64())
		query := Query{ID: fmt.Sprintf("%0*d", width, q+1)}
		var ids []int
		for tries := 0; len(ids) < k; tries++ {
			if tries > 1000*k {
				return nil, rep, errors.New("gen: queries: too few terms survive query analysis")
			}
			t, ok := draw()
			if ok && !slices.Contains(ids, t) {
				ids = append(ids, t)
			}
		}
		for _, t := range ids {
			query.Terms = append(query.Terms, ix.Term(t).Term)
			query.Postings += uint64(dfs[t])
		}
		total += query.Postings
		terms += k
		out = append(out, query)
	}
	rep.Queries = len(out)
	rep.MeanTerms = float64(terms) / float64(len(out))
	rep.MeanPostings = float64(total) / float64(len(out))
	return out, rep, nil
}

// queryLength maps a uniform variate to a query length by
// QueryLengthShares.
func queryLength(u float64) int {
	c := 0.0
	for i, s := range QueryLengthShares {
		c += s
		if u < c {
			return i + 2
		}
	}
	return len(QueryLengthShares) + 1
}
