package index

import (
	"context"
	"fmt"
)

// Convert rewrites ix into dir with other codecs: same documents, terms,
// postings, order and BM25 parameters, so every query answers the same;
// the document store is copied as it lies.
// opts gives the codecs and Force; the order and the BM25 parameters are
// ix's.
func Convert(ctx context.Context, ix *Index, dir string, opts WriterOptions) error {
	if dir == ix.dir {
		return fmt.Errorf("index: convert: output directory is the input index")
	}
	urls := make([]string, ix.NumDocs())
	for d := range urls {
		urls[d] = ix.URL(uint32(d))
	}
	lens := append([]uint32(nil), ix.docLens...)
	opts.Order, opts.BM25 = ix.meta.Order, ix.params
	w, err := NewWriter(dir, opts, lens, urls)
	if err != nil {
		return err
	}
	if err := w.copyStore(ix); err != nil {
		w.Abort()
		return err
	}
	var docids, freqs []uint32
	for i := range ix.NumTerms() {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return err
		}
		t := ix.Term(i)
		c := ix.Cursor(t)
		docids, freqs = docids[:0], freqs[:0]
		for d := c.DocID(); d != NoMoreDocs; d = c.Next() {
			docids = append(docids, d)
			freqs = append(freqs, c.Freq())
		}
		if err := c.Err(); err != nil {
			w.Abort()
			return err
		}
		if err := w.AddTerm(t.Term, docids, freqs); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}
