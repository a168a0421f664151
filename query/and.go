package query

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/prefetch"
)

// normsAhead is how many postings ahead in a list the posting-at-a-time
// loops (scanOne, MaxScore's candidates) prefetch norms: a miss costs
// about as much as scoring a few postings. They do so only past
// prefetchDocs documents, whose norms (4 bytes each) outgrow a core's L2
// cache; below, the call costs more than it saves. The loops that score
// a block at once (drive, windows: bm25.Params.ScoreBlock) prefetch
// nothing: its gathers ask for eight norms at a time, and prefetching a
// block's norms first made the RFC passages' OR 1.025x slower.
const (
	normsAhead   = 8
	prefetchDocs = 1 << 17
)

// prefetchNorms asks for the norms of docs[i+normsAhead:i+2*normsAhead]
// (those there are), for a loop over a decoded block that calls it every
// normsAhead postings: one call for a run, where a call a posting (to
// prefetch.T0) cost MaxScore 5% of its time on the RFC passages (each
// query's fastest of 3, in turn, first 1,000 RFC-title queries, top 10:
// OR 480 -> 454 and 494 -> 467 us, 2-core dev box).
func prefetchNorms(norms []float32, docs []uint32, i int) {
	from := min(i+normsAhead, len(docs))
	prefetch.Indexed4(unsafe.Pointer(unsafe.SliceData(norms)), docs[from:min(from+normsAhead, len(docs))])
}

// andQuery is conjunctive DAAT: the shortest list drives, every other list
// is moved with NextGEQ to the driver's docid (decoding only the block it
// lands in), and a document is scored once every list stands on it. The
// search ends early when the sum of the lists' bounds can no longer beat
// the heap's threshold.
//
// The driver and the next shortest list, when both are selective, meet
// in one loop over their decoded blocks (index.Meet) rather than through
// NextGEQ calls: on the RFC passages top-10 AND took 0.90-0.97x the time,
// and 0.88-0.95x of that again once Meet compared eight docids of each
// list at a time with AVX2 (each query's fastest of 5, variants in turn,
// 2-core dev box).
//
// Once the heap is full (or from the start, under another segment's
// floor: see pruning), a candidate is first aligned on the selective
// lists (selective), then scored on them and the others list by list,
// shortest first, and dropped as soon as its scores so far plus the bounds
// of the lists not yet reached cannot beat the threshold (the rule
// MaxScore applies to OR): the long lists of common words, whose bounds
// are small, are then neither moved nor decoded for it. Where the driver
// alone is selective, its decoded blocks are scanned in place (scanOne)
// to the first candidate its score does not rule out: on all RFCs, 80% of
// the AND matches of a top-10 search are ruled out so.
func andQuery(s *search) error {
	ls, rest, scores := s.scratch(len(s.lists))
	byLength(ls, s.lists)
	// rest[i]: the sum of the bounds of ls[i:]; scores: by query position.
	for i := len(ls) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + ls[i].bound
	}
	g := selective(ls, len(s.norms))
	d := ls[0].Next() // the lists open lazily: onto the shortest's first posting
next:
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		if !s.canEnter(rest[0]) {
			break
		}
		from := 1
		if g >= 2 {
			x, ok := index.Meet(ls[0].Cursor, ls[1].Cursor)
			if d = x; !ok {
				continue
			}
			from = 2
		}
		if x := align(ls[:g], from, d); x != d {
			d = x
			continue
		}
		if !s.pruning() {
			if x := align(ls, g, d); x != d {
				d = x
				continue
			}
			s.scoreAll(d)
			d = ls[0].Next()
			continue
		}
		var partial float64
		if g == 1 {
			// Most candidates fail on the driver's score alone: scan its
			// decoded blocks in place to the first that does not.
			x, sc, n, err := s.scanOne(ls[0], rest[1])
			s.stats.PostingsScored += n
			if err != nil {
				return err
			}
			if d = x; d == index.NoMoreDocs {
				break
			}
			scores[ls[0].pos] = sc
			partial = float64(sc)
		} else {
			norm := s.norms[d]
			for _, l := range ls[:g] {
				sc := s.params.TermScore(l.idf, l.Freq(), norm)
				scores[l.pos] = sc
				partial += float64(sc)
			}
			s.stats.PostingsScored += int64(g)
		}
		norm := s.norms[d]
		for i := g; i <= len(ls); i++ {
			if !s.canEnter(partial + rest[i]) {
				d = ls[0].Next() // ruled out
				continue next
			}
			if i == len(ls) {
				break
			}
			l := ls[i]
			if x := l.NextGEQ(d); x != d {
				// l overshot d: the driver moves to where it stands.
				d = ls[0].NextGEQ(x)
				continue next
			}
			sc := s.params.TermScore(l.idf, l.Freq(), norm)
			s.stats.PostingsScored++
			scores[l.pos] = sc
			partial += float64(sc)
		}
		// Every list holds d: its score is the query-order sum.
		var sum float32
		for _, sc := range scores {
			sum += sc
		}
		s.push(Hit{DocID: d, Score: sum})
		d = ls[0].Next()
	}
	return nil
}

// selective counts the lists, ls sorted by length, that andQuery aligns a
// candidate on before it scores anything: the driver and every list of
// fewer than a quarter of the docs documents. A document of the driver
// is in such a list with a small chance, so a NextGEQ there rules out
// more candidates than a score would, and costs less than the score
// (a frequency block to decode, a norm to fetch). On the RFC passages
// (976,612 documents of 64 terms, where scores differ by little) it took
// top-10 AND from 98 to 70 us a query; on all RFCs (8,826 documents, few
// lists under a quarter of them) from 31 to 27.
func selective(ls []*termList, docs int) int {
	g := 1
	for g < len(ls) && ls[g].Len() < docs/4 {
		g++
	}
	return g
}

// blockMaxAndQuery is andQuery with block-max pruning: before aligning the
// lists on a candidate, it moves every list's skip pointer to the
// candidate's block (decoding nothing) and, when the blocks' maxima cannot
// beat the threshold, jumps past the first of those blocks to end.
func blockMaxAndQuery(s *search) error {
	ls, _, _ := s.scratch(len(s.lists))
	byLength(ls, s.lists)
	d := ls[0].Next() // the lists open lazily: onto the shortest's first posting
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		if s.pruning() {
			var bound float64
			next := index.NoMoreDocs
			for _, l := range ls {
				l.ShallowNextGEQ(d)
				bound += float64(l.BlockMaxScore())
				next = min(next, l.BlockLastDocID())
			}
			if next == index.NoMoreDocs {
				break // some list has no docid >= d
			}
			if !s.canEnter(bound) {
				// No document in [d, next] can enter: each list's postings
				// there lie in the block under its skip pointer.
				d = ls[0].NextGEQ(next + 1)
				continue
			}
		}
		if x := align(ls, 1, d); x != d {
			d = x
			continue
		}
		s.scoreAll(d)
		d = ls[0].Next()
	}
	return nil
}

// align moves ls[from:] (from >= 1) to the first docid >= d. It returns d
// when every list stands on d, and otherwise the driver's next candidate:
// the driver moved to the first docid >= the docid a list overshot to.
func align(ls []*termList, from int, d uint32) uint32 {
	for _, l := range ls[from:] {
		if x := l.NextGEQ(d); x != d {
			return ls[0].NextGEQ(x)
		}
	}
	return d
}

// byLength puts lists into ls sorted by length, shortest first.
func byLength(ls, lists []*termList) {
	copy(ls, lists)
	slices.SortStableFunc(ls, func(a, b *termList) int { return cmp.Compare(a.Len(), b.Len()) })
}
