package query

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestBitmapCacheEvictsLeastRecentlyUsed(t *testing.T) {
	bm := func(n uint32) *roaring.Bitmap {
		b := roaring.New()
		for i := range n {
			b.Add(i * 3)
		}
		return b
	}
	one := int64(bm(1000).GetSizeInBytes())
	c := newBitmapCache(3 * one)
	for id := range 3 {
		c.put(id, bm(1000))
	}
	if c.used != 3*one || c.lru.Len() != 3 {
		t.Fatalf("after 3 puts: used %d bytes in %d entries, want %d in 3", c.used, c.lru.Len(), 3*one)
	}
	c.get(0) // 1 is now the least recently used
	c.put(3, bm(1000))
	for id, want := range map[int]bool{0: true, 1: false, 2: true, 3: true} {
		if got := c.get(id) != nil; got != want {
			t.Errorf("get(%d) cached = %v, want %v", id, got, want)
		}
	}
	if c.used > c.limit {
		t.Errorf("used %d bytes, over the limit %d", c.used, c.limit)
	}
	c.put(9, bm(100_000)) // larger than the whole cache: not kept
	if c.get(9) != nil || c.lru.Len() != 3 {
		t.Errorf("a bitmap larger than the limit was cached (%d entries)", c.lru.Len())
	}
	off := newBitmapCache(0)
	off.put(1, bm(10))
	if off.get(1) != nil {
		t.Errorf("a cache of 0 bytes kept a bitmap")
	}
}
