package query

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// Sharded answers a query over several shards of one sharded collection
// (index.ShardInfo), as one node serving them does: one engine of the
// same kind on each shard, which scores under the collection's
// statistics, all searched at once; their hits, renumbered into the
// collection's docids (the shard's FirstDoc added), merge into the top k
// exactly (MergeHits), so that over every shard of the collection it
// answers as an engine over one index of the whole collection would.
// AND-then-OR decides on the AND hits of all the shards served, as
// Segmented decides on the whole index's.
type Sharded struct {
	shards  []*index.Index
	first   []uint32 // per shard: the collection's docid of its docid 0
	engines []Engine
}

// OpenSharded opens the engine registered under name, with o, on each of
// shards: shards of one collection, each at most once, in any order (a
// node may serve some of a collection's shards). A GPU engine opens on
// o.GPU.Devices[i % len(o.GPU.Devices)] for the i-th shard when Devices
// is set, so that the shards' searches run on several GPUs at once. Over
// GPU engines the result also answers batches and reports the devices'
// usage. The engines close with the result; the shards stay open.
func OpenSharded(shards []*index.Index, name string, o Options) (Engine, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("query: no shards to search")
	}
	s := &Sharded{shards: shards}
	seen := map[int]bool{}
	var coll string
	for i, ix := range shards {
		info, ok := ix.Shard()
		switch {
		case !ok:
			return nil, fmt.Errorf("query: %s is not a shard", ix.Dir())
		case i > 0 && info.Collection != coll:
			return nil, fmt.Errorf("query: %s is a shard of collection %s, %s of %s", ix.Dir(), info.Collection, shards[0].Dir(), coll)
		case seen[info.Index]:
			return nil, fmt.Errorf("query: shard %d of collection %s given twice", info.Index, info.Collection)
		}
		coll = info.Collection
		seen[info.Index] = true
		oi := o
		if n := len(o.GPU.Devices); n > 0 && d.Needs.GPU {
			oi.GPU.Device = o.GPU.Devices[i%n]
		}
		e, err := Open(ix, name, oi)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.first = append(s.first, info.FirstDoc)
		s.engines = append(s.engines, e)
	}
	if d.Needs.GPU {
		return deviceSharded{s}, nil
	}
	return s, nil
}

// Shards returns the shards s searches, in its order.
func (s *Sharded) Shards() []*index.Index { return s.shards }

// MergeHits merges the top k of several parts of a collection, each
// part's hits already in the collection's docids and ranked, into the
// collection's top k: highest score first, the lower docid first among
// equal scores, as every engine ranks.
func MergeHits(k int, parts ...[]Hit) []Hit {
	if k <= 0 {
		return nil
	}
	top := NewTopK(k)
	for _, p := range parts {
		for _, h := range p {
			if !top.Push(h) {
				break // the rest of a ranked part ranks lower still
			}
		}
	}
	return top.Hits()
}

// Search runs q on every shard at once and merges the hits.
func (s *Sharded) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	res, err := runMode(ctx, q, s.run)
	res.Stats.Took = time.Since(start)
	return res, err
}

// run runs q in mode on every shard, concurrently, and merges the hits.
func (s *Sharded) run(ctx context.Context, q Query, mode Mode) (Result, error) {
	q.Mode = mode
	rs := make([]Result, len(s.engines))
	err := s.each(func(j int) (err error) {
		rs[j], err = s.engines[j].Search(ctx, q)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return s.merge(q.K, rs), nil
}

// each runs f for every shard, concurrently, and returns the first error.
// Each goroutine reads its shard under the shard's Guard, as every
// goroutine reading an index must, so that a file that shrank on disk is
// an error (index.ErrCorrupt), not the end of the process.
func (s *Sharded) each(f func(j int) error) error {
	if len(s.engines) == 1 {
		return s.shards[0].Guard(func() error { return f(0) })
	}
	errs := make([]error, len(s.engines))
	var wg sync.WaitGroup
	for j := range s.engines {
		wg.Go(func() { errs[j] = s.shards[j].Guard(func() error { return f(j) }) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// merge renumbers each shard's hits rs[j] into the collection's docids
// and merges them into the top k, adding up the shards' work.
func (s *Sharded) merge(k int, rs []Result) Result {
	var res Result
	parts := make([][]Hit, len(rs))
	for j, r := range rs {
		parts[j] = make([]Hit, len(r.Hits))
		for i, h := range r.Hits {
			parts[j][i] = Hit{DocID: h.DocID + s.first[j], Score: h.Score}
		}
		res.Stats.Algorithm = r.Stats.Algorithm
		res.Stats.PostingsScored += r.Stats.PostingsScored
		res.Stats.BlocksDecoded += r.Stats.BlocksDecoded
		res.Stats.BlocksSkipped += r.Stats.BlocksSkipped
	}
	res.Hits = MergeHits(k, parts...)
	return res
}

// Close closes the shards' engines that hold resources.
func (s *Sharded) Close() error { return closeAll(s.engines) }

// deviceSharded is Sharded over GPU engines: it answers batches, each
// shard's engine answering the whole batch at once, and reports the
// devices' usage, so that the server's batching and scheduling serve the
// shards as they serve one index.
type deviceSharded struct{ *Sharded }

// SearchBatch implements BatchEngine, AND-then-OR deciding on the AND
// hits of all the shards as Search does.
func (s deviceSharded) SearchBatch(ctx context.Context, qs []Query) ([]Result, error) {
	return searchBatchModes(ctx, qs, s.batch)
}

// batch answers qs[i] in modes[i] into res[i] for every i of idx: each
// shard's engine answers them together, the shards at once.
func (s deviceSharded) batch(ctx context.Context, qs []Query, modes []Mode, idx []int, res []Result) error {
	if len(idx) == 0 {
		return nil
	}
	sub := make([]Query, len(idx))
	for j, i := range idx {
		sub[j] = qs[i]
		sub[j].Mode = modes[i]
	}
	per := make([][]Result, len(s.engines))
	err := s.each(func(j int) (err error) {
		per[j], err = searchAll(ctx, s.engines[j], sub)
		return err
	})
	if err != nil {
		return err
	}
	rs := make([]Result, len(s.engines))
	for q, i := range idx {
		for j := range s.engines {
			rs[j] = per[j][q]
		}
		res[i] = s.merge(qs[i].K, rs)
	}
	return nil
}

// DeviceUsage implements DeviceEngine: the shards' engines' usage,
// summed.
func (s deviceSharded) DeviceUsage() DeviceUsage { return sumUsage(s.engines) }
