package indexer

import "slices"

// docTerms is one document's (or passage's) distinct terms, with their
// frequencies and, when the index keeps positions, their positions.
type docTerms struct {
	terms []string
	tfs   []uint32
	// pos holds term i's positions (increasing) at pos[o_i:o_i+tfs[i]],
	// o_i the sum of the frequencies before i; nil without positions.
	pos []uint32
}

// termCounter gathers a document's terms as the analyzer emits them.
type termCounter struct {
	ids       map[string]int32
	d         docTerms
	seq       []int32 // with positions: each token's term id, in order
	positions bool
	n         uint32 // tokens so far
}

func newTermCounter(positions bool) *termCounter {
	return &termCounter{ids: map[string]int32{}, positions: positions}
}

// id returns the document's id of term t, adding it at a count of 0.
func (c *termCounter) id(t string) int32 {
	id, ok := c.ids[t]
	if !ok {
		id = int32(len(c.d.terms))
		c.ids[t] = id
		c.d.terms = append(c.d.terms, t)
		c.d.tfs = append(c.d.tfs, 0)
	}
	return id
}

// add counts the document's next token.
func (c *termCounter) add(t string) {
	id := c.id(t)
	c.d.tfs[id]++
	if c.positions {
		c.seq = append(c.seq, id)
	}
	c.n++
}

// addWeighted counts a title token w times, in its term's frequency and in
// the length, without positions (a title weight needs an index without
// them: the positions are the body's).
func (c *termCounter) addWeighted(t string, w uint32) {
	c.d.tfs[c.id(t)] += w
	c.n += w
}

// done returns the document's terms, positions grouped by term.
func (c *termCounter) done() docTerms {
	if !c.positions {
		return c.d
	}
	next := make([]uint32, len(c.d.tfs)) // where term i's next position goes
	at := uint32(0)
	for i, f := range c.d.tfs {
		next[i] = at
		at += f
	}
	c.d.pos = make([]uint32, len(c.seq))
	for p, id := range c.seq {
		c.d.pos[next[id]] = uint32(p)
		next[id]++
	}
	return c.d
}

// sortPostings sorts a list's postings by slot (each slot is in the list
// once), and its positions, postings' after each other in list order,
// with them; pos is nil without positions.
func sortPostings(list []posting, pos []uint32) {
	if slices.IsSorted(list) {
		return
	}
	if pos == nil {
		slices.Sort(list)
		return
	}
	type entry struct {
		p   posting
		off int // the posting's first position in pos
	}
	es := make([]entry, len(list))
	off := 0
	for i, p := range list {
		es[i] = entry{p, off}
		off += int(uint32(p))
	}
	slices.SortFunc(es, func(a, b entry) int { return int(a.p>>32) - int(b.p>>32) })
	sorted := make([]uint32, 0, len(pos))
	for i, e := range es {
		list[i] = e.p
		sorted = append(sorted, pos[e.off:e.off+int(uint32(e.p))]...)
	}
	copy(pos, sorted)
}
