package query

import (
	"sort"

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
func maxScoreQuery(s *search) error {
	ls := append([]*termList(nil), s.lists...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].bound < ls[j].bound })
	upTo := make([]float64, len(ls)) // upTo[i]: sum of the bounds of ls[:i+1]
	var acc float64
	for i, l := range ls {
		acc += l.bound
		upTo[i] = acc
	}
	have := make([]bool, len(ls)) // by query position: the list holds d
	first := 0                    // ls[:first] are non-essential
	for {
		if err := s.tick(); err != nil {
			return err
		}
		for first < len(ls) && !s.canEnter(upTo[first]) {
			first++
		}
		if first == len(ls) {
			return nil // not even a document in every list can enter
		}
		d := index.NoMoreDocs
		for _, l := range ls[first:] {
			d = min(d, l.DocID())
		}
		if d == index.NoMoreDocs {
			return nil
		}
		var partial float64
		for _, l := range ls[first:] {
			if l.DocID() == d {
				have[l.pos] = true
				partial += float64(s.termScore(l))
			}
		}
		complete := true
		for i := first - 1; i >= 0; i-- {
			if !s.canEnter(partial + upTo[i]) {
				complete = false
				break
			}
			if l := ls[i]; l.NextGEQ(d) == d {
				have[l.pos] = true
				partial += float64(s.termScore(l))
			}
		}
		if complete {
			var sum float32
			for pos, ok := range have {
				if ok {
					sum += s.memo[pos].score
				}
			}
			s.push(Hit{DocID: d, Score: sum})
		}
		clear(have)
		for _, l := range ls[first:] {
			if l.DocID() == d {
				l.Next()
			}
		}
	}
}
