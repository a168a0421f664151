package query

import (
	"container/list"
	"context"
	"sort"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/gpusearch/gpusearch/index"
)

// DefaultBitmapCacheBytes is the bitmap cache bound New uses.
const DefaultBitmapCacheBytes = 256 << 20

// BitmapOptions configure the bitmap baseline.
type BitmapOptions struct {
	// CacheBytes bounds the memory of the cached term bitmaps; the least
	// recently used are evicted past it. 0 caches nothing: every query
	// builds its bitmaps.
	CacheBytes int64
}

// Bitmap is the roaring-bitmap baseline: each query term's posting list
// becomes a roaring bitmap (built by decoding the whole list, then cached),
// the bitmaps are intersected (AND) or unioned (OR), and every surviving
// document is scored by moving the terms' cursors to it with NextGEQ.
type Bitmap struct {
	ix    *index.Index
	cache *bitmapCache
}

// NewBitmap makes the bitmap baseline over ix.
func NewBitmap(ix *index.Index, opts BitmapOptions) *Bitmap {
	return &Bitmap{ix: ix, cache: newBitmapCache(opts.CacheBytes)}
}

// Search implements Engine.
func (e *Bitmap) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	res, err := runMode(ctx, q, e.run)
	res.Stats.Algorithm = "bitmap"
	res.Stats.Took = time.Since(start)
	return res, err
}

func (e *Bitmap) run(ctx context.Context, q Query, mode Mode) (Result, error) {
	var res Result
	if err := ctx.Err(); err != nil {
		return res, err
	}
	terms, all := resolve(e.ix, q.Terms)
	if len(terms) == 0 || (mode == And && !all) {
		return res, nil
	}
	bms := make([]*roaring.Bitmap, len(terms))
	for i, t := range terms {
		bm, err := e.bitmap(ctx, t.info, &res.Stats)
		if err != nil {
			return res, err
		}
		bms[i] = bm
	}
	survivors := bms[0]
	switch {
	case len(bms) == 1:
	case mode == And:
		sorted := append([]*roaring.Bitmap(nil), bms...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].GetCardinality() < sorted[j].GetCardinality() })
		survivors = roaring.FastAnd(sorted...)
	default:
		survivors = roaring.FastOr(bms...)
	}
	s := newSearch(ctx, e.ix, terms, q.K, true) // it only seeks
	var err error
	if s.phrases, err = newPhraseFilter(e.ix, q, mode); err != nil {
		return res, err
	}
	if s.phrases != nil {
		s.phrases.share(s.lists)
	}
	survivors.Iterate(func(d uint32) bool {
		if err = s.tick(); err != nil {
			return false
		}
		var sum float32
		for _, l := range s.lists {
			if l.NextGEQ(d) == d {
				sum += s.termScore(l)
			}
		}
		s.push(Hit{DocID: d, Score: sum})
		return true
	})
	if err == nil {
		err = s.cursorErr()
	}
	s.addCursorStats()
	res.Hits = s.top.Hits()
	res.Stats.PostingsScored += s.stats.PostingsScored
	res.Stats.BlocksDecoded += s.stats.BlocksDecoded
	res.Stats.BlocksSkipped += s.stats.BlocksSkipped
	return res, err
}

// bitmap returns t's bitmap from the cache, or builds (and caches) it; the
// blocks a build decodes count in stats.
func (e *Bitmap) bitmap(ctx context.Context, t index.TermInfo, stats *Stats) (*roaring.Bitmap, error) {
	if bm := e.cache.get(t.ID); bm != nil {
		return bm, nil
	}
	c := e.ix.Cursor(t)
	docs := make([]uint32, 0, t.DF)
	for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
		if len(docs)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		docs = append(docs, d)
	}
	stats.BlocksDecoded += int64(c.BlocksDecoded())
	if err := c.Err(); err != nil {
		return nil, err
	}
	bm := roaring.BitmapOf(docs...)
	bm.RunOptimize()
	e.cache.put(t.ID, bm)
	return bm, nil
}

// bitmapCache keeps term bitmaps under a bound on their total size, least
// recently used out first. Bitmaps in it are never modified, so any number
// of queries may read one at once. Two queries missing the same term at
// once both build it; the second put is dropped.
type bitmapCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   *list.List // of *bitmapEntry, most recent at the front
	byID  map[int]*list.Element
}

type bitmapEntry struct {
	id   int
	bm   *roaring.Bitmap
	size int64
}

func newBitmapCache(limit int64) *bitmapCache {
	return &bitmapCache{limit: limit, lru: list.New(), byID: map[int]*list.Element{}}
}

func (c *bitmapCache) get(id int) *roaring.Bitmap {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*bitmapEntry).bm
}

func (c *bitmapCache) put(id int, bm *roaring.Bitmap) {
	size := int64(bm.GetSizeInBytes())
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok || size > c.limit {
		return
	}
	for c.used+size > c.limit {
		el := c.lru.Back()
		ent := el.Value.(*bitmapEntry)
		c.lru.Remove(el)
		delete(c.byID, ent.id)
		c.used -= ent.size
	}
	c.byID[id] = c.lru.PushFront(&bitmapEntry{id: id, bm: bm, size: size})
	c.used += size
}
