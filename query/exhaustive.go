package query

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// Exhaustive is the reference engine: term-at-a-time over whole lists into
// dense per-document accumulators, then top-k. Every faster engine is
// checked against it.
type Exhaustive struct {
	ix   *index.Index
	pool sync.Pool // *accumulators
}

type accumulators struct {
	score   []float32
	count   []uint16
	touched []uint32
}

// NewExhaustive makes the reference engine over ix.
func NewExhaustive(ix *index.Index) *Exhaustive {
	e := &Exhaustive{ix: ix}
	e.pool.New = func() any {
		n := ix.NumDocs()
		return &accumulators{score: make([]float32, n), count: make([]uint16, n)}
	}
	return e
}

// Search implements Engine.
func (e *Exhaustive) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	res, err := runMode(ctx, q, e.run)
	res.Stats.Algorithm = "exhaustive"
	res.Stats.Took = time.Since(start)
	return res, err
}

func (e *Exhaustive) run(ctx context.Context, q Query, mode Mode) (Result, error) {
	var res Result
	terms, all := resolve(e.ix, q.Terms)
	if len(terms) == 0 || (mode == And && !all) {
		return res, nil
	}
	acc := e.pool.Get().(*accumulators)
	defer func() {
		for _, d := range acc.touched {
			acc.score[d], acc.count[d] = 0, 0
		}
		acc.touched = acc.touched[:0]
		e.pool.Put(acc)
	}()
	match, err := phraseMatcher(e.ix, q, mode)
	if err != nil {
		return res, err
	}
	params, norms := e.ix.BM25(), e.ix.Norms()
	for _, t := range terms {
		c := e.ix.Cursor(t.info)
		for d, i := c.DocID(), 0; d != index.NoMoreDocs; d, i = c.Next(), i+1 {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return res, err
				}
			}
			if acc.count[d] == 0 {
				acc.touched = append(acc.touched, d)
			}
			acc.count[d]++
			acc.score[d] += params.TermScore(t.idf, c.Freq(), norms[d])
		}
		if err := c.Err(); err != nil {
			return res, err
		}
		res.Stats.PostingsScored += int64(t.info.DF)
		res.Stats.BlocksDecoded += int64(c.BlocksDecoded())
	}
	top := NewTopK(q.K)
	need := uint16(1)
	if mode == And {
		need = uint16(len(terms))
	}
	for _, d := range acc.touched {
		if acc.count[d] >= need && match(d) {
			top.Push(Hit{DocID: d, Score: acc.score[d]})
		}
	}
	res.Hits = top.Hits()
	return res, nil
}

// phraseMatcher returns the reference's phrase check of q in mode (And or
// Or; see phrase.go for what they require): plain sets of the documents
// that hold each phrase, found position by position over whole lists.
func phraseMatcher(ix *index.Index, q Query, mode Mode) (func(doc uint32) bool, error) {
	if len(q.Phrases) == 0 {
		return func(uint32) bool { return true }, nil
	}
	if !ix.HasPositions() {
		return nil, fmt.Errorf("query: phrase %q: %w", q.Phrases[0], index.ErrNoPositions)
	}
	inPhrase := map[string]bool{}
	var holders []map[uint32]bool // per phrase, the documents holding it
	for _, p := range q.Phrases {
		docs, err := phraseDocs(ix, p)
		if err != nil {
			return nil, err
		}
		holders = append(holders, docs)
		for _, t := range p {
			inPhrase[t] = true
		}
	}
	loose := map[uint32]bool{} // documents holding a term in no phrase
	for _, t := range q.Terms {
		if info, ok := ix.Lookup(t); ok && !inPhrase[t] {
			c := ix.Cursor(info)
			for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
				loose[d] = true
			}
			if err := c.Err(); err != nil {
				return nil, err
			}
		}
	}
	return func(doc uint32) bool {
		if mode == And {
			for _, h := range holders {
				if !h[doc] {
					return false
				}
			}
			return true
		}
		if loose[doc] {
			return true
		}
		for _, h := range holders {
			if h[doc] {
				return true
			}
		}
		return false
	}, nil
}

// phraseDocs finds the documents holding the phrase: a position p of its
// first term with p+i a position of its term i, for every i.
func phraseDocs(ix *index.Index, phrase []string) (map[uint32]bool, error) {
	positions := make([]map[uint32][]uint32, len(phrase)) // per term: doc -> positions
	for i, t := range phrase {
		positions[i] = map[uint32][]uint32{}
		info, ok := ix.Lookup(t)
		if !ok {
			return nil, nil
		}
		c := ix.Cursor(info)
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			ps, err := c.Positions(nil)
			if err != nil {
				return nil, err
			}
			positions[i][d] = ps
		}
		if err := c.Err(); err != nil {
			return nil, err
		}
	}
	docs := map[uint32]bool{}
	for d, first := range positions[0] {
		for _, p := range first {
			all := true
			for i := 1; i < len(phrase) && all; i++ {
				all = slices.Contains(positions[i][d], p+uint32(i))
			}
			if all {
				docs[d] = true
				break
			}
		}
	}
	return docs, nil
}

// runMode answers q by calling run for AND or OR, and for AND+OR runs AND
// then OR when AND found fewer than k hits; statistics add up, and a
// fallback's Algorithm names both runs ("and+maxscore"). A query of one
// phrase and no other term runs as AND in every mode.
func runMode(ctx context.Context, q Query, run func(context.Context, Query, Mode) (Result, error)) (Result, error) {
	if q.K <= 0 || len(q.Terms) == 0 {
		return Result{}, nil
	}
	if onePhrase(q) {
		// OR needs the phrase, so every term: AND answers the same.
		q.Mode = And
	}
	if q.Mode != AndOr {
		return run(ctx, q, q.Mode)
	}
	res, err := run(ctx, q, And)
	if err != nil || len(res.Hits) >= q.K {
		return res, err
	}
	or, err := run(ctx, q, Or)
	if res.Stats.Algorithm != "" {
		or.Stats.Algorithm = res.Stats.Algorithm + "+" + or.Stats.Algorithm
	}
	or.Stats.PostingsScored += res.Stats.PostingsScored
	or.Stats.BlocksDecoded += res.Stats.BlocksDecoded
	or.Stats.BlocksSkipped += res.Stats.BlocksSkipped
	return or, err
}
