package analytics

import (
	"cmp"
	"context"
	"fmt"
	"time"
)

// RunPlain computes task on uncompressed documents, each a run of word
// ids below numWords (Corpus.Decompress gives them): the baseline that
// analytics on the compressed form is measured against. It returns what
// Run returns for the same corpus, with Traversal Auto.
func RunPlain(ctx context.Context, docs [][]uint32, numWords int, task Task, opts Options) (*Result, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := ParseTask(string(task)); err != nil {
		return nil, err
	}
	for d, doc := range docs {
		for _, w := range doc {
			if int(w) >= numWords {
				return nil, fmt.Errorf("analytics: document %d has word %d, the dictionary %d", d, w, numWords)
			}
		}
	}
	start := time.Now()
	res := &Result{Task: task, SeqLen: opts.SeqLen}
	switch task {
	case WordCount, Sort:
		res.Counts = make([]uint64, numWords)
		for _, doc := range docs {
			for _, w := range doc {
				res.Counts[w]++
			}
		}
	case InvertedIndex, RankedInvertedIndex:
		if res.Vectors, err = plainVectors(ctx, docs, numWords, false); err != nil {
			return nil, err
		}
		res.Postings, res.Vectors = res.Vectors.Transpose(numWords), nil
		if task == RankedInvertedIndex {
			res.Postings.Rank()
		}
	case TermVector:
		if res.Vectors, err = plainVectors(ctx, docs, numWords, true); err != nil {
			return nil, err
		}
	case SeqCount:
		if res.Vectors, res.Seqs, err = plainSeqs(ctx, docs, numWords, opts.SeqLen); err != nil {
			return nil, err
		}
	}
	res.Traverse = time.Since(start)
	return res, nil
}

// plainVectors counts each document's words, each row sorted by word when
// sorted is set.
func plainVectors(ctx context.Context, docs [][]uint32, numWords int, sorted bool) (*Matrix, error) {
	words := 0
	for _, doc := range docs {
		words += len(doc)
	}
	m := newRows(len(docs), words) // a document has at most a distinct word per word
	acc := newAccumulator(numWords)
	for d, doc := range docs {
		if d%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, w := range doc {
			acc.add(w, 1)
		}
		acc.endRow(m, sorted)
	}
	return m, nil
}

// plainSeqs counts each document's l-word windows.
func plainSeqs(ctx context.Context, docs [][]uint32, numWords, l int) (*Matrix, []uint32, error) {
	si := newSeqInterner(l, numWords)
	windows := 0
	for _, doc := range docs {
		windows += max(0, len(doc)-l+1)
	}
	m := newRows(len(docs), windows) // a document has at most a distinct sequence per window
	var counts []uint32
	var touched []uint32
	for d, doc := range docs {
		if d%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		for p := 0; p+l <= len(doc); p++ {
			id := si.id(doc[p : p+l])
			for int(id) >= len(counts) {
				counts = append(counts, 0)
			}
			if counts[id] == 0 {
				touched = append(touched, id)
			}
			counts[id]++
		}
		for _, id := range touched {
			m.Col = append(m.Col, id)
			m.Val = append(m.Val, counts[id])
			counts[id] = 0
		}
		touched = touched[:0]
		m.Start = append(m.Start, len(m.Col))
	}
	remap, seqs := si.canonical()
	for i, c := range m.Col {
		m.Col[i] = remap[c]
	}
	m.SortRows()
	return m, seqs, nil
}

// SortRows sorts each row by column.
func (m *Matrix) SortRows() {
	m.sortRows(func(a, b entry) int { return cmp.Compare(a.col, b.col) })
}
