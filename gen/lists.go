package gen

import (
	"math"
	"math/rand/v2"
	"slices"
)

// termGen draws posting lists. Each worker owns one; the lists it returns
// stay valid until its next call.
type termGen struct {
	m             *model
	pcg           rand.PCG
	r             *rand.Rand
	bgDocs, bgTFs []uint32
	fgDocs, fgTFs []uint32
	docs, tfs     []uint32
	chosen        []uint32  // home sites
	chosenBits    []uint64  // membership bitmap over sites
	hgN, hgU      []float64 // home documents per weight group, and its weight
	ownN, ownU    []float64 // the buffers behind hgN, hgU (which may be the model's)
	packed        []uint64  // scratch for reordering
	perm          []uint32  // old docid -> new docid, or nil for URL order
	hint          int       // galloping start for locate (a group)
	expected      float64   // expected bursts of the last list drawn
}

// keepPostings is the longest list whose buffers a termGen keeps for the
// next list.
const keepPostings = 1 << 20

func newTermGen(m *model, perm []uint32) *termGen {
	g := &termGen{m: m, perm: perm, chosenBits: make([]uint64, (m.numSites()+63)/64)}
	g.r = rand.New(&g.pcg)
	return g
}

// list draws the posting list of term id t, in docid order (after the
// permutation, if any). The list is empty when the term does not occur.
func (g *termGen) list(seed uint64, t int64) (docs, tfs []uint32) {
	m := g.m
	g.pcg.Seed(streamSeeds(seed, saltTerm, uint64(t)))
	if cap(g.docs) > keepPostings {
		// The last list was one of the few long ones: let its buffers go
		// rather than hold them in every worker for the whole run.
		g.bgDocs, g.bgTFs, g.fgDocs, g.fgTFs, g.packed = nil, nil, nil, nil, nil
		g.docs, g.tfs = nil, nil
	}
	g.docs, g.tfs = g.docs[:0], g.tfs[:0]
	if t >= m.ranked {
		// A tail term: one burst in a document drawn by weight.
		x := g.r.Float64() * m.u
		g.hint = 0
		g.expected = 1
		d := g.locate(x)
		g.docs = append(g.docs, uint32(d))
		g.tfs = append(g.tfs, g.burst(d))
		return g.reorder()
	}
	rate := m.sp.f(float64(t + 1)) // bursts per unit of burst weight
	bursts := rate * m.u
	g.expected = bursts
	home := m.p.Locality * bursts
	if home == 0 {
		g.process(0, m.n, rate, &g.docs, &g.tfs)
		return g.reorder()
	}
	// Home sites: enough documents for the home bursts at the home
	// density, or all.
	need := home / m.p.HomeDensity
	var homeDocs float64
	if need >= float64(m.n)/2 {
		g.chosen = g.chosen[:0]
		for s := range m.numSites() {
			g.chosen = append(g.chosen, uint32(s))
		}
		g.hgN, g.hgU = m.allN, m.allU
		homeDocs = float64(m.n)
	} else {
		g.chooseSites(need)
		homeDocs = g.homeGroups()
	}
	// In its home sites the term is present in a document with
	// probability 1 - exp(-fg*u) and then gets one burst: Poisson points
	// at rate fg, keeping the first per document. fg is solved so that the
	// expected number of present documents is the home bursts, up to
	// maxPresence of the home documents; what is left over joins the
	// background, so that the term's expected token count is unchanged.
	target := min(home, maxPresence*homeDocs)
	fg := g.solvePresence(target)
	g.process(0, m.n, rate*(1-m.p.Locality)+(home-target)/m.u, &g.bgDocs, &g.bgTFs)
	g.fgDocs, g.fgTFs = g.fgDocs[:0], g.fgTFs[:0]
	for _, s := range g.chosen {
		g.appendProcess(int(m.sites[s]), int(m.sites[s+1]), fg, true, &g.fgDocs, &g.fgTFs)
	}
	g.merge()
	return g.reorder()
}

// homeGroups lists, for the chosen sites, how many of their documents
// fall in each weight group and that group's burst weight, and returns the
// number of home documents.
func (g *termGen) homeGroups() float64 {
	m := g.m
	g.hgN, g.hgU = g.ownN[:0], g.ownU[:0]
	defer func() { g.ownN, g.ownU = g.hgN, g.hgU }()
	docs := 0
	for _, s := range g.chosen {
		lo, hi := int(m.sites[s]), int(m.sites[s+1])
		docs += hi - lo
		for d := lo; d < hi; {
			grp := d / groupSize
			end := min(hi, (grp+1)*groupSize)
			g.hgN = append(g.hgN, float64(end-d))
			g.hgU = append(g.hgU, m.du[grp])
			d = end
		}
	}
	return float64(docs)
}

// solvePresence finds the rate fg at which the expected number of home
// documents holding the term, D(fg) = sum n*(1 - exp(-fg*u)), is target.
// D is increasing and concave, so Newton's method started at 0 climbs to
// the root from below.
func (g *termGen) solvePresence(target float64) float64 {
	fg := 0.0
	for range 50 {
		var d, dd float64
		for i, n := range g.hgN {
			x := fg * g.hgU[i]
			e := 1 - x // exp(-x) to within 5e-9
			if x > 1e-4 {
				e = math.Exp(-x)
			}
			d += n * (1 - e)
			dd += n * g.hgU[i] * e
		}
		if dd == 0 || target-d <= 1e-4*target {
			break
		}
		fg += (target - d) / dd
	}
	return fg
}

// maxPresence is the largest share of its home documents a term is
// present in through its home bursts.
const maxPresence = 0.9

// process draws a Poisson process of bursts at rate (per unit of burst
// weight) over documents [lo, hi) into fresh lists; a document's frequency
// is the sum of the bursts that land in it.
func (g *termGen) process(lo, hi int, rate float64, docs, tfs *[]uint32) {
	*docs, *tfs = (*docs)[:0], (*tfs)[:0]
	g.appendProcess(lo, hi, rate, false, docs, tfs)
}

// appendProcess is process appending to the lists; lo must not be below
// the last document already in them. With first, a document keeps only
// the first burst that lands in it.
func (g *termGen) appendProcess(lo, hi int, rate float64, first bool, docs, tfs *[]uint32) {
	if rate <= 0 {
		return
	}
	m := g.m
	end := m.at(hi)
	x := m.at(lo) + g.r.ExpFloat64()/rate
	g.hint = lo / groupSize
	for x < end {
		d := g.locate(x)
		if n := len(*docs); n > 0 && (*docs)[n-1] == uint32(d) {
			if !first {
				(*tfs)[n-1] += g.burst(d)
			}
		} else {
			b := g.burst(d)
			*docs = append(*docs, uint32(d))
			*tfs = append(*tfs, b)
		}
		x += g.r.ExpFloat64() / rate
	}
}

// locate returns the document whose burst-weight interval holds x,
// galloping over the groups forward from the previous answer.
func (g *termGen) locate(x float64) int {
	m := g.m
	p := m.prefix
	ng := len(m.du)
	lo := g.hint // p[lo] <= x
	if lo+1 < ng && p[lo+1] <= x {
		step := 1
		for lo+step < ng && p[lo+step] <= x {
			lo += step
			step *= 2
		}
		hi := min(lo+step, ng) // p[hi] > x, or hi == ng
		for hi-lo > 1 {
			mid := int(uint(lo+hi) >> 1)
			if p[mid] <= x {
				lo = mid
			} else {
				hi = mid
			}
		}
		g.hint = lo
	}
	off := int((x - p[lo]) / m.du[lo])
	return lo*groupSize + min(max(off, 0), m.groupDocs(lo)-1)
}

// burst draws one burst size for document d: P(X >= k) = k^-a, capped.
// X >= k exactly when a uniform variate V <= k^-a: small sizes come from
// the table of k^-a, large ones (V below the table) from V^(-1/a).
func (g *termGen) burst(d int) uint32 {
	m := g.m
	v := 1 - g.r.Float64() // (0, 1]
	k := uint32(1)
	for k+1 < burstTable && v <= m.burstTh[k+1] {
		k++
	}
	if k == burstTable-1 {
		k = uint32(min(math.Floor(math.Pow(v, -1/m.p.TFTail)), 1<<30))
	}
	return min(k, m.caps[d/groupSize])
}

// chooseSites picks distinct sites, each with probability proportional
// to its size (the site of a uniformly drawn document), until they hold at
// least need documents (need is below half the collection), into
// g.chosen, sorted.
func (g *termGen) chooseSites(need float64) {
	m := g.m
	g.chosen = g.chosen[:0]
	docs := 0.0
	for docs < need {
		d := uint32(g.r.IntN(m.n))
		s, _ := slices.BinarySearch(m.sites, d+1) // sites[s-1] <= d < sites[s]
		s--
		if g.chosenBits[s>>6]&(1<<(s&63)) != 0 {
			continue
		}
		g.chosenBits[s>>6] |= 1 << (s & 63)
		g.chosen = append(g.chosen, uint32(s))
		docs += float64(m.sites[s+1] - m.sites[s])
	}
	for _, s := range g.chosen {
		g.chosenBits[s>>6] = 0
	}
	slices.Sort(g.chosen)
}

// merge adds the background and home lists into g.docs/g.tfs.
func (g *termGen) merge() {
	i, j := 0, 0
	for i < len(g.bgDocs) || j < len(g.fgDocs) {
		switch {
		case j == len(g.fgDocs) || (i < len(g.bgDocs) && g.bgDocs[i] < g.fgDocs[j]):
			g.docs = append(g.docs, g.bgDocs[i])
			g.tfs = append(g.tfs, g.bgTFs[i])
			i++
		case i == len(g.bgDocs) || g.fgDocs[j] < g.bgDocs[i]:
			g.docs = append(g.docs, g.fgDocs[j])
			g.tfs = append(g.tfs, g.fgTFs[j])
			j++
		default:
			g.docs = append(g.docs, g.bgDocs[i])
			g.tfs = append(g.tfs, g.bgTFs[i]+g.fgTFs[j])
			i++
			j++
		}
	}
}

// reorder maps the list through the docid permutation and sorts it.
func (g *termGen) reorder() ([]uint32, []uint32) {
	if g.perm == nil {
		return g.docs, g.tfs
	}
	g.packed = g.packed[:0]
	for i, d := range g.docs {
		g.packed = append(g.packed, uint64(g.perm[d])<<32|uint64(g.tfs[i]))
	}
	slices.Sort(g.packed)
	for i, p := range g.packed {
		g.docs[i], g.tfs[i] = uint32(p>>32), uint32(p)
	}
	return g.docs, g.tfs
}
