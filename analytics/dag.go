package analytics

import (
	"context"
	"slices"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// sparse is a list per row of (key, multiplicity) pairs: row i is
// key[start[i]:start[i+1]] with mult alongside.
type sparse struct {
	start []uint32
	key   []uint32
	mult  []uint32
}

func (s *sparse) row(i int) ([]uint32, []uint32) {
	a, b := s.start[i], s.start[i+1]
	return s.key[a:b], s.mult[a:b]
}

func (s *sparse) rowLen(i int) int { return int(s.start[i+1] - s.start[i]) }

// distinctRows builds a sparse whose row i holds the distinct keys of
// rowSyms(i) with their multiplicities, keeping the keys that pick
// accepts (and maps); stamp must be all zero with room for every key,
// and is left all zero.
func distinctRows(n int, rowSyms func(int) []uint32, pick func(uint32) (uint32, bool), stamp []uint32) *sparse {
	s := &sparse{start: make([]uint32, 1, n+1)}
	for i := range n {
		base := len(s.key)
		for _, sym := range rowSyms(i) {
			k, ok := pick(sym)
			if !ok {
				continue
			}
			if at := stamp[k]; at != 0 {
				s.mult[at-1]++
				continue
			}
			s.key = append(s.key, k)
			s.mult = append(s.mult, 1)
			stamp[k] = uint32(len(s.key))
		}
		for _, k := range s.key[base:] {
			stamp[k] = 0
		}
		s.start = append(s.start, uint32(len(s.key)))
	}
	return s
}

// dag is the grammar as a DAG: each rule's and each file's distinct
// child rules with their multiplicities.
type dag struct {
	rules, files int
	children     *sparse // per rule
	fileChildren *sparse // per file (the root's run for it)
}

func newDAG(g *sequitur.Grammar) *dag {
	stamp := make([]uint32, g.NumRules())
	pick := func(s uint32) (uint32, bool) { return s &^ sequitur.RuleFlag, s&sequitur.RuleFlag != 0 }
	return &dag{
		rules:        g.NumRules(),
		files:        g.NumFiles(),
		children:     distinctRows(g.NumRules(), g.Rule, pick, stamp),
		fileChildren: distinctRows(g.NumFiles(), g.File, pick, stamp),
	}
}

// wordItems returns each rule's and each file's own words (those not
// inside a child rule) with their multiplicities.
func wordItems(g *sequitur.Grammar, numWords int) (rules, files *sparse) {
	stamp := make([]uint32, numWords)
	pick := func(s uint32) (uint32, bool) { return s, s&sequitur.RuleFlag == 0 }
	return distinctRows(g.NumRules(), g.Rule, pick, stamp), distinctRows(g.NumFiles(), g.File, pick, stamp)
}

// items are the keys each rule and each file contributes itself: words
// for the word tasks, sequences for seqcount.
type items struct {
	numKeys int
	rules   *sparse
	files   *sparse
}

// ctxEvery is how many rules a traversal handles between context checks.
const ctxEvery = 1 << 12

// weights returns how many times each rule is expanded in the whole
// corpus: top-down, parents before children.
func (d *dag) weights() []uint64 {
	w := make([]uint64, d.rules)
	for f := range d.files {
		cs, ms := d.fileChildren.row(f)
		for i, c := range cs {
			w[c] += uint64(ms[i])
		}
	}
	for r := d.rules - 1; r >= 0; r-- {
		cs, ms := d.children.row(r)
		for i, c := range cs {
			w[c] += w[r] * uint64(ms[i])
		}
	}
	return w
}

// wordTotalsTopDown counts every word over the corpus: the root's
// symbols give each rule its first weights, then each rule, parents first,
// adds its weight to its child rules and to its words.
func wordTotalsTopDown(ctx context.Context, g *sequitur.Grammar, numWords int) ([]uint64, error) {
	w := make([]uint64, g.NumRules())
	out := make([]uint64, numWords)
	for _, s := range g.Root {
		if s&sequitur.RuleFlag != 0 {
			w[s&^sequitur.RuleFlag]++
		} else {
			out[s]++
		}
	}
	for r := g.NumRules() - 1; r >= 0; r-- {
		if r%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		wr := w[r]
		if wr == 0 {
			continue
		}
		for _, s := range g.Rule(r) {
			if s&sequitur.RuleFlag != 0 {
				w[s&^sequitur.RuleFlag] += wr
			} else {
				out[s] += wr
			}
		}
	}
	return out, nil
}

// accumulator is a sparse accumulator over keys: a dense array of counts
// and the list of keys touched.
type accumulator struct {
	val     []uint32
	touched []uint32
}

func newAccumulator(n int) *accumulator { return &accumulator{val: make([]uint32, n)} }

func (a *accumulator) add(k, v uint32) {
	if a.val[k] == 0 {
		a.touched = append(a.touched, k)
	}
	a.val[k] += v
}

// addTable adds a packed table (key<<32 | count) times m.
func (a *accumulator) addTable(t []uint64, m uint32) {
	for _, e := range t {
		a.add(uint32(e>>32), uint32(e)*m)
	}
}

// take returns the touched entries packed (key<<32 | count) and clears
// the accumulator.
func (a *accumulator) take() []uint64 {
	t := make([]uint64, len(a.touched))
	for i, k := range a.touched {
		t[i] = uint64(k)<<32 | uint64(a.val[k])
		a.val[k] = 0
	}
	a.touched = a.touched[:0]
	return t
}

// endRow appends the touched entries to m as its next row (sorted by key
// when sorted is set) and clears the accumulator.
func (a *accumulator) endRow(m *Matrix, sorted bool) {
	if sorted {
		slices.Sort(a.touched)
	}
	for _, k := range a.touched {
		m.Col = append(m.Col, k)
		m.Val = append(m.Val, a.val[k])
		a.val[k] = 0
	}
	a.touched = a.touched[:0]
	m.Start = append(m.Start, len(m.Col))
}

// newRows returns an empty matrix with room for rows rows and entries
// entries, so that filling it never copies it to grow.
func newRows(rows, entries int) *Matrix {
	return &Matrix{Start: make([]int, 1, rows+1), Col: make([]uint32, 0, entries), Val: make([]uint32, 0, entries)}
}

// ruleTables computes, children first, each rule's table: every key in
// the rule's expansion with its count. A table is dropped once every
// parent rule has used it, unless the root refers to it; the tables the
// root refers to are returned.
func ruleTables(ctx context.Context, d *dag, it *items) ([][]uint64, error) {
	parents := make([]uint32, d.rules)
	for _, c := range d.children.key {
		parents[c]++
	}
	fromRoot := make([]bool, d.rules)
	for _, c := range d.fileChildren.key {
		fromRoot[c] = true
	}
	tables := make([][]uint64, d.rules)
	acc := newAccumulator(it.numKeys)
	for r := range d.rules {
		if r%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		cs, ms := d.children.row(r)
		for i, c := range cs {
			acc.addTable(tables[c], ms[i])
			if parents[c]--; parents[c] == 0 && !fromRoot[c] {
				tables[c] = nil
			}
		}
		ks, ms := it.rules.row(r)
		for i, k := range ks {
			acc.add(k, ms[i])
		}
		tables[r] = acc.take()
	}
	return tables, nil
}

// totalsBottomUp counts every key over the corpus from the tables of the
// rules the root refers to.
func totalsBottomUp(ctx context.Context, d *dag, it *items) ([]uint64, error) {
	tables, err := ruleTables(ctx, d, it)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, it.numKeys)
	for f := range d.files {
		cs, ms := d.fileChildren.row(f)
		for i, c := range cs {
			for _, e := range tables[c] {
				out[e>>32] += uint64(uint32(e)) * uint64(ms[i])
			}
		}
		ks, ms := it.files.row(f)
		for i, k := range ks {
			out[k] += uint64(ms[i])
		}
	}
	return out, nil
}

// perFileBottomUp returns, per file, every key in it with its count (rows
// are files, sorted by key when sorted is set).
func perFileBottomUp(ctx context.Context, d *dag, it *items, sorted bool) (*Matrix, error) {
	tables, err := ruleTables(ctx, d, it)
	if err != nil {
		return nil, err
	}
	// Room for every file's entries at most: each entry of a child table
	// and each own item adds at most one.
	most := 0
	for f := range d.files {
		cs, _ := d.fileChildren.row(f)
		for _, c := range cs {
			most += len(tables[c])
		}
		most += it.files.rowLen(f)
	}
	m := newRows(d.files, most)
	acc := newAccumulator(it.numKeys)
	for f := range d.files {
		if f%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		cs, ms := d.fileChildren.row(f)
		for i, c := range cs {
			acc.addTable(tables[c], ms[i])
		}
		ks, ms := it.files.row(f)
		for i, k := range ks {
			acc.add(k, ms[i])
		}
		acc.endRow(m, sorted)
	}
	return m, nil
}

// combine sorts packed (file<<32 | weight) pairs and merges those of one
// file, in place.
func combine(l []uint64) []uint64 {
	if !slices.IsSorted(l) {
		slices.Sort(l)
	}
	out := l[:0]
	for _, e := range l {
		if n := len(out); n > 0 && out[n-1]>>32 == e>>32 {
			out[n-1] += uint64(uint32(e))
			continue
		}
		out = append(out, e)
	}
	return out
}

// perFileTopDown returns, per key, every file it occurs in with its count
// (rows are keys, sorted by file). File weights flow from the root down:
// each rule learns in which files, and how many times, it is expanded,
// and hands that to its children and its own keys. Keys collect their
// (file, count) pairs in one list, grouped by key at the end with a
// counting sort.
func perFileTopDown(ctx context.Context, d *dag, it *items) (*Matrix, error) {
	pending := make([][]uint64, d.rules) // per rule: (file, weight) pairs from its parents
	var out pairChunks                   // (key, file, count) for every key occurrence
	for f := range d.files {
		cs, ms := d.fileChildren.row(f)
		for i, c := range cs {
			pending[c] = append(pending[c], uint64(f)<<32|uint64(ms[i]))
		}
		ks, ms := it.files.row(f)
		for i, k := range ks {
			out.add(k, uint64(f)<<32|uint64(ms[i]))
		}
	}
	for r := d.rules - 1; r >= 0; r-- {
		if r%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l := combine(pending[r])
		pending[r] = nil
		cs, ms := d.children.row(r)
		for i, c := range cs {
			for _, e := range l {
				pending[c] = append(pending[c], e&^0xffffffff|uint64(uint32(e)*ms[i]))
			}
		}
		ks, ms := it.rules.row(r)
		for i, k := range ks {
			for _, e := range l {
				out.add(k, e&^0xffffffff|uint64(uint32(e)*ms[i]))
			}
		}
	}
	start := make([]int, it.numKeys+1)
	for _, ks := range out.keys {
		for _, k := range ks {
			start[k+1]++
		}
	}
	for k := range it.numKeys {
		start[k+1] += start[k]
	}
	grouped := make([]uint64, start[it.numKeys])
	at := slices.Clone(start[:it.numKeys])
	for c, ks := range out.keys {
		for i, k := range ks {
			grouped[at[k]] = out.pairs[c][i]
			at[k]++
		}
		out.keys[c], out.pairs[c] = nil, nil
	}
	m := newRows(it.numKeys, len(grouped))
	for k := range it.numKeys {
		for _, e := range combine(grouped[start[k]:start[k+1]]) {
			m.Col = append(m.Col, uint32(e>>32))
			m.Val = append(m.Val, uint32(e))
		}
		m.Start = append(m.Start, len(m.Col))
	}
	return m, nil
}

// pairChunks stores (key, packed pair) entries in fixed-size chunks, so
// that growing never copies what is stored.
type pairChunks struct {
	keys  [][]uint32
	pairs [][]uint64
}

const pairChunk = 1 << 16

func (p *pairChunks) add(k uint32, e uint64) {
	n := len(p.keys)
	if n == 0 || len(p.keys[n-1]) == pairChunk {
		p.keys = append(p.keys, make([]uint32, 0, pairChunk))
		p.pairs = append(p.pairs, make([]uint64, 0, pairChunk))
		n++
	}
	p.keys[n-1] = append(p.keys[n-1], k)
	p.pairs[n-1] = append(p.pairs[n-1], e)
}
