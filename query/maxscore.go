package query

import (
	"cmp"
	"slices"

	"github.com/gpusearch/gpusearch/index"
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
// One pass over the essential lists scores the candidate, moves the lists
// standing on it and finds the next candidate. The threshold only rises
// when a document enters the heap, so the essential lists are recounted
// only then.
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
	var scored int64 // postings scored, added to s.stats on the way out
	defer func() { s.stats.PostingsScored += scored }()
	first := 0 // ls[:first] are non-essential
	// Under a floor (segments.go) some lists may be non-essential from
	// the start.
	for first < len(ls) && !s.canEnter(upTo[first]) {
		first++
	}
	if first == len(ls) {
		return nil
	}
	var rest float64 // the sum of the non-essential lists' bounds
	if first > 0 {
		rest = upTo[first-1]
	}
	// The lists open lazily: the essential ones move onto their first
	// posting, the others are only ever sought (NextGEQ), which decodes
	// no block they skip, the first included. Lists only ever turn
	// non-essential, so an essential list's docid is always real.
	d := index.NoMoreDocs
	for _, l := range ls[first:] {
		d = min(d, l.Next())
	}
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		norm := s.norms[d]
		next := index.NoMoreDocs
		var partial float64
		if first == len(ls)-1 {
			// One essential list, which holds every candidate: four in
			// five on all RFCs. Most fail on its score alone, and are
			// dropped before the scores and the next docid are kept.
			l := ls[first]
			if l.DocID() != d {
				// d came from a list that has just turned non-essential:
				// the others' bounds alone cannot enter.
				d = l.DocID()
				continue
			}
			sc := s.params.TermScore(l.idf, l.Freq(), norm)
			scored++
			if !s.canEnter(float64(sc) + rest) {
				d = l.Next()
				continue
			}
			scores[l.pos] = sc
			partial = float64(sc)
			next = l.Next()
		} else {
			for _, l := range ls[first:] {
				if l.DocID() == d {
					sc := s.params.TermScore(l.idf, l.Freq(), norm)
					scored++
					scores[l.pos] = sc
					partial += float64(sc)
					l.Next()
				}
				next = min(next, l.DocID())
			}
		}
		complete := true
		for i := first - 1; i >= 0; i-- {
			if !s.canEnter(partial + upTo[i]) {
				complete = false
				break
			}
			if l := ls[i]; l.NextGEQ(d) == d {
				sc := s.params.TermScore(l.idf, l.Freq(), norm)
				scored++
				scores[l.pos] = sc
				partial += float64(sc)
			}
		}
		if complete {
			var sum float32
			for _, sc := range scores {
				sum += sc
			}
			thr := s.thr
			s.push(Hit{DocID: d, Score: sum})
			if s.thr != thr {
				for first < len(ls) && !s.canEnter(upTo[first]) {
					first++
				}
				if first == len(ls) {
					return nil // not even a document in every list can enter
				}
				if first > 0 {
					rest = upTo[first-1]
				}
			}
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
