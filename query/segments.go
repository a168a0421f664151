package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

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
type Segmented struct {
	ix      *index.Index
	engines []Engine
	order   []int // the segments, largest first
}

// floorSearcher is an engine that searches in a mode, skipping the
// documents whose score bound is below floor.
type floorSearcher interface {
	searchAbove(ctx context.Context, q Query, mode Mode, floor float32) (Result, error)
}

// openSegmented opens driver d on each segment of ix.
func openSegmented(ix *index.Index, name string, d Driver, o Options) (Engine, error) {
	segs := ix.Segments()
	if d.Needs.GPU {
		return nil, fmt.Errorf("query: engine %s: %w: the index has %d segments or deletions, which only the CPU engines search; merge it into one (gpusearch merge)",
			name, ErrNoGPU, len(segs))
	}
	s := &Segmented{ix: ix}
	for _, seg := range segs {
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
		if f, ok := s.engines[i].(floorSearcher); ok && top.Full() {
			r, err = f.searchAbove(ctx, q, mode, top.Threshold())
		} else {
			r, err = s.engines[i].Search(ctx, q)
		}
		if err != nil {
			return Result{}, err
		}
		global := s.ix.SegmentDocIDs(i)
		for _, h := range r.Hits {
			top.Push(Hit{DocID: global[h.DocID], Score: h.Score})
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
