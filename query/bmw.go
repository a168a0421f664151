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
// bound. Then one of three steps:
//
//   - the block bound cannot beat the threshold: no document before the
//     end of the first of those blocks to end (or before the next list's
//     docid) can enter, and the floor jumps there, decoding nothing;
//   - some list up to the pivot lags below the pivot's docid: the bound
//     is tightened with the real scores of the lists standing on it; if
//     that rules the document out, the floor passes it, and otherwise the
//     shortest lagging list moves to it (the likeliest to miss it, which
//     lowers the bound at the next step);
//   - every list up to the pivot stands on its docid: the document is
//     scored.
func bmwQuery(s *search) error {
	ls := append([]*termList(nil), s.lists...)
	floor := uint32(0)
	at := func(l *termList) uint32 { return max(l.DocID(), floor) }
	sortByAt(ls, at)
	for {
		if err := s.tick(); err != nil {
			return err
		}
		p, pd := pivotAt(s, ls, at)
		if p < 0 {
			return nil
		}
		for p+1 < len(ls) && at(ls[p+1]) == pd {
			p++
		}
		next := index.NoMoreDocs
		if p+1 < len(ls) {
			next = at(ls[p+1])
		}
		var bound float64
		var lag *termList
		for _, l := range ls[:p+1] {
			l.ShallowNextGEQ(pd)
			bound += float64(l.BlockMaxScore())
			// A list whose skip pointer ran off its end holds nothing
			// from pd on.
			if last := l.BlockLastDocID(); last != index.NoMoreDocs {
				next = min(next, last+1)
			}
			if l.DocID() < pd && (lag == nil || l.Len() < lag.Len()) {
				lag = l
			}
		}
		switch {
		case !s.canEnter(bound):
			floor = next
		case lag != nil:
			// Tighten the bound with the real scores of the lists that
			// stand on pd before decoding a lagging list's block.
			var partial float64
			for _, l := range ls[:p+1] {
				if l.DocID() == pd {
					partial += float64(s.termScore(l))
				} else {
					partial += float64(l.BlockMaxScore())
				}
			}
			if s.canEnter(partial) {
				lag.NextGEQ(pd)
			} else {
				floor = pd + 1
			}
		default:
			s.scoreMatches(pd)
			for _, l := range ls[:p+1] {
				l.Next()
			}
		}
		sortByAt(ls, at)
	}
}
