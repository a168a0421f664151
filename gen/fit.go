package gen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpusearch/gpusearch/index"
)

// Observed are the statistics Fit measures on an index; they are also how
// a synthetic index is compared with a real one.
type Observed struct {
	Docs         uint64  `json:"docs"`
	Terms        uint64  `json:"terms"`
	Postings     uint64  `json:"postings"`
	Tokens       uint64  `json:"tokens"`
	EmptyDocs    uint64  `json:"empty_docs"`
	Order        string  `json:"order"`
	Codec        string  `json:"codec"`
	BitsPerDocID float64 `json:"bits_per_docid"`
	BitsPerFreq  float64 `json:"bits_per_freq"`
	// MeanLog2Gap is the mean over all postings of log2 of the d-gap (the
	// first posting's gap is its docid + 1); MeanLog2GapRandom is its
	// expectation had the same lists been placed at random, so their
	// difference measures how much the docid order clusters the lists.
	MeanLog2Gap       float64 `json:"mean_log2_gap"`
	MeanLog2GapRandom float64 `json:"mean_log2_gap_random"`
	// TFShare is the share of postings with frequency 1, 2, ... 8, then
	// more than 8.
	TFShare []float64 `json:"tf_share"`
	// Lists is the list-length distribution in powers of two.
	Lists []ListBucket `json:"lists"`
}

// ListBucket is the share of terms, and of postings, whose df lies in
// [MinDF, MaxDF].
type ListBucket struct {
	MinDF        uint32  `json:"min_df"`
	MaxDF        uint32  `json:"max_df"`
	TermShare    float64 `json:"term_share"`
	PostingShare float64 `json:"posting_share"`
}

// Moments are the statistics Fit matches, measured the same way on the
// real index and on simulated collections.
type Moments struct {
	LenMu     float64 `json:"len_mu"`    // mean ln(length) of non-empty documents
	LenSigma  float64 `json:"len_sigma"` // sqrt(2 (ln mean length - LenMu))
	LnVocab   float64 `json:"ln_vocab"`  // ln(K T^beta) of the Heaps fit over random document samples, at the index's T
	HeapsBeta float64 `json:"heaps_beta"`
	ZipfSlope float64 `json:"zipf_slope"` // -slope of ln cf over ln rank, ranks 1..256 with cf >= 4
	TFTail    float64 `json:"tf_tail"`    // burst-law fit to frequencies in lists with df <= N/16
	Log2Gap   float64 `json:"mean_log2_gap"`
}

// FitResult is what `gpusearch gen fit` prints.
type FitResult struct {
	Params   Params   `json:"params"`
	Observed Observed `json:"observed"`
	// Target are the index's moments; Model those of synthetic
	// collections of the same size drawn with Params (the mean over seeds
	// Seed to Seed+3 below 50,000 documents, else seed Seed).
	Target     Moments `json:"target_moments"`
	Model      Moments `json:"model_moments"`
	Iterations int     `json:"iterations"`
}

// FitOptions control Fit.
type FitOptions struct {
	Workers    int    // goroutines (default: every core)
	Seed       uint64 // seed of the simulated collections
	Iterations int    // simulation rounds at most (default 8)
}

// Fit estimates the model's parameters from an index by the simulated
// method of moments: it measures the index's Moments, then draws
// synthetic collections of the same number of documents (in memory, not
// written) and moves each parameter by the gap between its moment on the
// index and on the simulation, until they agree. Each parameter drives
// mostly one moment: LenMu, LenSigma, ZipfS and TFTail their namesakes,
// HeapsK the vocabulary, Locality the mean log2 d-gap (with a slope
// measured at the start; the others move one for one).
//
// HeapsBeta is not iterated: it is the Heaps slope measured over random
// samples of the index's documents, the usual estimate from a single
// collection. (Within one synthetic collection the same measurement is
// not governed by beta alone, since the knee of the rank-frequency curve
// is solved to give the vocabulary; in small collections it stays near
// 0.65, so matching it would push beta out of range.) The site sizes and
// the home density are not identifiable from postings and keep their
// defaults. Each round costs about one generation's first pass.
func Fit(ctx context.Context, ix *index.Index, opts FitOptions) (FitResult, error) {
	workers := defaultWorkers(opts.Workers)
	iters := opts.Iterations
	if iters <= 0 {
		iters = 8
	}
	var res FitResult
	obs, raw, err := observe(ctx, ix, workers)
	if err != nil {
		return res, err
	}
	res.Observed = obs
	if obs.Tokens == 0 || obs.Terms < 16 {
		return res, errors.New("gen: fit: the index has too few terms to fit")
	}
	n := int(obs.Docs)
	lnT := math.Log(float64(obs.Tokens))
	if res.Target, err = raw.moments(n); err != nil {
		return res, err
	}
	t := res.Target
	p := DefaultParams()
	p.LenMu, p.LenSigma, p.HeapsBeta, p.TFTail = t.LenMu, t.LenSigma, t.HeapsBeta, t.TFTail
	p.HeapsK = math.Exp(t.LnVocab - t.HeapsBeta*lnT)
	p.ZipfS = t.ZipfSlope
	p = clampParams(p)
	// Small collections are noisy (a few sites, a few hundred weight
	// groups): their moments are averaged over several seeds.
	replicas := min(4, max(1, (replicaDocs+n-1)/n))
	sim := func(p Params) (Moments, error) {
		var avg Moments
		for i := range replicas {
			r, err := simulate(ctx, p, n, opts.Seed+uint64(i), workers)
			if err != nil {
				return Moments{}, err
			}
			m, err := r.moments(n)
			if err != nil {
				return Moments{}, err
			}
			avg = avg.plus(m, 1/float64(replicas))
		}
		return avg, nil
	}
	// The slope of the gap in the locality, measured once.
	lo, hi := p, p
	lo.Locality, hi.Locality = 0.25, 0.75
	mlo, err := sim(lo)
	if err != nil {
		return res, err
	}
	mhi, err := sim(hi)
	if err != nil {
		return res, err
	}
	gapSlope := min((mhi.Log2Gap-mlo.Log2Gap)/0.5, -1e-3)
	for {
		m, err := sim(p)
		if err != nil {
			return res, err
		}
		// The result is always a simulated point: Params produced Model.
		res.Params, res.Model = p, m
		res.Iterations++
		if res.Iterations == iters {
			break
		}
		q := p
		q.LenMu += t.LenMu - m.LenMu
		q.LenSigma += t.LenSigma - m.LenSigma
		q.HeapsK *= math.Exp(t.LnVocab - m.LnVocab)
		q.ZipfS += t.ZipfSlope - m.ZipfSlope
		q.TFTail += t.TFTail - m.TFTail
		q.Locality += (t.Log2Gap - m.Log2Gap) / gapSlope
		q = clampParams(q)
		if paramsClose(p, q) {
			break
		}
		p = q
	}
	return res, res.Params.Validate()
}

// replicaDocs is the collection size below which simulations are
// repeated with other seeds (up to 4 in all) and averaged.
const replicaDocs = 50000

// plus returns m + w*o, moment by moment.
func (m Moments) plus(o Moments, w float64) Moments {
	return Moments{
		LenMu: m.LenMu + w*o.LenMu, LenSigma: m.LenSigma + w*o.LenSigma, LnVocab: m.LnVocab + w*o.LnVocab,
		HeapsBeta: m.HeapsBeta + w*o.HeapsBeta, ZipfSlope: m.ZipfSlope + w*o.ZipfSlope, TFTail: m.TFTail + w*o.TFTail,
		Log2Gap: m.Log2Gap + w*o.Log2Gap,
	}
}

// clampParams keeps a fit's parameters inside the ranges the model is
// defined on (and the Zipf head shallower than the tail).
func clampParams(p Params) Params {
	p.LenMu = math.Max(0, math.Min(15, p.LenMu))
	p.LenSigma = math.Max(0, math.Min(4, p.LenSigma))
	p.HeapsK = math.Max(0.01, math.Min(1e6, p.HeapsK))
	p.HeapsBeta = math.Max(0.2, math.Min(0.95, p.HeapsBeta))
	p.ZipfS = math.Max(0.3, math.Min(math.Min(2.5, 1/p.HeapsBeta-0.01), p.ZipfS))
	p.TFTail = math.Max(0.3, math.Min(20, p.TFTail))
	p.Locality = math.Max(0, math.Min(1, p.Locality))
	return p
}

// paramsClose reports whether a round moved no parameter by more than
// 0.2% (of the value, or 0.002 absolute for Locality).
func paramsClose(a, b Params) bool {
	rel := func(x, y float64) bool { return math.Abs(x-y) <= 2e-3*math.Max(math.Abs(x), 1e-9) }
	return rel(a.LenMu, b.LenMu) && rel(a.LenSigma, b.LenSigma) && rel(a.HeapsK, b.HeapsK) &&
		rel(a.HeapsBeta, b.HeapsBeta) && rel(a.ZipfS, b.ZipfS) && rel(a.TFTail, b.TFTail) &&
		math.Abs(a.Locality-b.Locality) <= 2e-3
}

// tfCap is the largest frequency the burst-law fit looks at.
const tfCap = 16

// fixedOne is 1 in the fixed point of listStats: log2 gaps are at most 32,
// so 2^63 / (32 * 2^24) = 1.7e10 postings fit.
const fixedOne = 1 << 24

func fixed(v float64) int64 { return int64(math.Round(v * fixedOne)) }

// listStats accumulates statistics over posting lists.
type listStats struct {
	// Sums of log2 gaps in fixed point (fixedOne = 1), so that they do not
	// depend on which worker added which list: Fit is deterministic.
	log2Gap, log2Rand int64
	postings          uint64
	tf                [9]uint64         // tf 1..8, >8, at index tf-1
	fitTF             [tfCap + 1]uint64 // tf in sparse lists: 1..tfCap at index tf, > tfCap at 0
	randGap           map[uint32]float64
}

// add records one list of a collection of n documents.
func (a *listStats) add(docs, tfs []uint32, n float64) {
	sparse := float64(len(docs)) <= n/16
	prev := int64(-1)
	for i, d := range docs {
		a.log2Gap += fixed(math.Log2(float64(int64(d) - prev)))
		prev = int64(d)
		f := tfs[i]
		a.tf[min(f, 9)-1]++
		if sparse {
			if f > tfCap {
				f = 0
			}
			a.fitTF[f]++
		}
	}
	df := uint32(len(docs))
	if a.randGap == nil {
		a.randGap = map[uint32]float64{}
	}
	g, ok := a.randGap[df]
	if !ok {
		g = randomLog2Gap(float64(df) / n)
		a.randGap[df] = g
	}
	a.log2Rand += fixed(g) * int64(df)
	a.postings += uint64(df)
}

func (a *listStats) merge(b *listStats) {
	a.log2Gap += b.log2Gap
	a.log2Rand += b.log2Rand
	a.postings += b.postings
	for i, v := range b.tf {
		a.tf[i] += v
	}
	for i, v := range b.fitTF {
		a.fitTF[i] += v
	}
}

// rawStats are what the moments are computed from.
type rawStats struct {
	lens []uint32
	cfs  []float64 // per term that occurs
	dfs  []uint32
	ls   listStats
}

// moments computes the Moments of a collection of n documents.
func (r *rawStats) moments(n int) (Moments, error) {
	var m Moments
	var tokens float64
	for _, cf := range r.cfs {
		tokens += cf
	}
	if tokens == 0 || len(r.cfs) < 16 {
		return m, errors.New("gen: fit: too few terms")
	}
	m.LenMu, m.LenSigma = fitLogNormal(r.lens)
	_, m.HeapsBeta = fitHeaps(r.dfs, uint64(n), tokens)
	m.LnVocab = math.Log(float64(len(r.dfs)))
	var err error
	if m.ZipfSlope, err = zipfSlope(r.cfs); err != nil {
		return m, err
	}
	m.TFTail = fitTFTail(r.ls.fitTF[:])
	if r.ls.postings > 0 {
		m.Log2Gap = float64(r.ls.log2Gap) / fixedOne / float64(r.ls.postings)
	}
	return m, nil
}

// observe measures an index, decoding every list once.
func observe(ctx context.Context, ix *index.Index, workers int) (Observed, *rawStats, error) {
	meta := ix.Meta()
	obs := Observed{
		Docs: meta.Docs, Terms: meta.Terms, Postings: meta.Postings, Tokens: meta.Tokens,
		Order: meta.Order, Codec: meta.DocIDCodec, BitsPerDocID: meta.BitsPerDocID(), BitsPerFreq: meta.BitsPerFreq(),
	}
	raw := &rawStats{lens: ix.DocLens()}
	for _, l := range raw.lens {
		if l == 0 {
			obs.EmptyDocs++
		}
	}
	nt := ix.NumTerms()
	raw.cfs = make([]float64, nt)
	raw.dfs = make([]uint32, nt)
	n := float64(meta.Docs)
	accs := make([]listStats, workers)
	errs := make([]error, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var docs, tfs []uint32
			for {
				i := int(next.Add(256) - 256)
				if i >= nt || ctx.Err() != nil {
					return
				}
				for t := i; t < min(nt, i+256); t++ {
					info := ix.Term(t)
					raw.cfs[t], raw.dfs[t] = float64(info.CF), info.DF
					c := ix.Cursor(info)
					docs, tfs = docs[:0], tfs[:0]
					for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
						docs = append(docs, d)
						tfs = append(tfs, c.Freq())
					}
					if err := c.Err(); err != nil {
						errs[w] = fmt.Errorf("gen: fit: %w", err)
						return
					}
					accs[w].add(docs, tfs, n)
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return obs, nil, err
	}
	for i := range accs {
		raw.ls.merge(&accs[i])
	}
	obs.fill(raw)
	return obs, raw, nil
}

// fill sets the statistics derived from the lists.
func (o *Observed) fill(raw *rawStats) {
	if p := raw.ls.postings; p > 0 {
		o.MeanLog2Gap = float64(raw.ls.log2Gap) / fixedOne / float64(p)
		o.MeanLog2GapRandom = float64(raw.ls.log2Rand) / fixedOne / float64(p)
		o.TFShare = o.TFShare[:0]
		for _, v := range raw.ls.tf {
			o.TFShare = append(o.TFShare, float64(v)/float64(p))
		}
	}
	o.Lists = listBuckets(raw.dfs, raw.ls.postings)
}

// simulate draws a collection of n documents with p, in memory, and
// returns its statistics.
func simulate(ctx context.Context, p Params, n int, seed uint64, workers int) (*rawStats, error) {
	m, err := newModel(p, n, seed, workers)
	if err != nil {
		return nil, err
	}
	raw := &rawStats{}
	cfs := make([]float64, m.total)
	dfs := make([]uint32, m.total)
	local := make([][]uint32, workers)
	accs := make([]listStats, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newTermGen(m, nil)
			lens := make([]uint32, n)
			local[w] = lens
			for {
				lo := next.Add(64) - 64
				if lo >= m.total || ctx.Err() != nil {
					return
				}
				for t := lo; t < min(m.total, lo+64); t++ {
					docs, tfs := g.list(seed, t)
					cf := 0.0
					for i, d := range docs {
						lens[d] += tfs[i]
						cf += float64(tfs[i])
					}
					cfs[t], dfs[t] = cf, uint32(len(docs))
					if len(docs) > 0 {
						accs[w].add(docs, tfs, float64(n))
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw.lens = local[0]
	sumParallel(raw.lens, local[1:], workers)
	for t, df := range dfs {
		if df > 0 {
			raw.cfs = append(raw.cfs, cfs[t])
			raw.dfs = append(raw.dfs, df)
		}
	}
	for i := range accs {
		raw.ls.merge(&accs[i])
	}
	return raw, nil
}

// randomLog2Gap is E[log2 G] for d-gaps G of a list of density p placed at
// random: G is geometric, P(G = g) = p (1-p)^(g-1).
func randomLog2Gap(p float64) float64 {
	if p >= 1 {
		return 0
	}
	if p < 1e-4 {
		// log2 G ~ log2(E/p) for E exponential: log2(1/p) - gamma/ln 2.
		return math.Log2(1/p) - 0.5772156649015329/math.Ln2
	}
	sum, q, pr := 0.0, 1-p, p
	for g := 1.0; pr > 1e-15 || g < 4; g++ {
		sum += pr * math.Log2(g)
		pr *= q
	}
	return sum
}

// listBuckets is the df distribution in powers of two.
func listBuckets(dfs []uint32, postings uint64) []ListBucket {
	var out []ListBucket
	for lo := uint64(1); ; lo *= 2 {
		hi := 2*lo - 1
		var terms, post uint64
		more := false
		for _, df := range dfs {
			switch {
			case uint64(df) >= lo && uint64(df) <= hi:
				terms++
				post += uint64(df)
			case uint64(df) > hi:
				more = true
			}
		}
		if terms > 0 {
			out = append(out, ListBucket{MinDF: uint32(lo), MaxDF: uint32(min(hi, math.MaxUint32)),
				TermShare: float64(terms) / float64(len(dfs)), PostingShare: float64(post) / float64(postings)})
		}
		if !more {
			return out
		}
	}
}

// fitLogNormal fits the log-normal law of the lengths of the documents
// that are not empty: mu is the mean of ln(length), and sigma is chosen so
// that the law's mean exp(mu + sigma^2/2) is the mean length, so that a
// synthetic collection has as many tokens (and about as many postings)
// as the real one even where the real upper tail is heavier than
// log-normal. When the lengths are log-normal this agrees with the
// standard deviation of ln(length).
func fitLogNormal(lens []uint32) (mu, sigma float64) {
	var s, sum, k float64
	for _, l := range lens {
		if l > 0 {
			s += math.Log(float64(l))
			sum += float64(l)
			k++
		}
	}
	if k == 0 {
		return 0, 0
	}
	mu = s / k
	return mu, math.Sqrt(max(0, 2*(math.Log(sum/k)-mu)))
}

// fitHeaps fits V = K T^beta to the expected vocabulary of random samples
// of the documents: a sample of a fraction q holds term t unless it misses
// all of t's df documents, so V(q) = sum_t 1 - (1-q)^df and T(q) = q T.
// This uses only the lexicon and does not depend on the docid order.
func fitHeaps(dfs []uint32, docs uint64, tokens float64) (k, beta float64) {
	qmin := max(16/float64(docs), 1e-3)
	const points = 16
	var xs, ys []float64
	for i := range points {
		q := math.Exp(math.Log(qmin) * float64(points-1-i) / float64(points-1))
		l1q := math.Log1p(-q)
		v := 0.0
		for _, df := range dfs {
			if q == 1 {
				v++
			} else {
				v -= math.Expm1(float64(df) * l1q)
			}
		}
		xs = append(xs, math.Log(q*tokens))
		ys = append(ys, math.Log(v))
	}
	slope, icept := leastSquares(xs, ys)
	return math.Exp(icept), slope
}

func leastSquares(xs, ys []float64) (slope, intercept float64) {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return slope, (sy - slope*sx) / n
}

// fitTFTail is the maximum-likelihood a of the burst law, truncated to
// 1..tfCap, on the frequencies of lists with df <= N/16 (in longer lists
// several bursts often share a document). hist[f] counts frequency f;
// hist[0] counts those above tfCap.
func fitTFTail(hist []uint64) float64 {
	ll := func(a float64) float64 {
		z := 1 - math.Pow(tfCap+1, -a)
		s := 0.0
		for f := 1; f <= tfCap; f++ {
			pf := (math.Pow(float64(f), -a) - math.Pow(float64(f+1), -a)) / z
			s += float64(hist[f]) * math.Log(pf)
		}
		return s
	}
	return goldenMax(ll, 0.3, 20, 1e-4)
}

// goldenMax maximises a unimodal function on [lo, hi].
func goldenMax(f func(float64) float64, lo, hi, tol float64) float64 {
	const phi = 0.6180339887498949
	a, b := lo, hi
	c, d := b-phi*(b-a), a+phi*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol {
		if fc > fd {
			b, d, fd = d, c, fc
			c = b - phi*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + phi*(b-a)
			fd = f(d)
		}
	}
	return (a + b) / 2
}

// zipfHead is the last rank the Zipf slope is measured on: the head of
// the curve, before its knee (which lies past rank 800 in every fit so
// far), where the exponent is the classic Zipf exponent.
const zipfHead = 256

// zipfSlope is minus the least-squares slope of ln cf over ln rank, at
// log-spaced ranks up to zipfHead whose frequency is at least 4 (below
// that, sorted frequencies are order statistics of a few occurrences).
func zipfSlope(cfs []float64) (float64, error) {
	sorted := slices.Clone(cfs)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
	var xs, ys []float64
	last := 0
	for r := 1.0; int(r) <= min(len(sorted), zipfHead) && sorted[int(r)-1] >= 4; r *= 1.05 {
		if int(r) != last {
			last = int(r)
			xs = append(xs, math.Log(r))
			ys = append(ys, math.Log(sorted[last-1]))
		}
	}
	if len(xs) < 3 {
		return 0, errors.New("gen: fit: too few frequent terms to fit the rank-frequency curve")
	}
	slope, _ := leastSquares(xs, ys)
	return -slope, nil
}
