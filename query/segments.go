package query

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/gpusearch/gpusearch/index"
)

// Segmented answers a query over a segmented index (index.Index.Segments):
// one engine of the same kind on each segment, whose cursors skip the
// segment's deleted documents and whose scores and bounds are under the
// statistics of all live documents, so that each returns its segment's
// top k as a fresh build of the live documents would score them; their
// hits, renumbered into the index's docids (the fresh build's), merge
// into the top k, ties going to the lower docid as in every engine. The
// segments are searched one after the other, the largest first; once k
// hits are held, the DAAT engines skip in the next segments every
// document whose score bound is below the k-th score so far (a document
// scoring it exactly may still rank above it).
//
// A GPU engine reads a segment's lists as they lie, its deleted documents
// included (its scores are still the collection's: index.IDF and the
// norms are). It is asked for k plus the segment's deleted count and its
// deleted hits are dropped: at most that many can rank above a live one,
// so the segment's live top k is among them, in the same order, since a
// segment numbers its documents in the whole's order.
type Segmented struct {
	ix      *index.Index
	engines []Engine
	order   []int             // the segments, largest first
	deleted []*roaring.Bitmap // per segment, for engines that see deleted documents; else nil
}

// floorSearcher is an engine that searches in a mode, skipping the
// documents whose score bound is below floor.
type floorSearcher interface {
	searchAbove(ctx context.Context, q Query, mode Mode, floor float32) (Result, error)
}

// openSegmented opens driver d on each segment of ix.
func openSegmented(ix *index.Index, name string, d Driver, o Options) (Engine, error) {
	segs := ix.Segments()
	s := &Segmented{ix: ix}
	for i, seg := range segs {
		if d.Needs.GPU {
			s.deleted = append(s.deleted, ix.Deleted(i))
		}
		e, err := d.Open(seg, o)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.engines = append(s.engines, e)
		s.order = append(s.order, len(s.order))
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return cmp.Compare(segs[b].NumDocs(), segs[a].NumDocs()) })
	return s, nil
}

// Search runs q on every segment and merges the hits. AND-then-OR
// decides on the whole index's AND hits, not each segment's.
func (s *Segmented) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	res, err := runMode(ctx, q, s.run)
	res.Stats.Took = time.Since(start)
	return res, err
}

// run runs q in mode on every segment and merges the hits.
func (s *Segmented) run(ctx context.Context, q Query, mode Mode) (Result, error) {
	q.Mode = mode
	var res Result
	top := NewTopK(q.K)
	for _, i := range s.order {
		var r Result
		var err error
		var del *roaring.Bitmap
		if s.deleted != nil && !s.deleted[i].IsEmpty() {
			del = s.deleted[i]
		}
		switch f, ok := s.engines[i].(floorSearcher); {
		case ok && top.Full():
			r, err = f.searchAbove(ctx, q, mode, top.Threshold())
		case del != nil:
			sq := q
			sq.K += int(del.GetCardinality())
			r, err = s.engines[i].Search(ctx, sq)
		default:
			r, err = s.engines[i].Search(ctx, q)
		}
		if err != nil {
			return Result{}, err
		}
		global := s.ix.SegmentDocIDs(i)
		for _, h := range r.Hits {
			if del == nil || !del.Contains(h.DocID) {
				top.Push(Hit{DocID: global[h.DocID], Score: h.Score})
			}
		}
		res.Stats.Algorithm = r.Stats.Algorithm
		res.Stats.PostingsScored += r.Stats.PostingsScored
		res.Stats.BlocksDecoded += r.Stats.BlocksDecoded
		res.Stats.BlocksSkipped += r.Stats.BlocksSkipped
	}
	res.Hits = top.Hits()
	return res, nil
}

// Close closes the segments' engines that hold resources.
func (s *Segmented) Close() error {
	var errs []error
	for _, e := range s.engines {
		if c, ok := e.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
