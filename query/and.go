package query

import (
	"cmp"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// normsAhead is how many postings ahead in a list the loops (scanOne,
// MaxScore's essential lists) prefetch a norm: a miss costs about as much as scoring a few postings.
// It does so only past prefetchDocs documents, whose norms (4 bytes each)
// outgrow a core's L2 cache; below, the call costs more than it saves.
const (
	normsAhead   = 8
	prefetchDocs = 1 << 17
)

// andQuery is conjunctive DAAT: the shortest list drives, every other list
// is moved with NextGEQ to the driver's docid (decoding only the block it
// lands in), and a document is scored once every list stands on it. The
// search ends early when the sum of the lists' bounds can no longer beat
// the heap's threshold.
//
// Once the heap is full (or from the start, under another segment's
// floor: see pruning), a candidate is scored list by list as the lists
// reach it, shortest first, and dropped as soon as its scores so far plus
// the bounds of the lists not yet reached cannot beat the threshold (the
// rule MaxScore applies to OR): the long lists of common words, whose
// bounds are small, are then neither moved nor decoded for it. On all
// RFCs, 80% of the AND matches of a top-10 search are ruled out by the
// driver's score alone.
func andQuery(s *search) error {
	ls, rest, scores := s.scratch(len(s.lists))
	byLength(ls, s.lists)
	// rest[i]: the sum of the bounds of ls[i:]; scores: by query position.
	for i := len(ls) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + ls[i].bound
	}
	d := ls[0].Next() // the lists open lazily: onto the shortest's first posting
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		if !s.canEnter(rest[0]) {
			break
		}
		if !s.pruning() {
			if x := align(ls, d); x != d {
				d = x
				continue
			}
			s.scoreAll(d)
			d = ls[0].Next()
			continue
		}
		// Most candidates fail on the driver's score alone: scan its
		// decoded blocks in place to the first that does not. (On a
		// large collection the scan fetches the norms ahead: the
		// driver's docids a few postings on are already decoded.)
		x, sc, n, err := s.scanOne(ls[0], rest[1])
		s.stats.PostingsScored += n
		if err != nil {
			return err
		}
		if d = x; d == index.NoMoreDocs {
			break
		}
		norm := s.norms[d]
		scores[ls[0].pos] = sc
		partial := float64(sc)
		i := 1
		for ; i < len(ls); i++ {
			l := ls[i]
			if x := l.NextGEQ(d); x != d {
				break
			}
			sc := s.params.TermScore(l.idf, l.Freq(), norm)
			s.stats.PostingsScored++
			scores[l.pos] = sc
			partial += float64(sc)
			if !s.canEnter(partial + rest[i+1]) {
				i = -1 // ruled out
				break
			}
		}
		switch {
		case i == len(ls):
			// Every list holds d: its score is the query-order sum.
			var sum float32
			for _, sc := range scores {
				sum += sc
			}
			s.push(Hit{DocID: d, Score: sum})
			d = ls[0].Next()
		case i < 0:
			d = ls[0].Next()
		default:
			// ls[i] overshot d: the driver moves to where it stands.
			d = ls[0].NextGEQ(ls[i].DocID())
		}
	}
	return nil
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
		if x := align(ls, d); x != d {
			d = x
			continue
		}
		s.scoreAll(d)
		d = ls[0].Next()
	}
	return nil
}

// align moves ls[1:] to the first docid >= d. It returns d when every list
// stands on d, and otherwise the driver's next candidate: the driver moved
// to the first docid >= the docid a list overshot to.
func align(ls []*termList, d uint32) uint32 {
	for _, l := range ls[1:] {
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
