package api

import (
	"cmp"
	"errors"
	"html"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/snippet"
)

// describe describes a page of hits for a request (Describe), without
// snippets for snippets=0. It runs after the result cache, on the hits of
// the page asked for only: one cached answer serves every page and every
// form of highlighting, and a snippet costs little beside decoding its
// text's block, which a cached snippet would not save much of either.
func (s *Server) describe(g *generation, q query.Query, hits []Hit, noSnippets, asHTML bool) error {
	size := s.cfg.Search.SnippetBytes
	if noSnippets {
		size = 0
	}
	a := s.analyzer.Get().(*analysis.Analyzer)
	defer s.analyzer.Put(a)
	err := describeParts(g, a, q, hits, size, asHTML, s.cfg.Search.SnippetWorkers)
	if errors.Is(err, index.ErrCorrupt) {
		// A store or positions file that changed on disk, found by a
		// hit's snippet where the search found nothing wrong (postings
		// kept in memory): the generation is reloaded as a search's
		// finding would have it.
		g.damage.CompareAndSwap(nil, &err)
	}
	return err
}

// Describe gives each hit its title and, when snippetBytes > 0 and the
// index stores text, a snippet of about snippetBytes of its text for q:
// the words q matched marked in Highlights, and in SnippetHTML too when
// asHTML. a is an analyzer for snippets to match words as the index
// does. An index that stores nothing leaves the hits as they are.
//
// With positions and the text stored word-coded, the positions of q's
// terms in each hit say where its snippet lies (snippet.Maker.Locate) and
// only the tokens there are decoded, already marked with the terms they
// are; otherwise, or when that window misses every term the document
// holds, the whole text is read and scanned, skipping the terms the
// postings say it lacks.
//
// Snippets are made on up to workers goroutines at once (0: one per
// core, GOMAXPROCS; never more than the hits), the caller's among them,
// each taking the next hit not yet taken: a hit's snippet costs from tens
// of microseconds to milliseconds, so a page's wall time is about its
// dearest hit's rather than their sum where cores are free. The page's
// postings are read once, before, for all of them. A hit's snippet is
// the same whichever goroutine makes it and whatever hits share its page.
func Describe(ix *index.Index, a *analysis.Analyzer, q query.Query, hits []Hit, snippetBytes int, asHTML bool, workers int) error {
	if ix.Store() == index.StoreNone {
		return nil
	}
	if ix.Store() != index.StoreText || snippetBytes <= 0 {
		return ix.Guard(func() error {
			for i := range hits {
				doc, err := ix.Document(hits[i].DocID, false)
				if err != nil {
					return err
				}
				hits[i].Title = doc.Title
			}
			return nil
		})
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(hits))
	pg := pages.Get().(*page)
	defer pages.Put(pg)
	d := describer{ix: ix, q: q, hits: hits, asHTML: asHTML, located: ix.WordText() && ix.HasPositions()}
	var err error
	if d.located {
		if d.tt, err = ix.TextTerms(q.Terms); err != nil {
			return err
		}
	}
	if d.lk, err = pg.lookUp(ix, q.Terms, hits, d.located); err != nil {
		return err
	}
	sq := snippet.Query{Terms: q.Terms, Phrases: q.Phrases}
	wins := pg.windowsFor(max(workers, 1))
	var next atomic.Int64
	each := func(a *analysis.Analyzer, k int) error {
		w := d.worker(snippet.New(sq, snippetBytes), wins[k])
		return ix.Guard(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(hits) {
					return nil
				}
				if err := w.describe(a, i); err != nil {
					next.Store(int64(len(hits))) // the others stop at their next hit
					return err
				}
			}
		})
	}
	if workers <= 1 {
		return each(a, 0)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() {
			b := analyzers.Get().(*analysis.Analyzer)
			defer analyzers.Put(b)
			errs[w] = each(b, w)
		})
	}
	errs[0] = each(a, 0)
	wg.Wait()
	return errors.Join(errs...)
}

// analyzers lends analyzers to the goroutines of Describe beyond the
// caller's: an analyzer caches stems, and is for one goroutine at a time.
var analyzers = sync.Pool{New: func() any { return analysis.New() }}

// describer is what a page's goroutines share, read-only: its hits
// (each goroutine writes only the hits it takes), what the postings say
// of them and the query's terms in the stored text.
type describer struct {
	ix      *index.Index
	q       query.Query
	hits    []Hit
	asHTML  bool
	located bool             // positions and word-coded text: snippets from windows
	tt      *index.TextTerms // with located
	lk      lookup
}

// worker returns what one goroutine needs to describe the page's hits
// with m, decoding windows in win.
func (d *describer) worker(m *snippet.Maker, win *wordWindow) *describeWorker {
	w := &describeWorker{d: d, m: m}
	if d.located {
		w.wd = &wordSnippets{ix: d.ix, m: m, terms: d.q.Terms, tt: d.tt, ids: m.TermIDs(d.q.Terms), wordWindow: win}
	}
	return w
}

// describeWorker describes hits on one goroutine.
type describeWorker struct {
	d  *describer
	m  *snippet.Maker
	wd *wordSnippets // with located
}

// describe gives hit i its title and snippet. The caller holds the
// index's Guard: the mapped titles and texts are read under it, as every
// reader of the index must.
func (w *describeWorker) describe(a *analysis.Analyzer, i int) error {
	d := w.d
	h := &d.hits[i]
	doc, err := d.ix.Document(h.DocID, !d.located)
	if err != nil {
		return err
	}
	h.Title = doc.Title
	var sn snippet.Snippet
	if d.located {
		if sn, err = w.wd.make(h.DocID, d.lk.positions[i]); err != nil {
			return err
		}
	}
	// The whole text: without located snippets, or where the window
	// misses the document's terms (a term matched only inside a phrase
	// that does not occur).
	if !d.located || len(sn.Highlights) == 0 && d.lk.holdsAny(i) {
		if d.located {
			if doc, err = d.ix.Document(h.DocID, true); err != nil {
				return err
			}
		}
		var has func(string) bool
		if d.lk.held != nil {
			has = func(t string) bool {
				b := slices.Index(d.q.Terms, t)
				return b < 0 || d.lk.held[i]>>b&1 == 1
			}
		}
		sn = w.m.Make(a, doc.Text, has)
	}
	h.Snippet, h.Highlights = sn.Text, sn.Highlights
	if d.asHTML {
		h.SnippetHTML = markHTML(sn)
	}
	return nil
}

// wordSnippets makes a page's snippets from a word-coded text: the
// window Locate finds in a hit's positions, decoded from a third of a
// snippet's length of text before it to a snippet's length after its
// start, its tokens already marked with the query terms they are
// (index.TextTerms), so that nothing is scanned or stemmed.
type wordSnippets struct {
	ix    *index.Index
	m     *snippet.Maker
	terms []string
	tt    *index.TextTerms
	ids   []int32 // per query term, its Maker id
	*wordWindow
}

// wordWindow is the memory wordSnippets decodes windows in, kept from one
// page to the next (page).
type wordWindow struct {
	w       index.TextWindow
	matched []snippet.Matched
}

// windowBefore and windowAfter are how much text around the start of
// Locate's window a snippet's window decodes: the snippet starts at most
// a third of its length before its first match and ends at most its
// length after its start (snippet.Maker's cut), and a few bytes more let
// the cut find word boundaries there.
func windowBefore(m *snippet.Maker) int { return m.Size()/3 + 16 }

func windowAfter(m *snippet.Maker) int { return m.Size() + 16 }

// make returns the snippet of document doc, whose terms lie at positions
// (per term, nil where the document lacks it).
func (s *wordSnippets) make(doc uint32, positions [][]uint32) (snippet.Snippet, error) {
	from, to, _ := s.m.Locate(s.terms, positions)
	if err := s.ix.TextWindow(doc, from, to, windowBefore(s.m), windowAfter(s.m), s.tt, &s.w); err != nil {
		return snippet.Snippet{}, err
	}
	if s.w.AtEnd && !s.w.AtStart {
		// Near the text's end a snippet reaches back up to its whole
		// length before its first match.
		if err := s.ix.TextWindow(doc, from, to, s.m.Size()+16, windowAfter(s.m), s.tt, &s.w); err != nil {
			return snippet.Snippet{}, err
		}
	}
	s.matched = s.matched[:0]
	for i, t := range s.w.Tokens {
		if t.Term >= 0 && s.ids[t.Term] >= 0 {
			s.matched = append(s.matched, snippet.Matched{Start: int(t.Start), End: int(t.End), Term: s.ids[t.Term], Pos: s.w.First + uint32(i)})
		}
	}
	return s.m.MakeMatched(s.w.Text, s.matched, s.w.AtStart, s.w.AtEnd), nil
}

// lookup is what the postings say of a page's hits.
type lookup struct {
	held      []uint64     // per hit, which terms its document holds (bit i: terms[i]); nil for over 64 terms
	positions [][][]uint32 // with positions: per hit, per term, its positions in the document
}

// holdsAny reports whether the postings say hit i's document holds one
// of the terms (false when they were not asked: over 64 terms).
func (lk lookup) holdsAny(i int) bool { return lk.held != nil && lk.held[i] != 0 }

// page is the memory of a page's description, kept from one request to
// the next (pages): its cursors, with their blocks' buffers, its
// positions and its windows' text, so that a page's postings and windows
// are read without allocating.
type page struct {
	cursors   []*index.Cursor // per term, the last one opened
	order     []int
	held      []uint64
	positions [][][]uint32
	per       [][]uint32
	buf       []uint32
	windows   []*wordWindow // per goroutine of the page
}

// windowsFor returns the window memory of a page's n goroutines, one each.
func (p *page) windowsFor(n int) []*wordWindow {
	for len(p.windows) < n {
		p.windows = append(p.windows, new(wordWindow))
	}
	return p.windows[:n]
}

// pages lends pages to Describe.
var pages = sync.Pool{New: func() any { return new(page) }}

// lookUp reads, for each hit, which of terms its document holds and,
// with positions set, where: one cursor per term visits the hits in
// docid order, decoding only the blocks it lands in. What it returns
// lies in p's memory until p's next lookUp.
func (p *page) lookUp(ix *index.Index, terms []string, hits []Hit, positions bool) (lookup, error) {
	var lk lookup
	if len(terms) <= 64 {
		p.held = slices.Grow(p.held[:0], len(hits))[:len(hits)]
		clear(p.held)
		lk.held = p.held
	}
	if positions {
		p.positions = slices.Grow(p.positions[:0], len(hits))[:len(hits)]
		p.per = slices.Grow(p.per[:0], len(hits)*len(terms))[:len(hits)*len(terms)]
		clear(p.per)
		for i := range hits {
			p.positions[i] = p.per[i*len(terms) : (i+1)*len(terms) : (i+1)*len(terms)]
		}
		lk.positions = p.positions
	}
	if lk.held == nil && lk.positions == nil {
		return lk, nil
	}
	order := slices.Grow(p.order[:0], len(hits))[:len(hits)]
	p.order = order
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(hits[x].DocID, hits[y].DocID) })
	p.cursors = slices.Grow(p.cursors[:0], len(terms))[:len(terms)]
	buf := p.buf[:0] // the page's positions, term after term
	err := ix.Guard(func() error {
		for b, t := range terms {
			// A segmented index's hits lie in its segments (Locate): one
			// cursor per run of hits in the same segment.
			var seg *index.Index
			var c *index.Cursor
			for _, i := range order {
				s, d := ix.Locate(hits[i].DocID)
				if s != seg {
					if c != nil && c.Err() != nil {
						return c.Err()
					}
					seg, c = s, nil
					if info, ok := s.Lookup(t); ok {
						c = s.ReuseCursor(p.cursors[b], info, true)
						p.cursors[b] = c
					}
				}
				if c == nil || c.NextGEQ(d) != d {
					continue
				}
				if lk.held != nil {
					lk.held[i] |= 1 << b
				}
				if f := c.Freq(); lk.positions != nil {
					if cap(buf)-len(buf) < int(f) {
						// The slices already handed out keep the old
						// array; the next page starts in the new one.
						buf = make([]uint32, 0, max(int(f), 2*cap(buf), 1024))
						p.buf = buf
					}
					ps, err := c.Positions(buf[len(buf):len(buf):cap(buf)])
					if err != nil {
						return err
					}
					lk.positions[i][b], buf = ps, buf[:len(buf)+len(ps)]
				}
			}
			if c != nil && c.Err() != nil {
				return c.Err()
			}
		}
		return nil
	})
	return lk, err
}

// markHTML writes a snippet as HTML text: escaped, its highlights inside
// <mark> elements.
func markHTML(sn snippet.Snippet) string {
	var b strings.Builder
	at := 0
	for _, h := range sn.Highlights {
		b.WriteString(html.EscapeString(sn.Text[at:h[0]]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(sn.Text[h[0]:h[1]]))
		b.WriteString("</mark>")
		at = h[1]
	}
	b.WriteString(html.EscapeString(sn.Text[at:]))
	return b.String()
}
