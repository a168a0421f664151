package query

import "github.com/gpusearch/gpusearch/index"

// bmwQuery is disjunctive DAAT with Block-Max WAND pruning (Ding and
// Suel), in a lazy form that decodes a block only to look at a document
// its bounds cannot rule out.
//
// A floor docid marks where the search stands: every document below it is
// settled. A list whose cursor lags below the floor is treated as standing
// on the floor, which is a lower bound on its next posting, so pivot
// selection stays safe without moving (and decoding) it. The pivot is found
// as in WAND from the lists' bounds; the skip pointers of the lists up to
// the pivot (and of the lists standing on the pivot's docid) move to the
// pivot's block, decoding nothing, and the blocks' maxima give a tighter
// bound. Then:
//
//   - when the block bound cannot beat the threshold, no document before
//     the end of the first of those blocks to end (or before the next
//     list's docid) can enter, and the floor jumps there, decoding nothing;
//   - otherwise the pivot document is settled (see settle): the lists
//     lagging below it move to it one at a time, the shortest first, while
//     the bound made of the real scores found so far and the block maxima
//     of the lists still lagging can beat the threshold. If it survives
//     the document is scored, and the floor passes it either way.
func bmwQuery(s *search) error {
	ls := append([]*termList(nil), s.lists...)
	floor := uint32(0)
	sortFrom(ls, floor)
	for {
		if err := s.tick(); err != nil {
			return err
		}
		p, pd := pivotFrom(s, ls, floor)
		if p < 0 {
			return nil
		}
		for p+1 < len(ls) && max(ls[p+1].DocID(), floor) == pd {
			p++
		}
		next := index.NoMoreDocs
		if p+1 < len(ls) {
			next = max(ls[p+1].DocID(), floor)
		}
		var bound float64
		for _, l := range ls[:p+1] {
			l.ShallowNextGEQ(pd)
			bound += float64(l.BlockMaxScore())
			// A list whose skip pointer ran off its end holds nothing
			// from pd on.
			if last := l.BlockLastDocID(); last != index.NoMoreDocs {
				next = min(next, last+1)
			}
		}
		if !s.canEnter(bound) {
			floor = next
		} else {
			if s.settle(ls[:p+1], pd) {
				s.scoreMatches(pd)
			}
			floor = pd + 1
		}
		sortFrom(ls, floor)
	}
}

// settle decides whether document d, which the lists ls may hold (each
// stands on d or lags below it, with its skip pointer on d's block), could
// enter the heap. The bound on d's score adds the real term scores of the
// lists standing on d and the block maxima of the lagging ones; while it
// can beat the threshold, the shortest lagging list (the likeliest to miss
// d) moves to d and the bound is tightened. It reports true when no list
// lags any more, some list holds d, and the bound still holds: d must be
// scored.
func (s *search) settle(ls []*termList, d uint32) bool {
	for {
		var bound float64
		var lag *termList
		on := false
		for _, l := range ls {
			switch x := l.DocID(); {
			case x == d:
				on = true
				bound += float64(s.termScore(l))
			case x < d:
				bound += float64(l.BlockMaxScore())
				if lag == nil || l.Len() < lag.Len() {
					lag = l
				}
			}
		}
		if !s.canEnter(bound) {
			return false
		}
		if lag == nil {
			return on
		}
		lag.NextGEQ(d)
	}
}
