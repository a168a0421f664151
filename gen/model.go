package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Stream salts keep the random streams of different uses apart; every
// stream is a PCG seeded from (seed, salt, index), so that what a stream
// yields does not depend on which goroutine draws it.
const (
	saltTerm    = 0x7465726d // one stream per term id
	saltWeights = 0x77676874 // one stream per chunk of document weights
	saltSites   = 0x73697465
	saltTail    = 0x7461696c
	saltPerm    = 0x7065726d
	saltQuery   = 0x71756572
)

// splitmix64 is a bijective 64-bit mixer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// streamSeeds are the PCG seeds of the random stream (seed, salt, i).
func streamSeeds(seed, salt, i uint64) (uint64, uint64) {
	return splitmix64(seed ^ splitmix64(salt)), splitmix64(i + splitmix64(salt^seed))
}

// stream returns the random source for (seed, salt, i).
func stream(seed, salt, i uint64) *rand.PCG {
	return rand.NewPCG(streamSeeds(seed, salt, i))
}

// capDivisor bounds a burst: no single burst in a document of expected
// length w exceeds max(1, w/capDivisor) occurrences, so that a short
// document is not made long by one unlucky burst.
const capDivisor = 4

// groupSize is the number of consecutive documents that share one weight
// (expected length). Drawing a burst's document is then a search over
// groups, an array small enough to stay in cache, plus a division; the
// pages of one group, like the pages of one directory of a site, have
// similar lengths.
const groupSize = 32

// weightChunk is the number of groups per random stream of weights.
const weightChunk = 1 << 12

// model is one collection being generated: its documents, sites and
// rank-frequency curve. It is read-only once built and shared by workers.
type model struct {
	p       Params
	n       int
	prefix  []float64 // cumulative burst weight u of the groups: group g is [prefix[g], prefix[g+1])
	du      []float64 // burst weight of each document of a group
	caps    []uint32  // largest burst in a document of each group
	sites   []uint32  // S+1 site boundaries (docids); site i is [sites[i], sites[i+1])
	u, w    float64   // total burst weight and total expected tokens
	sp      spectrum
	ranked  int64 // term ids [0, ranked) follow the curve; ids past it are single bursts
	tail    int64 // number of single-burst terms past the curve's last enumerated rank
	total   int64 // ranked + tail: the term id space
	burstTh [burstTable]float64
	// allN and allU summarise every document's burst weight as a
	// histogram (documents per bin, their mean weight), for terms whose
	// home is the whole collection.
	allN, allU []float64
}

// burstTable is how many burst sizes are drawn by table lookup; larger
// ones (about 2% of bursts with a = 1.47) by a power.
const burstTable = 32

// tailEps is the expected number of bursts below which a rank is no longer
// drawn one by one: the terms past it appear at most once in practice and
// are generated as single bursts, their number drawn in one go.
const tailEps = 1.0 / 16

// newModel lays out n documents and solves the rank-frequency curve.
func newModel(p Params, n int, seed uint64, workers int) (*model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || n > math.MaxUint32-1 {
		return nil, fmt.Errorf("gen: %d documents: want 1 to %d", n, uint64(math.MaxUint32-1))
	}
	m := &model{p: p, n: n}
	for k := range m.burstTh {
		m.burstTh[k] = math.Pow(float64(max(k, 1)), -p.TFTail) // P(X >= k)
	}
	m.weigh(seed, workers)
	m.histogram()
	m.layoutSites(seed)
	want := p.HeapsK * math.Pow(m.w, p.HeapsBeta)
	sp, err := solveSpectrum(p.ZipfS, p.HeapsBeta, m.u, want)
	if err != nil {
		return nil, err
	}
	m.sp = sp
	r1 := sp.lastRank(m.u, tailEps)
	if r1 > 1<<32 {
		return nil, fmt.Errorf("gen: the vocabulary (%.3g ranks) is too large", r1)
	}
	m.ranked = int64(r1)
	m.tail = poisson(rand.New(stream(seed, saltTail, 0)), sp.tailTerms(m.u, r1))
	m.total = m.ranked + m.tail
	return m, nil
}

// groupDocs is the number of documents in group g (the last may be short).
func (m *model) groupDocs(g int) int { return min(groupSize, m.n-g*groupSize) }

// weigh draws every group's expected document length w (log-normal) and
// derives its burst cap and burst weight u = w / E[min(X, cap)], so that
// the expected number of tokens a document receives is exactly w.
func (m *model) weigh(seed uint64, workers int) {
	ng := (m.n + groupSize - 1) / groupSize
	m.prefix = make([]float64, ng+1)
	m.du = make([]float64, ng)
	m.caps = make([]uint32, ng)
	ez := newZetaTable(m.p.TFTail)
	chunks := (ng + weightChunk - 1) / weightChunk
	ws := make([]float64, chunks)
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				r := rand.New(stream(seed, saltWeights, uint64(c)))
				sum := 0.0
				for g := c * weightChunk; g < min(ng, (c+1)*weightChunk); g++ {
					w := math.Exp(m.p.LenMu + m.p.LenSigma*r.NormFloat64())
					cp := max(uint32(min(w/capDivisor, 1<<30)), 1)
					m.caps[g] = cp
					m.du[g] = w / ez.partial(cp)
					k := float64(m.groupDocs(g))
					m.prefix[g+1] = k * m.du[g] // summed below
					sum += k * w
				}
				ws[c] = sum
			}
		}()
	}
	wg.Wait()
	for g := 1; g <= ng; g++ {
		m.prefix[g] += m.prefix[g-1]
	}
	for _, s := range ws {
		m.w += s
	}
	m.u = m.prefix[ng]
}

// histBins is the number of log-spaced bins of the weight histogram.
const histBins = 1024

// histogram fills allN and allU.
func (m *model) histogram() {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, u := range m.du {
		lo, hi = min(lo, u), max(hi, u)
	}
	n := make([]float64, histBins)
	nu := make([]float64, histBins)
	span := math.Log(hi/lo) + 1e-9
	for g, u := range m.du {
		b := int(math.Log(u/lo) / span * histBins)
		b = min(b, histBins-1)
		k := float64(m.groupDocs(g))
		n[b] += k
		nu[b] += k * u
	}
	m.allN, m.allU = m.allN[:0], m.allU[:0]
	for b := range n {
		if n[b] > 0 {
			m.allN = append(m.allN, n[b])
			m.allU = append(m.allU, nu[b]/n[b])
		}
	}
}

// at is the burst-weight coordinate where document d starts (d may be n).
func (m *model) at(d int) float64 {
	g := d / groupSize
	if g == len(m.du) {
		return m.prefix[g]
	}
	return m.prefix[g] + float64(d-g*groupSize)*m.du[g]
}

// layoutSites cuts the docid range into sites of log-normal sizes.
func (m *model) layoutSites(seed uint64) {
	r := rand.New(stream(seed, saltSites, 0))
	m.sites = append(m.sites[:0], 0)
	for start := 0; start < m.n; {
		size := int(math.Round(math.Exp(m.p.SiteMu + m.p.SiteSigma*r.NormFloat64())))
		size = max(1, min(size, m.n-start))
		start += size
		m.sites = append(m.sites, uint32(start))
	}
}

// numSites is S.
func (m *model) numSites() int { return len(m.sites) - 1 }

// zetaTable gives E[min(X, c)] = sum_{k=1..c} k^-a for the burst law
// P(X >= k) = k^-a.
type zetaTable struct {
	a    float64
	sums []float64 // sums[c] for c < len
}

const zetaExact = 4096

func newZetaTable(a float64) *zetaTable {
	z := &zetaTable{a: a, sums: make([]float64, zetaExact+1)}
	for k := 1; k <= zetaExact; k++ {
		z.sums[k] = z.sums[k-1] + math.Pow(float64(k), -a)
	}
	return z
}

// partial is sum_{k=1..c} k^-a (Euler-Maclaurin past the table).
func (z *zetaTable) partial(c uint32) float64 {
	if int(c) < len(z.sums) {
		return z.sums[c]
	}
	n0, x := float64(zetaExact), float64(c)
	var integral float64
	if z.a == 1 {
		integral = math.Log(x / n0)
	} else {
		integral = (math.Pow(x, 1-z.a) - math.Pow(n0, 1-z.a)) / (1 - z.a)
	}
	return z.sums[zetaExact] + integral + (math.Pow(x, -z.a)-math.Pow(n0, -z.a))/2
}

// poisson draws a Poisson variate (normal approximation past a mean of 64).
func poisson(r *rand.Rand, mean float64) int64 {
	if mean <= 0 {
		return 0
	}
	if mean > 64 {
		return max(0, int64(math.Round(mean+math.Sqrt(mean)*r.NormFloat64())))
	}
	l, k, p := math.Exp(-mean), int64(0), 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// defaultWorkers is the number of generating goroutines when none is set.
func defaultWorkers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}
