package query

// phaseRule is when maxScoreQuery runs in two phases (phased): when the
// list with the largest bound holds fewer postings than maxFirst. On
// the first 1,000 RFC-title queries, top 10 (2-core dev box, each
// query's fastest of 3 passes against plain MaxScore), the phases cut
// the mean from 48 to 38 us on all RFCs and from 650 to 573 us on the
// RFC passages; on the passages they paid while that list held up to
// 2^12 postings (a third of the time at 2^3-2^7) and lost up to 16%
// from 2^13 on, where the first phase reads a long list for a threshold
// the second would soon have reached. A variable so that the tests can
// run both ways on small corpora.
var phaseRule = struct{ maxFirst int }{1 << 13}

// phaseFirst returns the list phased starts with, or nil where
// maxScoreQuery runs in one phase: with phrases, whose filter reads the
// lists' cursors on the document it checks, which the first phase moves
// past; with one list; or when the list with the largest bound is long
// (phaseRule).
func (s *search) phaseFirst() *termList {
	if s.phrases != nil || len(s.lists) < 2 {
		return nil
	}
	f := s.lists[0]
	for _, l := range s.lists[1:] {
		if l.bound > f.bound {
			f = l
		}
	}
	if f.Len() >= phaseRule.maxFirst {
		return nil
	}
	return f
}

// phased is MaxScore in two phases, so that its threshold is close to
// the final one before the lists of common terms are read. MaxScore
// alone starts from 0 and raises its threshold only as better documents
// turn up in docid order, keeping the long lists essential, their every
// posting scored, for much of the traversal.
//
// The first phase scores the documents of f, the list with the largest
// bound (the rarest term's, which Turtle and Flood's term-at-a-time
// MaxScore takes first), each completed from the other lists as MaxScore
// completes a candidate: real documents with their real scores, and
// mostly the best ones, since they hold the rarest term. The second
// phase is MaxScore over the other lists for the documents f does not
// hold, whose bounds leave f out; push drops the documents f holds, so
// that none is offered twice.
func (s *search) phased(f *termList) error {
	if err := s.scoreList(f); err != nil {
		return err
	}
	s.addCursorStats() // the cursors start over: count what they decoded
	others := s.others[:0]
	for _, l := range s.lists {
		if l != f {
			l.Cursor = s.ix.ReuseCursor(l.Cursor, l.Term(), true)
			others = append(others, l)
		}
	}
	s.skip = s.ix.ReuseCursor(f.Cursor, f.Term(), true)
	err := s.maxScore(others)
	clear(others) // kept for the next query, which must not pin these lists
	s.others, s.skip = others[:0], nil
	return err
}

// scoreList scores the documents of list f into the heap, each completed
// from the other lists, largest bound first, as maxScoreQuery completes
// a candidate (drive).
func (s *search) scoreList(f *termList) error {
	ls, upTo, scores := s.byBound(s.lists, f)
	f.Next()
	return s.drive(f, ls, upTo, scores)
}
