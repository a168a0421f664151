package query

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/prefetch"
)

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
	others := s.rest[:0]
	for _, l := range s.lists {
		if l != f {
			l.Cursor = s.ix.ReuseCursor(l.Cursor, l.Term(), true)
			others = append(others, l)
		}
	}
	s.skip = s.ix.ReuseCursor(f.Cursor, f.Term(), true)
	err := s.maxScore(others)
	clear(others) // kept for the next query, which must not pin these lists
	s.rest, s.skip = others[:0], nil
	return err
}

// scoreList scores the documents of list f into the heap, each completed
// from the other lists, largest bound first, as maxScoreQuery completes
// a candidate. It reads f's decoded blocks in place: most of its
// documents are candidates (the threshold has yet to rise), for which
// scanOne would return one at a time. Against scanOne, each query's
// fastest of 3 passes, in turn (first 1,000 RFC-title queries, top 10,
// 2-core dev box), OR's mean fell from 40.7 to 35.5 us on all RFCs and
// from 524 to 499 us on the RFC passages, its median from 30.3 to 27.6
// and from 255 to 207.
func (s *search) scoreList(f *termList) error {
	ls, upTo, scores := s.byBound(s.lists, f)
	var scored int64
	defer func() { s.stats.PostingsScored += scored }()
	var rest float64 // the other lists' bounds
	if len(upTo) > 0 {
		rest = upTo[len(upTo)-1]
	}
	norms, p := s.norms, s.params
	ahead := len(norms) > prefetchDocs // see normsAhead
	candidate := func(d uint32, sc float32) {
		scores[f.pos] = sc
		sum, ok, n := s.complete(d, norms[d], float64(sc), ls, upTo, scores)
		scored += n
		if ok {
			s.push(Hit{DocID: d, Score: sum})
		}
	}
	f.Next()
	for f.DocID() != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		docs, freqs, ok := f.Rest()
		if !ok {
			// Deleted documents to skip: a posting at a time.
			d, sc, n, err := s.scanOne(f, rest)
			scored += n
			if err != nil || d == index.NoMoreDocs {
				return err
			}
			f.Next()
			candidate(d, sc)
			continue
		}
		freqs = freqs[:len(docs)]
		for i, d := range docs {
			if ahead && i+normsAhead < len(docs) {
				prefetch.T0(unsafe.Pointer(&norms[docs[i+normsAhead]]))
			}
			if sc := p.TermScore(f.idf, freqs[i]+1, norms[d]); s.canEnter(float64(sc) + rest) {
				candidate(d, sc)
			}
		}
		scored += int64(len(docs))
		f.Advance(len(docs))
	}
	return nil
}
