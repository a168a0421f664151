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
	order   []int // the segments, largest first
	// deleted holds, for engines that see deleted documents, each
	// segment's (nil where it has none), and dropped their counts; both
	// are nil for engines that skip them.
	deleted []*roaring.Bitmap
	dropped []int
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
			del := ix.Deleted(i)
			n := int(del.GetCardinality())
			if n == 0 {
				del = nil
			}
			s.deleted = append(s.deleted, del)
			s.dropped = append(s.dropped, n)
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
	if d.Needs.GPU {
		return deviceSegmented{s}, nil
	}
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
		extra, del := s.toDrop(i)
		if f, ok := s.engines[i].(floorSearcher); ok && top.Full() {
			r, err = f.searchAbove(ctx, q, mode, top.Threshold())
		} else {
			sq := q
			sq.K += extra
			r, err = s.engines[i].Search(ctx, sq)
		}
		if err != nil {
			return Result{}, err
		}
		s.add(i, r, del, top, &res.Stats)
	}
	res.Hits = top.Hits()
	return res, nil
}

// toDrop is what segment i's engine sees but must not answer: how many
// more hits to ask it for, and the deleted documents to drop from them
// (0 and nil for an engine that skips them, or a segment without any).
func (s *Segmented) toDrop(i int) (extra int, del *roaring.Bitmap) {
	if s.deleted == nil {
		return 0, nil
	}
	return s.dropped[i], s.deleted[i]
}

// add pushes segment i's hits r into top, renumbered into the index's
// docids, those in del dropped, and adds r's work to st.
func (s *Segmented) add(i int, r Result, del *roaring.Bitmap, top *TopK, st *Stats) {
	global := s.ix.SegmentDocIDs(i)
	for _, h := range r.Hits {
		if del == nil || !del.Contains(h.DocID) {
			top.Push(Hit{DocID: global[h.DocID], Score: h.Score})
		}
	}
	st.Algorithm = r.Stats.Algorithm
	st.PostingsScored += r.Stats.PostingsScored
	st.BlocksDecoded += r.Stats.BlocksDecoded
	st.BlocksSkipped += r.Stats.BlocksSkipped
}

// deviceSegmented is Segmented over GPU engines: it answers batches, one
// batch per segment and mode, and reports the devices' usage, so that
// the server's batching and scheduling serve a segmented index as they
// serve one.
type deviceSegmented struct{ *Segmented }

// SearchBatch implements BatchEngine: each segment's engine answers the
// batch (its own SearchBatch, or one query after another), AND-then-OR
// deciding on the whole index's AND hits as Search does. Stats.Took is
// the whole batch's time.
func (s deviceSegmented) SearchBatch(ctx context.Context, qs []Query) ([]Result, error) {
	return searchBatchModes(ctx, qs, s.batch)
}

// modeBatch answers qs[i] in modes[i] into res[i] for every i of idx.
type modeBatch func(ctx context.Context, qs []Query, modes []Mode, idx []int, res []Result) error

// searchBatchModes answers a batch through batch, in the queries' modes:
// an AND-then-OR query is asked in AND first and, when it has fewer than
// k hits, in OR, as runMode does, deciding on what batch answers (the
// whole index's hits, over its parts). Stats.Took is the whole batch's
// time.
func searchBatchModes(ctx context.Context, qs []Query, batch modeBatch) ([]Result, error) {
	start := time.Now()
	res := make([]Result, len(qs))
	modes := make([]Mode, len(qs))
	var first []int
	for i, q := range qs {
		if q.K <= 0 || len(q.Terms) == 0 {
			continue
		}
		modes[i] = q.Mode
		if onePhrase(q) || q.Mode == AndOr {
			modes[i] = And // OR over one phrase answers as AND
		}
		first = append(first, i)
	}
	if err := batch(ctx, qs, modes, first, res); err != nil {
		return nil, err
	}
	var second []int
	for _, i := range first {
		if qs[i].Mode == AndOr && !onePhrase(qs[i]) && len(res[i].Hits) < qs[i].K {
			modes[i] = Or
			second = append(second, i)
		}
	}
	or := make([]Result, len(qs))
	if err := batch(ctx, qs, modes, second, or); err != nil {
		return nil, err
	}
	for _, i := range second {
		and := res[i].Stats
		res[i] = or[i]
		if and.Algorithm != "" {
			res[i].Stats.Algorithm = and.Algorithm + "+" + or[i].Stats.Algorithm
		}
		res[i].Stats.PostingsScored += and.PostingsScored
		res[i].Stats.BlocksDecoded += and.BlocksDecoded
		res[i].Stats.BlocksSkipped += and.BlocksSkipped
	}
	took := time.Since(start)
	for i := range res {
		res[i].Stats.Took = took
	}
	return res, nil
}

// batch answers qs[i] in modes[i] into res[i] for every i of idx: each
// segment's engine answers them together.
func (s deviceSegmented) batch(ctx context.Context, qs []Query, modes []Mode, idx []int, res []Result) error {
	if len(idx) == 0 {
		return nil
	}
	tops := make([]*TopK, len(idx))
	for j, i := range idx {
		tops[j] = NewTopK(qs[i].K)
	}
	sub := make([]Query, len(idx))
	for _, g := range s.order {
		extra, del := s.toDrop(g)
		for j, i := range idx {
			sub[j] = qs[i]
			sub[j].Mode = modes[i]
			sub[j].K += extra
		}
		rs, err := searchAll(ctx, s.engines[g], sub)
		if err != nil {
			return err
		}
		for j, i := range idx {
			s.add(g, rs[j], del, tops[j], &res[i].Stats)
		}
	}
	for j, i := range idx {
		res[i].Hits = tops[j].Hits()
	}
	return nil
}

// searchAll answers qs on e: in one SearchBatch where e has it.
func searchAll(ctx context.Context, e Engine, qs []Query) ([]Result, error) {
	if be, ok := e.(BatchEngine); ok {
		return be.SearchBatch(ctx, qs)
	}
	rs := make([]Result, len(qs))
	for i, q := range qs {
		var err error
		if rs[i], err = e.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// DeviceUsage implements DeviceEngine: the segments' engines' usage,
// summed.
func (s deviceSegmented) DeviceUsage() DeviceUsage { return sumUsage(s.engines) }

// sumUsage is the usage of the engines that report one, summed.
func sumUsage(engines []Engine) DeviceUsage {
	var sum DeviceUsage
	for _, e := range engines {
		if d, ok := e.(DeviceEngine); ok {
			sum = sum.Add(d.DeviceUsage())
		}
	}
	return sum
}

// Close closes the segments' engines that hold resources.
func (s *Segmented) Close() error { return closeAll(s.engines) }

// closeAll closes the engines that hold resources.
func closeAll(engines []Engine) error {
	var errs []error
	for _, e := range engines {
		if c, ok := e.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
