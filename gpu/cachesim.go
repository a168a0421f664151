package gpu

import (
	"fmt"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// CacheSim replays a query log through the list cache's bookkeeping, the
// code a GPU engine's cache runs, without a device: the lists each query
// pass would find on the device or copy in, under a policy and a
// capacity. For one query at a time it counts exactly what the engine
// counts; the result is deterministic given the index, the long-list
// size, the policy, the capacity and the log.
type CacheSim struct {
	ix  *index.Index
	lay *cacheLayout
}

// NewCacheSim lays out ix's lists as a cached GPU engine would, lists of
// at least longListBytes (0: DefaultLongListBytes) long, sized in the
// engine's codecs (re-encoded where the index's have no GPU decoder).
func NewCacheSim(ix *index.Index, longListBytes int64) (*CacheSim, error) {
	dh, fh := IndexColumns(ix)
	var lay *cacheLayout
	err := ix.Guard(func() error {
		var err error
		if dh, _, err = gpuColumn(dh); err != nil {
			return err
		}
		if fh, _, err = gpuColumn(fh); err != nil {
			return err
		}
		lay, err = newCacheLayout(ix, &dh, &fh, longListBytes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: cache simulation: %w", err)
	}
	return &CacheSim{ix: ix, lay: lay}, nil
}

// LongLists is the number of long lists.
func (s *CacheSim) LongLists() int { return len(s.lay.sizes) }

// LongBytes is the bytes the long lists take in the cache, each rounded
// as the cache places it: a capacity of LongBytes holds them all.
func (s *CacheSim) LongBytes() int64 {
	var n int64
	for _, b := range s.lay.sizes {
		n += align(b, cacheAlign)
	}
	return n
}

// ShortBytes is the bytes of the lists that stay resident.
func (s *CacheSim) ShortBytes() int64 { return s.lay.shortDoc + s.lay.shortFreq }

// Run replays qs, each in its own mode (And or Or; AndOr counts its AND
// pass), one at a time through an empty cache of capacity bytes under
// policy. The first warmup queries only warm the cache: the statistics
// count the rest.
func (s *CacheSim) Run(policy string, capacity int64, qs []query.Query, warmup int) (CacheStats, error) {
	if len(s.lay.sizes) == 0 { // nothing is long: nothing to cache
		p, err := checkPolicy(policy)
		return CacheStats{Policy: p}, err
	}
	c, err := newListCache(policy, capacity, s.lay.sizes)
	if err != nil {
		return CacheStats{}, err
	}
	for i, q := range qs {
		if i == warmup {
			c.mu.Lock()
			c.stats.Hits, c.stats.Misses, c.stats.HitBytes, c.stats.StreamedBytes = 0, 0, 0, 0
			c.stats.Evictions, c.stats.EvictedBytes = 0, 0
			c.mu.Unlock()
		}
		mode := q.Mode
		if mode == query.AndOr {
			mode = query.And
		}
		p, ok := planQuery(s.ix, q, mode)
		if !ok {
			continue
		}
		ids := s.lay.longLists(nil, &p)
		if len(ids) == 0 {
			continue
		}
		loads, err := c.acquire(ids)
		if err != nil {
			return CacheStats{}, fmt.Errorf("query %d: %w", i, err)
		}
		c.loaded(loads, nil)
		c.release(ids)
	}
	return c.snapshot(), nil
}
