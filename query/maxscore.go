package query

import (
	"cmp"
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
// One pass over the essential lists scores the candidate, moves the lists
// standing on it and finds the next candidate; a single essential list
// (the common case once the heap fills) is scanned in place instead
// (scanOne). The threshold only rises when a document enters the heap, so
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
	ahead := len(s.norms) > prefetchDocs
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
		next := index.NoMoreDocs
		var partial float64
		var norm float32
		if first == len(ls)-1 {
			// One essential list, which holds every candidate: four in
			// five on all RFCs. Most fail on its score alone: scan to
			// the first that does not.
			l := ls[first]
			if l.DocID() != d {
				// d came from a list that has just turned non-essential:
				// the others' bounds alone cannot enter.
				d = l.DocID()
				continue
			}
			var sc float32
			var n int64
			var err error
			d, sc, n, err = s.scanOne(l, rest)
			scored += n
			if err != nil {
				return err
			}
			if d == index.NoMoreDocs {
				break
			}
			norm = s.norms[d]
			scores[l.pos] = sc
			partial = float64(sc)
			next = l.Next()
		} else {
			norm = s.norms[d]
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
