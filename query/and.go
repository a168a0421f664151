package query

import (
	"cmp"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// andQuery is conjunctive DAAT: the shortest list drives, every other list
// is moved with NextGEQ to the driver's docid (decoding only the block it
// lands in), and a document is scored (its frequencies decoded) only once
// every list stands on it. The search ends early when the sum of the
// lists' bounds can no longer beat the heap's threshold.
func andQuery(s *search) error {
	ls := byLength(s.lists)
	var bound float64
	for _, l := range ls {
		bound += l.bound
	}
	d := ls[0].Next() // the lists open lazily: onto the shortest's first posting
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		if !s.canEnter(bound) {
			break
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

// blockMaxAndQuery is andQuery with block-max pruning: before aligning the
// lists on a candidate, it moves every list's skip pointer to the
// candidate's block (decoding nothing) and, when the blocks' maxima cannot
// beat the threshold, jumps past the first of those blocks to end.
func blockMaxAndQuery(s *search) error {
	ls := byLength(s.lists)
	d := ls[0].Next() // the lists open lazily: onto the shortest's first posting
	for d != index.NoMoreDocs {
		if err := s.tick(); err != nil {
			return err
		}
		if s.top.Full() {
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

// byLength returns the lists sorted by length, shortest first.
func byLength(lists []*termList) []*termList {
	ls := slices.Clone(lists)
	slices.SortStableFunc(ls, func(a, b *termList) int { return cmp.Compare(a.Len(), b.Len()) })
	return ls
}
