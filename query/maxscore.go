package query

import (
	"cmp"
	"math"
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
// Several essential lists are read a window of docids at a time
// (windowed, window), or, in a segment with deletions, a candidate at a
// time: one pass over them scores the candidate, moves the lists standing
// on it and finds the next. A single essential list (the common case once
// the heap fills) holds every candidate to the end, and its decoded
// blocks are read in place (drive). The threshold only rises when a
// document enters the heap, so the essential lists are recounted only
// then (essential). Where the list with the largest bound is short, its
// documents are scored first (phased, through drive), so that the
// threshold starts close to its final value.
func maxScoreQuery(s *search) error {
	if f := s.phaseFirst(); f != nil {
		return s.phased(f)
	}
	return s.maxScore(s.lists)
}

// maxScore is maxScoreQuery over lists, s.lists or some of them.
func (s *search) maxScore(lists []*termList) error {
	// scores, by query position: the candidate's term scores, 0 for a
	// list that does not hold it. Adding a 0 leaves a float32 sum
	// unchanged, so summing them all is the query-order sum of the lists
	// that hold it.
	ls, upTo, scores := s.byBound(lists, nil)
	var scored int64 // postings scored, added to s.stats on the way out
	defer func() { s.stats.PostingsScored += scored }()
	// ls[:first] are non-essential: under a floor (segments.go) some
	// lists may be from the start.
	first := s.essential(upTo, 0)
	if first == len(ls) {
		return nil
	}
	ahead := len(s.norms) > prefetchDocs
	// The lists open lazily: the essential ones move onto their first
	// posting, the others are only ever sought (NextGEQ), which decodes
	// no block they skip, the first included. Lists only ever turn
	// non-essential, so an essential list's docid is always real.
	d := index.NoMoreDocs
	for _, l := range ls[first:] {
		d = min(d, l.Next())
	}
	// Several essential lists are read a window of docids at a time
	// (window) while more than one is essential.
	win, size := windowed(ls[first:]), minWindow
	for d != index.NoMoreDocs {
		if win && first < len(ls)-1 {
			var n int64
			var err error
			d, first, size, n, err = s.window(ls, upTo, first, d, size)
			scored += n
			if err != nil {
				return err
			}
			continue
		}
		if err := s.tick(); err != nil {
			return err
		}
		if first == len(ls)-1 {
			// One essential list, which holds every candidate to the end
			// (four in five on all RFCs): documents before its docid,
			// found only in lists that have just turned non-essential,
			// cannot enter.
			return s.drive(ls[first], ls[:first], upTo, scores)
		}
		next := index.NoMoreDocs
		var partial float64
		norm := s.norms[d]
		for _, l := range ls[first:] {
			if l.DocID() == d {
				sc := s.params.TermScore(l.idf, l.Freq(), norm)
				scored++
				scores[l.pos] = sc
				partial += float64(sc)
				if ahead {
					// As andQuery does for its driver: on a large
					// collection a norm is a cache miss.
					if a := l.Peek(normsAhead); a != index.NoMoreDocs {
						prefetch.T0(unsafe.Pointer(&s.norms[a]))
					}
				}
				l.Next()
			}
			next = min(next, l.DocID())
		}
		sum, complete, n := s.complete(d, norm, partial, ls[:first], upTo, scores)
		scored += n
		if complete {
			thr := s.thr
			s.push(Hit{DocID: d, Score: sum})
			if s.thr != thr {
				if first = s.essential(upTo, first); first == len(ls) {
					return nil // not even a document in every list can enter
				}
			}
		}
		// A list that just turned non-essential may hold next, and every
		// essential list's next docid is >= next: nothing is passed over.
		d = next
	}
	return nil
}

// byBound returns, in s's scratch, lists but leave (nil: all of them)
// ordered by bound, smallest first, with upTo[i] the sum of the bounds of
// ls[:i+1], and room for scores by query position.
func (s *search) byBound(lists []*termList, leave *termList) (ls []*termList, upTo []float64, scores []float32) {
	ls, upTo, scores = s.scratch(len(s.lists))
	ls = ls[:0]
	for _, l := range lists {
		if l != leave {
			ls = append(ls, l)
		}
	}
	// (sort.SliceStable would allocate a reflective swapper per query.)
	slices.SortStableFunc(ls, func(a, b *termList) int { return cmp.Compare(a.bound, b.bound) })
	upTo = upTo[:len(ls)]
	var acc float64
	for i, l := range ls {
		acc += l.bound
		upTo[i] = acc
	}
	return ls, upTo, scores
}

// complete scores candidate d (norm its norm, partial its score in the
// lists read so far, put in scores by query position) from ls, largest
// bound first, while its score plus the bounds left (upTo) could enter
// the heap. It returns the candidate's score, the query-order sum of
// scores, when it got through every list, and the postings it scored;
// scores is zeroed for the next candidate either way.
func (s *search) complete(d uint32, norm float32, partial float64, ls []*termList, upTo []float64, scores []float32) (sum float32, ok bool, n int64) {
	i := len(ls) - 1
	for ; i >= 0 && s.canEnter(partial+upTo[i]); i-- {
		// A non-essential list, sought only for candidates, mostly
		// stands past this one already, on a docid an earlier candidate
		// led it to: Stands spares NextGEQ's call then. On the RFC
		// passages it took OR top 10 from 548-557 to 531-542 us a query
		// (each query's fastest of 3, in turn; all RFCs even), where
		// the same check inside NextGEQ cost AND 1-3%.
		l := ls[i]
		x := l.DocID()
		if !l.Stands(d) {
			x = l.NextGEQ(d)
		}
		if x == d {
			sc := s.params.TermScore(l.idf, l.Freq(), norm)
			n++
			scores[l.pos] = sc
			partial += float64(sc)
		}
	}
	if ok = i < 0; ok {
		for _, sc := range scores {
			sum += sc
		}
	}
	if len(scores) <= inline {
		// scores is s.scoreBuf's prefix: a few stores zero the array,
		// where clear on a slice calls memclr per candidate.
		s.scoreBuf = [inline]float32{}
	} else {
		clear(scores)
	}
	return sum, ok, n
}

// drive scores l's documents from its current posting to its end into
// the heap, each completed from ls (ordered by bound, smallest first,
// upTo their bounds' prefix sums) as maxScoreQuery completes a candidate:
// l is the only essential list. It reads l's decoded blocks in place and
// stops once no document can enter; scanOne returned each candidate, a
// call and a move apiece, and in the first phase (phased) most of l's
// documents are candidates, the threshold having yet to rise. Against
// scanOne, each query's fastest of 3 passes, in turn (first 1,000
// RFC-title queries, top 10, 2-core dev box): in the first phase OR's
// mean fell from 40.7 to 35.5 us on all RFCs and from 524 to 499 us on
// the RFC passages (median 30.3 -> 27.6 and 255 -> 207); as the last
// essential list from 495 to 459 us on the passages (median 214 -> 196),
// even on all RFCs.
func (s *search) drive(l *termList, ls []*termList, upTo []float64, scores []float32) error {
	var scored int64
	defer func() { s.stats.PostingsScored += scored }()
	var rest float64 // the other lists' bounds
	if len(ls) > 0 {
		rest = upTo[len(ls)-1]
	}
	all := rest + l.bound
	// belowTop bounds a candidate's score in the lists but the one with
	// the largest bound, which complete probes first. Where that list
	// does not hold the candidate and belowTop leaves it out, the loop
	// below moves on without calling complete, whose answer that is:
	// each query's fastest of 5 passes, variants in turn query by query
	// (first 1,000 RFC-title queries, top 10, 2-core dev box), RFC
	// passages OR 0.946-0.953x the time (p50 0.92x), all RFCs 0.96x.
	var belowTop float64
	if len(ls) > 1 {
		belowTop = upTo[len(ls)-2]
	}
	norms := s.norms
	// candidate completes d, of score sc in l, and reports whether a
	// document can still enter.
	candidate := func(d uint32, sc float32) bool {
		scores[l.pos] = sc
		sum, ok, n := s.complete(d, norms[d], float64(sc), ls, upTo, scores)
		scored += n
		if ok {
			s.push(Hit{DocID: d, Score: sum})
		}
		return s.canEnter(all)
	}
	for l.DocID() != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		docs, freqs, ok := l.Rest()
		if !ok {
			// Deleted documents to skip: a posting at a time.
			d, sc, n, err := s.scanOne(l, rest)
			scored += n
			if err != nil || d == index.NoMoreDocs {
				return err
			}
			l.Next()
			if !candidate(d, sc) {
				return nil
			}
			continue
		}
		offs, scs := s.passing(l.idf, docs, freqs, rest)
		for _, i := range offs {
			d, sc := docs[i], scs[i]
			if !s.canEnter(float64(sc) + rest) {
				continue // the threshold rose since passing
			}
			if len(ls) > 1 && ls[len(ls)-1].NextGEQ(d) != d && !s.canEnter(float64(sc)+belowTop) {
				// complete's first probe, here: most candidates end at
				// it, for less than a call.
				continue
			}
			if err := s.tick(); err != nil {
				scored += int64(i) + 1
				return err
			}
			if !candidate(d, sc) {
				scored += int64(i) + 1
				return nil
			}
		}
		scored += int64(len(docs))
		l.Advance(len(docs))
	}
	return nil
}

// passing scores the postings docs (freqs their stored frequencies) of a
// list of idf idf, and returns their scores and, in s's scratch, the
// offsets of those whose score plus rest could enter the heap, in docid
// order. It scores the run at once (bm25.Params.ScoreBlock, eight
// postings an AVX2 instruction) and decides without a branch: which
// postings pass follows no pattern a branch predictor could learn,
// except by heart when one query runs again and again. Queries in turn,
// as a server meets them (the peers harness's order; first 1,000
// RFC-title queries, top 10, each query's fastest of 6 passes, variants
// alternating every 20-50 queries, 2-core dev box): against a branch a
// posting, OR took 0.94-0.95x the time on all RFCs (p50 0.96x) and
// 0.98x on the RFC passages (p50 even); scoring by the block took the
// passages (with the window's loop) to 0.95-0.985x again (p50 0.95x),
// all RFCs even.
func (s *search) passing(idf float32, docs, freqs []uint32, rest float64) (offs []int32, scores []float32) {
	r := &s.pass
	if len(r.offs) < len(docs) {
		r.offs, r.scores = make([]int32, len(docs)), make([]float32, len(docs))
	}
	offs, scores = r.offs[:len(docs)], r.scores[:len(docs)]
	s.params.ScoreBlock(scores, idf, docs, freqs, s.norms)
	thr, slack := s.thr, s.slack
	n := 0
	for i, sc := range scores {
		// Written at n every time, kept by moving n on: the sign of
		// thr - bound*slack is canEnter's answer.
		offs[n] = int32(i)
		n += int(math.Float64bits(thr-(float64(sc)+rest)*slack) >> 63)
	}
	return offs[:n], scores
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
			if ahead && i%normsAhead == 0 {
				prefetchNorms(norms, docs, i)
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

// essential returns the first essential list from first on: the lists
// ls[:i] (upTo their bounds' prefix sums) are non-essential while even a
// document in all of them could not enter the heap. The threshold only
// rises, so the index only moves forward.
func (s *search) essential(upTo []float64, first int) int {
	for first < len(upTo) && !s.canEnter(upTo[first]) {
		first++
	}
	return first
}

// windowRule is when maxScoreQuery reads the essential lists a window at
// a time: when at least lists of them are essential as its loop starts.
// Against a candidate at a time, each query's fastest of 3 passes, the two
// loops in turn (first 1,000 RFC-title queries, top 10, 2-core dev box):
// on the RFC passages (976,612 documents) the mean fell from 589 to 541
// us with windows from two lists on (from 570 to 539 from four on, and
// the same from two lists of 2^10 postings or of any length), the heavy
// queries' most (2,286 -> 1,989 us over the slowest 145), and the
// median not at all; on all RFCs, where the first phase (phased) does
// most of the work, it was even. A candidate costs a pass over every
// essential list, a window a pass over their postings. A variable so
// that the tests can run both loops on small corpora.
var windowRule = struct{ lists int }{2}

// windowed reports whether maxScoreQuery reads the essential lists ls a
// window of docids at a time (window) rather than a candidate at
// a time: when there are enough of them (windowRule), and none has
// deleted documents to skip (the window scores whole decoded blocks,
// index.Cursor.Rest).
func windowed(ls []*termList) bool {
	for _, l := range ls {
		if l.Deletes() {
			return false
		}
	}
	return len(ls) >= windowRule.lists
}

// windowDocs is the longest window (window) in docids: each list's
// scores of a window take 16 KiB, so that those of a query's essential
// lists stay in a core's L2 cache. Against 1,024, each query's fastest
// of 3 passes in turn (first 1,000 RFC-title queries, top 10, 2-core dev
// box with 512 KiB of L2 a core): RFC passages OR 481 -> 464 us, its 145
// slowest queries 1.84 -> 1.75 ms, all RFCs even; 8,192 gained nothing
// more.
const windowDocs = 4096

// windowWords is a window's presence bits in words.
const windowWords = windowDocs / 64

// minWindow is the length of a first window, and of the next after the
// threshold has made a list non-essential: the essential lists are fixed
// for a window, so that a window too long for a rising threshold would
// score postings a list turned non-essential no longer needs. The length
// doubles from window to window while they stay the same.
const minWindow = 64

// passRun is the memory of passing: a block's scores, and the offsets of
// those that pass.
type passRun struct {
	offs   []int32
	scores []float32
}

// orWindow is the memory of MaxScore's windows (window), kept with the
// search for the next query.
type orWindow struct {
	bits   []uint64  // presence: windowDocs/64 words a query position
	scores []float32 // windowDocs a query position
	sums   []float64 // by docid in the window: its scores' sum, 0 between windows
	run    []float32 // the scores of a list's postings in the window, a block at a time
	cand   []uint16  // the window's candidates, by offset
	csum   []float64 // and their sums
}

// list returns the presence bits and scores of the list at query
// position pos in the window.
func (w *orWindow) list(pos int) ([]uint64, []float32) {
	return w.bits[pos*windowWords : (pos+1)*windowWords : (pos+1)*windowWords],
		w.scores[pos*windowDocs : (pos+1)*windowDocs : (pos+1)*windowDocs]
}

// window is maxScoreQuery over a window of docids from d, the smallest
// docid of the essential lists ls[first:] (ls sorted by bound, upTo their
// bounds' prefix sums): each essential list's postings in the window are
// scored in a loop of their own over its decoded blocks, into s.win's
// scores and presence bits by query position and sums by document, and
// so, where bulkRule says, are those of the non-essential list of the
// largest bound, which every candidate would probe first; the window's
// candidates are then completed in docid order from the other
// non-essential lists, as maxScoreQuery completes one. size is the
// window's length, doubled for the next while the essential lists stay
// the same; scored counts the postings scored. It returns the next
// window's first docid (NoMoreDocs when the lists are done or nothing can
// enter any more) and the first essential list after the window.
func (s *search) window(ls []*termList, upTo []float64, first int, d uint32, size int) (next uint32, nextFirst, nextSize int, scored int64, err error) {
	n := len(s.lists)
	w := &s.win
	if len(w.bits) < n*windowWords {
		w.bits = make([]uint64, n*windowWords)
		w.scores = make([]float32, n*windowDocs)
		w.sums = make([]float64, windowDocs)
	}
	bits, scores, sums := w.bits[:n*windowWords], w.scores[:n*windowDocs], w.sums[:windowDocs]
	clear(bits)
	var seen [windowWords]uint64 // the window's candidates
	base := d
	end := min(uint64(base)+uint64(size), uint64(index.NoMoreDocs))
	norms, p := s.norms, s.params
	var m int64
	// Each posting records its score and presence, and adds the score to
	// its docid's sum, 0 until then: the gathering below zeroes the sums
	// it reads for the next window. The essential lists stand on real
	// docids: Rest returns their decoded blocks' postings from there.
	for _, l := range ls[first:] {
		m += s.readWindow(l, base, end, sums, &seen)
	}
	wfirst := first
	// ls[:probe] are probed for the candidates. A bulk list's scores join
	// theirs in the gathering below, by its presence bits: none, where
	// no list is read in bulk.
	probe := wfirst
	var none [windowWords]uint64
	bulkBits, bulkScores := none[:], scores[:windowDocs]
	if wfirst > 0 && bulkRule.read(ls[wfirst-1], size, m, len(norms)) {
		probe--
		l := ls[probe]
		if !l.Stands(base) {
			l.NextGEQ(base) // a non-essential list may stand anywhere before
		}
		m += s.readWindow(l, base, end, nil, nil)
		bulkBits, bulkScores = w.list(l.pos)
	}
	// The candidates that the probed lists' bounds let enter, gathered
	// without a branch: most do not, in no order a branch would predict.
	// A bulk score counts where its bit says (a stale one, from an
	// earlier window, is masked out). The sign of thr - bound*slack is
	// canEnter's answer. Every sum read is zeroed, before anything may
	// return.
	var rest float64
	if probe > 0 {
		rest = upTo[probe-1]
	}
	thr, slack := s.thr, s.slack
	if len(w.cand) < windowDocs {
		w.cand, w.csum = make([]uint16, windowDocs), make([]float64, windowDocs)
	}
	cand, csum, nc := w.cand[:windowDocs], w.csum[:windowDocs], 0
	for wi, c := range seen {
		held := bulkBits[wi]
		for c != 0 {
			k := wi*64 + bits64.TrailingZeros64(c)
			c &= c - 1
			sum := sums[k]
			sums[k] = 0
			sum += float64(math.Float32frombits(math.Float32bits(bulkScores[k]) & -uint32(held>>(k%64)&1)))
			cand[nc], csum[nc] = uint16(k), sum
			nc += int(math.Float64bits(thr-(sum+rest)*slack) >> 63)
		}
	}
	if err := s.tick(); err != nil {
		return 0, first, size, m, err
	}
	for ci, k16 := range cand[:nc] {
		if err := s.tick(); err != nil {
			return 0, first, size, m, err
		}
		k := int(k16)
		wi, b := k/64, uint64(1)<<(k%64)
		d := base + uint32(k)
		// Complete d from the probed lists, largest bound first, while
		// the bounds let it enter.
		partial := csum[ci]
		var norm float32
		if probe > 0 {
			norm = norms[d]
		}
		i := probe - 1
		for ; i >= 0 && s.canEnter(partial+upTo[i]); i-- {
			l := ls[i]
			x := l.DocID()
			if !l.Stands(d) { // as in complete
				x = l.NextGEQ(d)
			}
			if x == d {
				sc := p.TermScore(l.idf, l.Freq(), norm)
				m++
				bits[l.pos*windowWords+wi] |= b
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
			if bits[pos*windowWords+wi]&b != 0 {
				sum += scores[pos*windowDocs+k]
			}
		}
		thr := s.thr
		s.push(Hit{DocID: d, Score: sum})
		if s.thr != thr {
			if first = s.essential(upTo, first); first == len(ls) {
				return index.NoMoreDocs, first, size, m, nil
			}
		}
	}
	if first == wfirst {
		size = min(2*size, windowDocs)
	} else {
		size = minWindow
	}
	next = index.NoMoreDocs
	for _, l := range ls[first:] {
		next = min(next, l.DocID())
	}
	return next, first, size, m, nil
}

// readWindow scores l's postings in [base, end) from its current one,
// in a loop over its decoded blocks (passing says why a block at a
// time), records each one's score and presence in s.win by l's query
// position and, unless sums is nil, adds it to its docid's sum and marks
// it seen. It moves l past them and returns how many it scored. l has
// no deleted documents to skip (windowed and bulkRule check).
func (s *search) readWindow(l *termList, base uint32, end uint64, sums []float64, seen *[windowWords]uint64) int64 {
	w := &s.win
	pb, ps := w.list(l.pos)
	var m int64
	for uint64(l.DocID()) < end {
		docs, freqs, _ := l.Rest()
		// The postings in the window, docs[:in], scored at once.
		in := len(docs)
		if uint64(docs[in-1]) >= end {
			in, _ = slices.BinarySearch(docs, uint32(end))
		}
		if len(w.run) < in {
			w.run = make([]float32, in)
		}
		run := w.run[:in]
		s.params.ScoreBlock(run, l.idf, docs[:in], freqs, s.norms)
		if sums != nil {
			for i, x := range docs[:in] {
				k := (x - base) % windowDocs
				sc := run[i]
				b := uint64(1) << (k % 64)
				pb[k/64] |= b
				ps[k] = sc
				sums[k] += float64(sc)
				seen[k/64] |= b
			}
		} else {
			for i, x := range docs[:in] {
				k := (x - base) % windowDocs
				pb[k/64] |= uint64(1) << (k % 64)
				ps[k] = run[i]
			}
		}
		m += int64(in)
		l.Advance(in)
		if in < len(docs) {
			break
		}
	}
	return m
}

// bulkRule is when a window reads the non-essential list of the largest
// bound, as it reads the essential ones, rather than probe it for each
// candidate: when its postings in the window, estimated from its
// density, number at most ratio times those the window read from the
// essential lists (the candidates come from those, and most probe it).
// Its scores then join the candidates' sums, and the candidates that
// pass leave its bound out, so fewer are completed. Against probing, on
// the first 1,000 RFC-title queries, top 10, queries in turn (each
// query's fastest of 8 passes, variants alternating every 25 queries,
// 2-core dev box), RFC passages OR took 0.90x the time at ratio 2 and 4
// (p50 1.00-1.02x), 0.92x at 1, 0.93x reading it always (p50 0.99-1.02x);
// as whole binaries, alternating, 0.94x (p50 1.01x), all RFCs even. A
// variable so that the tests can run both ways on small corpora.
var bulkRule = windowBulk{ratio: 2}

// windowBulk is bulkRule's form.
type windowBulk struct{ ratio int }

// read reports whether a window of size docids, whose essential lists
// held scored postings, reads l, a non-essential list, in a collection
// of docs documents.
func (r windowBulk) read(l *termList, size int, scored int64, docs int) bool {
	return !l.Deletes() && uint64(l.Len())*uint64(size) <= uint64(r.ratio)*uint64(scored)*uint64(docs)
}
