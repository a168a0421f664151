package indexer

import "github.com/gpusearch/gpusearch/index"

// storeFeed hands documents to the document store in docid order. The
// parallel parse finishes documents out of order; those ahead of the next
// slot wait here, a few per worker, since slots are handed out in order.
type storeFeed struct {
	b       *index.StoreBuilder
	next    uint32                // the next slot to store
	pending map[uint32]storedSlot // slots parsed ahead of next
}

// storedSlot is what one slot gives the store: docs copies of its title
// and text (0 for a file that failed, its passages' number in passage
// mode).
type storedSlot struct {
	title  string
	text   []byte
	tokens []index.StoredToken
	docs   int
}

func newStoreFeed(b *index.StoreBuilder) *storeFeed {
	return &storeFeed{b: b, pending: map[uint32]storedSlot{}}
}

// add takes slot's documents and stores every slot that is now next.
func (f *storeFeed) add(slot uint32, s storedSlot) error {
	f.pending[slot] = s
	for {
		s, ok := f.pending[f.next]
		if !ok {
			return nil
		}
		delete(f.pending, f.next)
		f.next++
		for range s.docs {
			if err := f.b.Add(s.title, s.text, s.tokens); err != nil {
				return err
			}
		}
	}
}
