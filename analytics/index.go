package analytics

import (
	"context"
	"fmt"

	"github.com/gpusearch/gpusearch/index"
)

// BuildIndex writes a searchable index of the corpus into dir: the
// inverted index computed on the compressed form, docids in the corpus's
// document order, document lengths their word counts. For a corpus
// compressed with the indexer's analysis it holds the postings
// indexer.Build writes for the same crawl. A corpus of raw words is
// refused: queries are stemmed, its words are not.
func BuildIndex(ctx context.Context, c *Corpus, dir string, opts index.WriterOptions, trav Traversal) (*Result, error) {
	if c.Meta.Analysis != AnalysisIndex {
		return nil, fmt.Errorf("analytics: corpus analysis is %q: an index needs %q (compress without --raw)", c.Meta.Analysis, AnalysisIndex)
	}
	res, err := Run(ctx, c, InvertedIndex, Options{Traversal: trav})
	if err != nil {
		return nil, err
	}
	if opts.Order == "" {
		opts.Order = c.Meta.Order
	}
	w, err := index.NewWriter(dir, opts, c.DocLengths(), c.URLs)
	if err != nil {
		return nil, err
	}
	for t, term := range c.Dict {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return nil, err
		}
		docs, tfs := res.Postings.Row(t)
		if len(docs) == 0 {
			continue
		}
		if err := w.AddTerm(term, docs, tfs); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return res, nil
}
