package query

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// DAAT is a document-at-a-time engine: one conjunctive algorithm answers
// AND queries and one disjunctive algorithm answers OR queries; AND+OR
// runs the first and falls back to the second.
type DAAT struct {
	ix  *index.Index
	and daatAlgorithm
	or  daatAlgorithm
	// searches holds finished searches (*search), whose cursors, heap and
	// scratch a later query reuses: over a segmented index every query
	// opens a cursor per term in every segment, and their allocation was
	// a fifth of a small segment's cost.
	searches sync.Pool
}

// daatAlgorithm is one traversal over the cursors of a search.
type daatAlgorithm struct {
	name string
	run  func(s *search) error
	// seeks: run moves every list before it reads it, so the lists open
	// lazily (index.LazyCursor) and blocks it seeks past, the first
	// included, are never decoded.
	seeks bool
}

// Search implements Engine.
func (e *DAAT) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	res, err := runMode(ctx, q, e.run)
	res.Stats.Took = time.Since(start)
	return res, err
}

func (e *DAAT) run(ctx context.Context, q Query, mode Mode) (Result, error) {
	return e.runAbove(ctx, q, mode, -1)
}

// searchAbove implements floorSearcher.
func (e *DAAT) searchAbove(ctx context.Context, q Query, mode Mode, floor float32) (Result, error) {
	// A document scoring floor may still enter (it may rank first among
	// equals): only bounds below it prune.
	return e.runAbove(ctx, q, mode, math.Nextafter(float64(floor), math.Inf(-1)))
}

// runAbove is run where a document's score bound must exceed floor for it
// to be scored (-1: no floor).
func (e *DAAT) runAbove(ctx context.Context, q Query, mode Mode, floor float64) (Result, error) {
	algo := e.or
	if mode == And {
		algo = e.and
	}
	var res Result
	res.Stats.Algorithm = algo.name
	if err := ctx.Err(); err != nil {
		return res, err
	}
	s, _ := e.searches.Get().(*search)
	if s == nil {
		s = new(search)
	}
	defer e.searches.Put(s)
	terms, all := resolveInto(s.terms[:0], e.ix, q.Terms)
	s.terms = terms
	if len(terms) == 0 || (mode == And && !all) {
		return res, nil
	}
	if floor >= 0 {
		// No document here can beat the other segments' k-th score: the
		// segment is done before a cursor opens.
		var bound float64
		for _, t := range terms {
			bound += float64(t.info.MaxScore)
		}
		if bound*boundSlack(len(terms)) <= floor {
			return res, nil
		}
	}
	s = openSearch(s, ctx, e.ix, terms, q.K, algo.seeks)
	defer s.release()
	s.floor, s.thr = floor, floor
	var err error
	if s.phrases, err = newPhraseFilter(e.ix, q, mode); err != nil {
		return res, err
	}
	if s.phrases != nil {
		s.phrases.share(s.lists)
	}
	err = algo.run(s)
	if err == nil {
		err = s.cursorErr()
	}
	s.addCursorStats()
	res.Hits = s.top.Hits()
	s.stats.Algorithm = algo.name
	res.Stats = s.stats
	return res, err
}

// termList is one query term's cursor with what scoring it needs.
type termList struct {
	*index.Cursor
	idf   float32
	pos   int     // the term's place in the query: scores add in this order
	bound float64 // MaxScore: no posting of the list scores more
}

// search is the state of one query under a DAAT algorithm.
type search struct {
	ctx     context.Context
	ix      *index.Index
	params  bm25.Params
	norms   []float32
	lists   []*termList // in query-term order
	top     *TopK
	thr     float64       // see push
	floor   float64       // what thr never falls below: other segments' (segments.go), else -1
	phrases *phraseFilter // the query's phrases, nil without
	skip    *index.Cursor // push drops the documents of its list (phased), if not nil
	stats   Stats
	slack   float64 // multiplies every score bound before it is compared
	memo    []memo  // by query position: the last term score computed
	steps   int
	cursors []*index.Cursor // the lists' cursors, kept for reuse (openSearch)
	terms   []term          // the query's resolved terms, their memory kept for reuse
	win     orWindow        // MaxScore's windows (maxscore.go), kept for reuse
	pass    passRun         // drive's scored block (passing), kept for reuse
	others  []*termList     // phased's second-phase lists, kept for reuse

	// Room for the lists and memos of a query of up to inline terms, so
	// that a short query's state is one allocation, and for the
	// algorithms' scratch (scratch).
	listBuf  [inline]termList
	ptrBuf   [inline]*termList
	memoBuf  [inline]memo
	orderBuf [inline]*termList
	sumBuf   [inline + 1]float64
	scoreBuf [inline]float32
}

// inline is how many terms a search holds without further allocations.
const inline = 8

// memo is a term's score of one document.
type memo struct {
	doc   uint32
	score float32
}

// newSearch opens the terms' lists for a top-k search: lazily
// (index.LazyCursor) when the algorithm seeks into every list before it
// reads it, else each on its first posting.
func newSearch(ctx context.Context, ix *index.Index, terms []term, k int, lazy bool) *search {
	return openSearch(new(search), ctx, ix, terms, k, lazy)
}

// openSearch is newSearch in the memory of s, a finished search on the
// same index (released) or a new(search): its cursors, heap, term memory
// and scratch are reused.
func openSearch(s *search, ctx context.Context, ix *index.Index, terms []term, k int, lazy bool) *search {
	cursors, kept, top, win, pass, others := s.cursors, s.terms, s.top, s.win, s.pass, s.others
	if top == nil {
		top = NewTopK(k)
	} else {
		top.reset(k)
	}
	*s = search{
		ctx:     ctx,
		ix:      ix,
		params:  ix.BM25(),
		norms:   ix.Norms(),
		top:     top,
		thr:     -1,
		floor:   -1,
		slack:   boundSlack(len(terms)),
		cursors: cursors,
		terms:   kept,
		win:     win,
		pass:    pass,
		others:  others,
	}
	n := len(terms)
	lists := slices.Grow(s.listBuf[:0], n)[:n]
	s.lists = slices.Grow(s.ptrBuf[:0], n)[:n]
	s.memo = slices.Grow(s.memoBuf[:0], n)[:n]
	for i := range s.memo {
		s.memo[i] = memo{doc: index.NoMoreDocs}
	}
	for len(s.cursors) < n {
		s.cursors = append(s.cursors, nil)
	}
	for i, t := range terms {
		c := ix.ReuseCursor(s.cursors[i], t.info, lazy)
		s.cursors[i] = c
		lists[i] = termList{Cursor: c, idf: t.idf, pos: i, bound: float64(c.MaxScore())}
		s.lists[i] = &lists[i]
	}
	return s
}

// release drops what a finished search refers to beyond its own memory
// (the query's context, phrases and list slices), before it is kept for
// reuse.
func (s *search) release() {
	s.ctx, s.ix, s.phrases = nil, nil, nil
	s.lists, s.memo = nil, nil
}

// scratch returns, for an algorithm over n lists, room for a reordering
// of the lists, n+1 sums and n scores: s's own for up to inline lists.
func (s *search) scratch(n int) ([]*termList, []float64, []float32) {
	if n > inline {
		return make([]*termList, n), make([]float64, n+1), make([]float32, n)
	}
	clear(s.sumBuf[:n+1])
	clear(s.scoreBuf[:n])
	return s.orderBuf[:n], s.sumBuf[:n+1], s.scoreBuf[:n]
}

// boundSlack is the factor a bound on a document's score, summed in
// float64 from float32 term bounds in any order, is multiplied by before it
// is compared with the heap's threshold. The document's real score is a
// float32 sum of n terms in query order; each addition rounds by at most
// 2^-24 relative, so the real score exceeds the exact sum by less than
// (n-1)*2^-24 relative. n*2^-22 covers that four times over, plus the
// float64 rounding of the bound itself (about n*2^-53).
func boundSlack(n int) float64 { return 1 + float64(n)/(1<<22) }

// push offers a scored document to the heap and keeps thr, what a
// document's score bound must exceed for the document to be worth scoring:
// the heap's worst score once the heap is full, and below every score
// before that.
//
// Ties: DAAT visits documents in increasing docid order, so every kept hit
// has a smaller docid than the document under consideration, and TopK
// refuses a document whose score equals the worst kept score (it would
// rank below it). A document whose bound is <= thr therefore cannot enter,
// and pruning it never changes the result. In phased's second phase kept
// hits may have larger docids; canEnter's slack, above 1, lets a bound
// equal to thr through, and TopK settles the tie by docid.
//
// A query's phrases are checked only for a document that would enter;
// a document of s.skip's list, which phased's first phase offered, is
// not offered again.
func (s *search) push(h Hit) {
	if s.skip != nil && s.skip.NextGEQ(h.DocID) == h.DocID {
		return
	}
	if s.phrases != nil && (!s.top.admits(h) || !s.phrases.match(h.DocID)) {
		return
	}
	if s.top.Push(h) && s.top.Full() {
		s.thr = max(float64(s.top.Threshold()), s.floor)
	}
}

// pruning reports whether a document can be ruled out by its score bound:
// once the heap is full, and from the start under a floor (the k-th score
// of the segments searched before), which a document must beat whatever
// this segment's heap holds.
func (s *search) pruning() bool { return s.thr >= 0 }

// canEnter reports whether a document whose score is at most bound could
// still enter the heap.
func (s *search) canEnter(bound float64) bool { return bound*s.slack > s.thr }

// termScore is the BM25 score of l's current posting, computed once per
// posting even when an algorithm asks again.
func (s *search) termScore(l *termList) float32 {
	d := l.DocID()
	m := &s.memo[l.pos]
	if m.doc == d {
		return m.score
	}
	s.stats.PostingsScored++
	sc := s.params.TermScore(l.idf, l.Freq(), s.norms[d])
	*m = memo{doc: d, score: sc}
	return sc
}

// scoreMatches scores doc d over every list standing on it, adding the
// term scores in query order, and offers it to the heap.
func (s *search) scoreMatches(d uint32) {
	var sum float32
	for _, l := range s.lists {
		if l.DocID() == d {
			sum += s.termScore(l)
		}
	}
	s.push(Hit{DocID: d, Score: sum})
}

// scoreAll scores doc d, on which every list stands (a conjunctive match),
// adding the term scores in query order, and offers it to the heap. It
// skips termScore's memo: no algorithm that calls it asks for a score
// twice.
func (s *search) scoreAll(d uint32) {
	norm := s.norms[d]
	var sum float32
	for _, l := range s.lists {
		sum += s.params.TermScore(l.idf, l.Freq(), norm)
	}
	s.stats.PostingsScored += int64(len(s.lists))
	s.push(Hit{DocID: d, Score: sum})
}

// tick counts one step of an algorithm's main loop and, every checkEvery
// steps, reports a cancelled context.
func (s *search) tick() error {
	s.steps++
	if s.steps%checkEvery == 0 {
		return s.ctx.Err()
	}
	return nil
}

// cursorErr is the first corrupt block any cursor met.
func (s *search) cursorErr() error {
	for _, l := range s.lists {
		if err := l.Err(); err != nil {
			return err
		}
	}
	if s.phrases != nil {
		return s.phrases.failure()
	}
	return nil
}

func (s *search) addCursorStats() {
	for _, l := range s.lists {
		s.stats.BlocksDecoded += int64(l.BlocksDecoded())
		s.stats.BlocksSkipped += int64(l.BlocksSkipped())
	}
	if s.phrases != nil {
		s.stats.BlocksDecoded += s.phrases.blocksDecoded()
	}
}
