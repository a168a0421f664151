package query

import (
	"context"
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
		if acc.count[d] >= need {
			top.Push(Hit{DocID: d, Score: acc.score[d]})
		}
	}
	res.Hits = top.Hits()
	return res, nil
}

// runMode answers q by calling run for AND or OR, and for AND+OR runs AND
// then OR when AND found fewer than k hits; statistics add up, and a
// fallback's Algorithm names both runs ("and+maxscore").
func runMode(ctx context.Context, q Query, run func(context.Context, Query, Mode) (Result, error)) (Result, error) {
	if q.K <= 0 || len(q.Terms) == 0 {
		return Result{}, nil
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
