package query

import "github.com/gpusearch/gpusearch/index"

// wandQuery is disjunctive DAAT with WAND pruning (Broder et al.). The
// cursors are kept in docid order; the pivot is the first cursor at which
// the running sum of list bounds beats the threshold. A document before the
// pivot's docid can only be in the lists before the pivot, whose bounds do
// not add up to enough. While some list before the pivot lags below the
// pivot's docid, the shortest such list moves to it (the likeliest to miss
// it, after which the pivot is found again); when every list up to the
// pivot stands on its docid, the document is scored.
func wandQuery(s *search) error {
	ls := append([]*termList(nil), s.lists...)
	sortFrom(ls, 0)
	for {
		if err := s.tick(); err != nil {
			return err
		}
		p, pd := pivotFrom(s, ls, 0)
		if p < 0 {
			return nil
		}
		var lag *termList
		for _, l := range ls[:p] {
			if l.DocID() < pd && (lag == nil || l.Len() < lag.Len()) {
				lag = l
			}
		}
		if lag != nil {
			lag.NextGEQ(pd)
		} else {
			s.scoreMatches(pd)
			for _, l := range ls {
				if l.DocID() != pd {
					break
				}
				l.Next()
			}
		}
		sortFrom(ls, 0)
	}
}

// pivotFrom finds, in cursors ordered by max(DocID, floor) (a lower bound
// on each list's next docid: the documents below floor are settled), the
// first one at which the bounds of it and the cursors before it could beat
// the threshold. It returns its index and docid, or -1 when no document
// left can enter the heap.
func pivotFrom(s *search, ls []*termList, floor uint32) (int, uint32) {
	var acc float64
	for i, l := range ls {
		d := max(l.DocID(), floor)
		if d == index.NoMoreDocs {
			break
		}
		acc += l.bound
		if s.canEnter(acc) {
			return i, d
		}
	}
	return -1, index.NoMoreDocs
}

// sortFrom restores the order by max(DocID, floor) after some cursors moved
// forward (insertion sort: the slice is short and nearly sorted).
func sortFrom(ls []*termList, floor uint32) {
	for i := 1; i < len(ls); i++ {
		x := ls[i]
		d := max(x.DocID(), floor)
		j := i
		for j > 0 && max(ls[j-1].DocID(), floor) > d {
			ls[j] = ls[j-1]
			j--
		}
		ls[j] = x
	}
}
