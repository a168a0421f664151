package query

import "github.com/gpusearch/gpusearch/index"

// orQuery is exhaustive disjunctive DAAT: every posting of every list is
// scored, the documents visited in docid order. It prunes nothing and is
// the baseline of the pruning algorithms.
func orQuery(s *search) error {
	for {
		if err := s.tick(); err != nil {
			return err
		}
		d := index.NoMoreDocs
		for _, l := range s.lists {
			d = min(d, l.DocID())
		}
		if d == index.NoMoreDocs {
			return nil
		}
		var sum float32
		for _, l := range s.lists {
			if l.DocID() == d {
				sum += s.termScore(l)
				l.Next()
			}
		}
		s.push(Hit{DocID: d, Score: sum})
	}
}
