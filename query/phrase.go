package query

import (
	"fmt"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// Phrases constrain which documents match a query; they never change a
// score. In AND mode a document must hold every term and match every
// phrase. In OR mode it must hold a term that is in no phrase or match at
// least one phrase. AND+OR runs the first, then the second if the first
// found fewer than k. A query of one phrase and no other term is AND in
// every mode (runMode).

// phraseFilter decides whether documents that hold a query's terms match
// its phrases, with the engine's cursors where they stand on the document
// (share), else cursors of its own on the phrases' terms (and, in OR mode,
// on the terms outside phrases). Documents may come in any order: a
// cursor asked for a document before its last one starts over.
type phraseFilter struct {
	phrases [][]*index.Cursor // per phrase, a cursor per term, in order
	shared  [][]*index.Cursor // the same terms' cursors of the engine, or nil (share)
	at      []*index.Cursor   // the cursors standing on the document, per term
	loose   []*index.Cursor   // OR mode: the terms in no phrase
	or      bool
	last    uint32 // the document asked last
	ix      *index.Index
	cands   []uint32 // the current phrase's start positions that still match
	buf     []uint32
	order   []int // the current phrase's terms, fewest positions in the document first
	err     error
}

// onePhrase reports whether q is one phrase and no other term.
func onePhrase(q Query) bool {
	if len(q.Phrases) != 1 {
		return false
	}
	for _, t := range q.Terms {
		if !slices.Contains(q.Phrases[0], t) {
			return false
		}
	}
	return true
}

// newPhraseFilter makes q's filter for mode (And or Or), or nil when q has
// no phrases. An index without positions cannot answer phrases: an error
// wrapping index.ErrNoPositions.
func newPhraseFilter(ix *index.Index, q Query, mode Mode) (*phraseFilter, error) {
	if len(q.Phrases) == 0 {
		return nil, nil
	}
	if !ix.HasPositions() {
		return nil, fmt.Errorf("query: phrase %q: %w", q.Phrases[0], index.ErrNoPositions)
	}
	f := &phraseFilter{ix: ix, or: mode != And}
	inPhrase := map[string]bool{}
	for _, p := range q.Phrases {
		cs := make([]*index.Cursor, 0, len(p))
		for _, t := range p {
			inPhrase[t] = true
			if info, ok := ix.Lookup(t); ok {
				cs = append(cs, ix.LazyCursor(info))
			}
		}
		// A phrase with a term the index lacks matches nothing: OR drops
		// it (AND found the query empty already).
		if len(cs) == len(p) {
			f.phrases = append(f.phrases, cs)
		}
	}
	if f.or {
		for _, t := range q.Terms {
			if info, ok := ix.Lookup(t); ok && !inPhrase[t] {
				f.loose = append(f.loose, ix.LazyCursor(info))
			}
		}
	}
	return f, nil
}

// share gives the filter the engine's cursors on the query's terms: when
// one stands on the document asked, its positions are read there, and
// its blocks are not decoded a second time.
func (f *phraseFilter) share(lists []*termList) {
	f.shared = make([][]*index.Cursor, len(f.phrases))
	for i, p := range f.phrases {
		f.shared[i] = make([]*index.Cursor, len(p))
		for j, c := range p {
			for _, l := range lists {
				if l.Term().ID == c.Term().ID {
					f.shared[i][j] = l.Cursor
				}
			}
		}
	}
}

// seek moves c to doc, starting it over if doc comes before the document
// asked last, and reports whether c's list holds doc.
func (f *phraseFilter) seek(c **index.Cursor, doc uint32) bool {
	if doc < f.last {
		*c = f.ix.LazyCursor((*c).Term())
	}
	return (*c).NextGEQ(doc) == doc
}

// match reports whether doc, which holds the query's terms as the mode
// requires, matches the phrases. A damaged list makes it false, and err
// reports it.
func (f *phraseFilter) match(doc uint32) bool {
	defer func() { f.last = doc }()
	if !f.or {
		for i := range f.phrases {
			if !f.matchPhrase(i, doc) {
				return false
			}
		}
		return true
	}
	for i := range f.loose {
		if f.seek(&f.loose[i], doc) {
			return true
		}
	}
	for i := range f.phrases {
		if f.matchPhrase(i, doc) {
			return true
		}
	}
	return false
}

// matchPhrase reports whether doc holds phrase k: a position p of its
// first term with p+i a position of its term i.
func (f *phraseFilter) matchPhrase(k int, doc uint32) bool {
	cs := f.phrases[k]
	f.at = f.at[:0]
	for i := range cs {
		if f.shared != nil {
			// A lazy cursor that has not moved reads docid 0 too: one
			// that decoded a block and reads doc stands on it.
			if c := f.shared[k][i]; c != nil && c.DocID() == doc && c.BlocksDecoded() > 0 {
				f.at = append(f.at, c)
				continue
			}
		}
		if !f.seek(&cs[i], doc) {
			return false
		}
		f.at = append(f.at, cs[i])
	}
	// Lead with the term the document holds least often and check the
	// others from the rarest up, as the candidates dwindle: a phrase with
	// "in" or "the" then rarely decodes their hundreds of positions.
	f.order = f.order[:0]
	for i := range f.at { // insertion by frequency: a phrase has few terms
		j := len(f.order)
		f.order = append(f.order, i)
		for ; j > 0 && f.at[f.order[j-1]].Freq() > f.at[i].Freq(); j-- {
			f.order[j] = f.order[j-1]
		}
		f.order[j] = i
	}
	lead := f.order[0]
	var err error
	if f.buf, err = f.at[lead].Positions(f.buf); err != nil {
		f.fail(err)
		return false
	}
	f.cands = f.cands[:0]
	for _, p := range f.buf {
		if p >= uint32(lead) {
			f.cands = append(f.cands, p-uint32(lead))
		}
	}
	if len(f.cands) == 0 {
		return false
	}
	for _, i := range f.order[1:] {
		last := f.cands[len(f.cands)-1] + uint32(i) // no later position can match
		if f.buf, err = f.at[i].PositionsTo(f.buf, last); err != nil {
			f.fail(err)
			return false
		}
		if f.cands = keepFollowed(f.cands, f.buf, uint64(i)); len(f.cands) == 0 {
			return false
		}
	}
	return len(f.cands) > 0
}

// keepFollowed keeps the phrase starts p of cands with p+off in next,
// both increasing, in one merge.
func keepFollowed(cands, next []uint32, off uint64) []uint32 {
	out, j := cands[:0], 0
	for _, p := range cands {
		want := uint64(p) + off
		for j < len(next) && uint64(next[j]) < want {
			j++
		}
		if j == len(next) {
			break
		}
		if uint64(next[j]) == want {
			out = append(out, p)
		}
	}
	return out
}

func (f *phraseFilter) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// failure is the first damage the filter met: in positions, or in a
// cursor's docid blocks.
func (f *phraseFilter) failure() error {
	if f.err != nil {
		return f.err
	}
	for _, c := range f.cursors() {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// cursors lists every cursor of the filter.
func (f *phraseFilter) cursors() []*index.Cursor {
	return append(slices.Concat(f.phrases...), f.loose...)
}

// blocksDecoded counts the docid blocks the filter's cursors decoded.
func (f *phraseFilter) blocksDecoded() int64 {
	var n int64
	for _, c := range f.cursors() {
		n += int64(c.BlocksDecoded())
	}
	return n
}
