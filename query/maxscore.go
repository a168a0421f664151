package query

import (
	"cmp"
	bits64 "math/bits"
	"slices"
	"unsafe"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/prefetch"
)

// maxScoreQuery is disjunctive DAAT with MaxScore pruning (Turtle and
// Flood). The lists are ordered by bound, smallest first; the longest
// prefix whose bounds add up to no more than the threshold is
// "non-essential": a document found only there cannot enter the heap. The
// essential lists are traversed as in an exhaustive OR; each candidate is
// then completed from the non-essential lists, largest bound first, with
// NextGEQ, and dropped as soon as its partial score plus the bounds of the
// lists not yet probed cannot beat the threshold.
//
// A single essential list (the common case once the heap fills) is
// scanned in place (scanOne). Several are read a window of docids at a
// time (maxScore.window): each list's postings in the window are scored
// in a loop of their own, then the window's candidates are completed in
// docid order. The threshold only rises when a document enters the heap, so
// the essential lists are recounted only then.
func maxScoreQuery(s *search) error {
	// scores, by query position: the candidate's term scores, 0 for a
	// list that does not hold it. Adding a 0 leaves a float32 sum
	// unchanged, so summing them all is the query-order sum of the lists
	// that hold it.
	ls, upTo, scores := s.scratch(len(s.lists))
	copy(ls, s.lists)
	// (sort.SliceStable would allocate a reflective swapper per query.)
	slices.SortStableFunc(ls, func(a, b *termList) int { return cmp.Compare(a.bound, b.bound) })
	upTo = upTo[:len(ls)] // upTo[i]: sum of the bounds of ls[:i+1]
	var acc float64
	for i, l := range ls {
		acc += l.bound
		upTo[i] = acc
	}
	m := &maxScore{s: s, ls: ls, upTo: upTo}
	defer func() { s.stats.PostingsScored += m.scored }()
	// Under a floor (segments.go) some lists may be non-essential from
	// the start.
	if !m.recount() {
		return nil
	}
	// The lists open lazily: the essential ones move onto their first
	// posting, the others are only ever sought (NextGEQ), which decodes
	// no block they skip, the first included. Lists only ever turn
	// non-essential, so an essential list's docid is always real.
	d := index.NoMoreDocs
	for _, l := range ls[m.first:] {
		d = min(d, l.Next())
	}
	for d != index.NoMoreDocs {
		if m.first < len(ls)-1 {
			var err error
			if d, err = m.window(d); err != nil {
				return err
			}
			continue
		}
		if err := s.tick(); err != nil {
			return err
		}
		// One essential list, which holds every candidate: four in five
		// on all RFCs. Most fail on its score alone: scan to the first
		// that does not.
		l := ls[m.first]
		if l.DocID() != d {
			// d came from a list that has just turned non-essential: the
			// others' bounds alone cannot enter.
			d = l.DocID()
			continue
		}
		x, sc, n, err := s.scanOne(l, m.rest)
		m.scored += n
		if err != nil {
			return err
		}
		if d = x; d == index.NoMoreDocs {
			break
		}
		scores[l.pos] = sc
		next := l.Next()
		if !m.complete(d, m.first, float64(sc), scores) {
			return nil
		}
		if len(scores) <= inline {
			// scores is s.scoreBuf's prefix: a few stores zero the
			// array, where clear on a slice calls memclr per candidate.
			s.scoreBuf = [inline]float32{}
		} else {
			clear(scores)
		}
		// A list that just turned non-essential may hold next, and every
		// essential list's next docid is >= next: nothing is passed over.
		d = next
	}
	return nil
}

// maxScore is the state of one MaxScore search.
type maxScore struct {
	s      *search
	ls     []*termList // by bound, smallest first
	upTo   []float64   // upTo[i]: the sum of the bounds of ls[:i+1]
	first  int         // ls[:first] are non-essential
	rest   float64     // the sum of the non-essential lists' bounds
	scored int64       // postings scored
	size   int         // the next window's length in docids (window)
}

// recount moves first past the lists that the threshold has made
// non-essential; it reports false when none is left essential, when not
// even a document in every list could enter.
func (m *maxScore) recount() bool {
	for m.first < len(m.ls) && !m.s.canEnter(m.upTo[m.first]) {
		m.first++
	}
	if m.first == len(m.ls) {
		return false
	}
	m.rest = 0
	if m.first > 0 {
		m.rest = m.upTo[m.first-1]
	}
	return true
}

// complete completes candidate d, whose scores in the lists from ls[from]
// on are in scores (by query position) and add up to partial, from the
// lists before from, largest bound first, and offers it to the heap
// unless the bounds rule it out first. It reports false when the
// threshold has risen so that nothing more can enter.
func (m *maxScore) complete(d uint32, from int, partial float64, scores []float32) bool {
	s := m.s
	var norm float32
	if from > 0 {
		norm = s.norms[d]
	}
	for i := from - 1; i >= 0; i-- {
		if !s.canEnter(partial + m.upTo[i]) {
			return true
		}
		if l := m.ls[i]; l.NextGEQ(d) == d {
			sc := s.params.TermScore(l.idf, l.Freq(), norm)
			m.scored++
			scores[l.pos] = sc
			partial += float64(sc)
		}
	}
	var sum float32
	for _, sc := range scores {
		sum += sc
	}
	thr := s.thr
	s.push(Hit{DocID: d, Score: sum})
	return s.thr == thr || m.recount()
}

// windowDocs is the longest window (maxScore.window) in docids: each
// list's scores of a window take 4 KiB, so that those of a query's
// essential lists stay in the L1 and L2 caches.
const windowDocs = 1024

// minWindow is the length of a first window, and of the next after the
// threshold has made a list non-essential: the essential lists are fixed
// for a window, so that a window too long for a rising threshold would
// score postings a list turned non-essential no longer needs. The length
// doubles from window to window while they stay the same.
const minWindow = 64

// window scores the postings of the essential lists ls[first:] in a
// window of docids from d, the smallest docid among them, and completes
// the window's candidates in docid order. It returns the next window's
// first docid (NoMoreDocs when the lists are done or nothing more can
// enter).
//
// Each list's postings in the window are scored in a loop of their own
// over its decoded blocks, into s.win: the score and a presence bit by
// query position, and their sum by document. Where several lists are
// essential (most of a query's postings on the RFC passages), going a
// candidate at a time cost a compare, a call and a move per list and
// candidate; here a candidate costs its sum's load, and its probes.
func (m *maxScore) window(d uint32) (uint32, error) {
	s, ls := m.s, m.ls
	n := len(s.lists)
	const words = windowDocs / 64
	w := &s.win
	if len(w.bits) < n*words {
		w.bits = make([]uint64, n*words)
		w.scores = make([]float32, n*windowDocs)
		w.sums = make([]float64, windowDocs)
	}
	bits, scores, sums := w.bits[:n*words], w.scores[:n*windowDocs], w.sums[:windowDocs]
	clear(bits)
	var seen [words]uint64 // the window's candidates
	base := d
	if m.size == 0 {
		m.size = minWindow
	}
	end := min(uint64(base)+uint64(m.size), uint64(index.NoMoreDocs))
	ahead := len(s.norms) > prefetchDocs // see normsAhead
	norms, p := s.norms, s.params
	first := m.first
	// Each posting records its score and presence, and adds the score to
	// its docid's sum, which starts over where the docid is not yet seen
	// (its old value, a finite sum of an earlier window, times 0) without
	// a branch.
	for _, l := range ls[first:] {
		pb := bits[l.pos*words : (l.pos+1)*words : (l.pos+1)*words]
		ps := scores[l.pos*windowDocs : (l.pos+1)*windowDocs : (l.pos+1)*windowDocs]
		for uint64(l.DocID()) < end {
			docs, freqs, ok := l.Rest()
			if !ok {
				// Deleted documents to skip: a posting at a time.
				x := l.DocID()
				k := (x - base) % windowDocs
				sc := p.TermScore(l.idf, l.Freq(), norms[x])
				b := uint64(1) << (k % 64)
				pb[k/64] |= b
				ps[k] = sc
				sums[k] = sums[k]*float64(seen[k/64]&b>>(k%64)) + float64(sc)
				seen[k/64] |= b
				m.scored++
				l.Next()
				continue
			}
			freqs = freqs[:len(docs)]
			i := 0
			for ; i < len(docs) && uint64(docs[i]) < end; i++ {
				x := docs[i]
				if ahead && i+normsAhead < len(docs) {
					prefetch.T0(unsafe.Pointer(&norms[docs[i+normsAhead]]))
				}
				k := (x - base) % windowDocs
				sc := p.TermScore(l.idf, freqs[i]+1, norms[x])
				b := uint64(1) << (k % 64)
				pb[k/64] |= b
				ps[k] = sc
				sums[k] = sums[k]*float64(seen[k/64]&b>>(k%64)) + float64(sc)
				seen[k/64] |= b
			}
			m.scored += int64(i)
			l.Advance(i)
			if i < len(docs) {
				break
			}
		}
	}
	for wi, c := range seen {
		for c != 0 {
			if err := s.tick(); err != nil {
				return 0, err
			}
			k := wi*64 + bits64.TrailingZeros64(c)
			c &= c - 1
			b := uint64(1) << (k % 64)
			d := base + uint32(k)
			// Complete d from the non-essential lists, largest bound
			// first, while the bounds let it enter.
			partial := sums[k]
			var norm float32
			if first > 0 {
				norm = norms[d]
			}
			i := first - 1
			for ; i >= 0 && s.canEnter(partial+m.upTo[i]); i-- {
				if l := ls[i]; l.NextGEQ(d) == d {
					sc := p.TermScore(l.idf, l.Freq(), norm)
					m.scored++
					bits[l.pos*words+wi] |= b
					scores[l.pos*windowDocs+k] = sc
					partial += float64(sc)
				}
			}
			if i >= 0 {
				continue // ruled out
			}
			// Its score: the query-order sum of the lists holding it.
			var sum float32
			for pos := range n {
				if bits[pos*words+wi]&b != 0 {
					sum += scores[pos*windowDocs+k]
				}
			}
			thr := s.thr
			s.push(Hit{DocID: d, Score: sum})
			if s.thr != thr && !m.recount() {
				return index.NoMoreDocs, nil
			}
		}
	}
	if m.first == first {
		m.size = min(2*m.size, windowDocs)
	} else {
		m.size = minWindow
	}
	next := index.NoMoreDocs
	for _, l := range ls[m.first:] {
		next = min(next, l.DocID())
	}
	return next, nil
}

// scanOne moves l, the only essential list, from its current posting to
// the first whose score plus rest, the non-essential lists' bounds, could
// enter the heap, and returns that posting's docid and score (NoMoreDocs
// past the end) and how many postings it scored. It reads the decoded
// blocks in place (index.Cursor.Rest): the rejected postings, most of a
// query's, cost a score and a compare each (canEnter's, with the
// threshold, which does not move here, held in registers).
func (s *search) scanOne(l *termList, rest float64) (uint32, float32, int64, error) {
	var n int64
	slack, thr, norms, p := s.slack, s.thr, s.norms, s.params
	ahead := len(norms) > prefetchDocs // see normsAhead
	for {
		if err := s.tick(); err != nil {
			return 0, 0, n, err
		}
		docs, freqs, ok := l.Rest()
		if !ok {
			d := l.DocID()
			if d == index.NoMoreDocs {
				return d, 0, n, nil
			}
			sc := p.TermScore(l.idf, l.Freq(), norms[d])
			n++
			if (float64(sc)+rest)*slack > thr {
				return d, sc, n, nil
			}
			l.Next()
			continue
		}
		freqs = freqs[:len(docs)]
		for i, d := range docs {
			if ahead && i+normsAhead < len(docs) {
				prefetch.T0(unsafe.Pointer(&norms[docs[i+normsAhead]]))
			}
			sc := p.TermScore(l.idf, freqs[i]+1, norms[d])
			if (float64(sc)+rest)*slack > thr {
				l.Advance(i)
				return d, sc, n + int64(i) + 1, nil
			}
		}
		n += int64(len(docs))
		l.Advance(len(docs))
	}
}

// orWindow holds a MaxScore window's scores (maxScore.window).
type orWindow struct {
	bits   []uint64  // presence: windowDocs/64 words a query position
	scores []float32 // windowDocs a query position
	sums   []float64 // by docid in the window: its scores' sum
}
