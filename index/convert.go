package index

import (
	"context"
	"fmt"
)

// Convert rewrites ix into dir with other codecs: same documents, terms,
// postings, order and BM25 parameters, so every query answers the same;
// the document store and the sources are copied as they lie, and
// positions are kept (re-encoded with opts.PositionsCodec, by default the
// new docid codec).
// opts gives the codecs and Force; the order, the BM25 parameters and
// whether the index has positions are ix's.
func Convert(ctx context.Context, ix *Index, dir string, opts WriterOptions) error {
	if dir == ix.dir {
		return fmt.Errorf("index: convert: output directory is the input index")
	}
	urls := make([]string, ix.NumDocs())
	for d := range urls {
		urls[d] = ix.URL(uint32(d))
	}
	lens := append([]uint32(nil), ix.docLens...)
	opts.Order, opts.BM25, opts.Positions = ix.meta.Order, ix.params, ix.HasPositions()
	opts.TitleWeight = ix.meta.TitleWeight
	w, err := NewWriter(dir, opts, lens, urls)
	if err != nil {
		return err
	}
	if err := w.copyStore(ix); err != nil {
		w.Abort()
		return err
	}
	// The sources, so that the converted index can be updated in place
	// of the original.
	if so, srcs, ok := ix.Sources(); ok {
		if err := w.AddSources(so, srcs); err != nil {
			w.Abort()
			return err
		}
	}
	var docids, freqs, positions, buf []uint32
	for i := range ix.NumTerms() {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return err
		}
		t := ix.Term(i)
		c := ix.Cursor(t)
		docids, freqs, positions = docids[:0], freqs[:0], positions[:0]
		for d := c.DocID(); d != NoMoreDocs; d = c.Next() {
			docids = append(docids, d)
			freqs = append(freqs, c.Freq())
			if opts.Positions {
				if buf, err = c.Positions(buf); err != nil {
					break
				}
				positions = append(positions, buf...)
			}
		}
		if err == nil {
			err = c.Err()
		}
		if err == nil && opts.Positions {
			err = w.AddTermPositions(t.Term, docids, freqs, positions)
		} else if err == nil {
			err = w.AddTerm(t.Term, docids, freqs)
		}
		if err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}
