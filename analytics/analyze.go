package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Task names one analytics task.
type Task string

// The tasks.
const (
	WordCount           Task = "wordcount"  // count of every word over the corpus
	Sort                Task = "sort"       // every word with its count, in lexicographic order
	InvertedIndex       Task = "invindex"   // word -> (docid, tf) by docid: the indexer's postings
	TermVector          Task = "termvector" // docid -> (word, tf) by word
	SeqCount            Task = "seqcount"   // docid -> (l-word sequence, count) by sequence
	RankedInvertedIndex Task = "rankedinv"  // word -> (docid, tf) by tf descending, then docid
)

// Tasks lists every task.
func Tasks() []Task {
	return []Task{WordCount, Sort, InvertedIndex, TermVector, SeqCount, RankedInvertedIndex}
}

// ParseTask returns the task called s.
func ParseTask(s string) (Task, error) {
	for _, t := range Tasks() {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("analytics: unknown task %q (want wordcount, sort, invindex, termvector, seqcount or rankedinv)", s)
}

// perFile reports whether the task's result is per document.
func (t Task) perFile() bool { return t != WordCount && t != Sort }

// WordTables reports whether t builds per-document word tables
// (invindex, termvector, rankedinv), which bottom-up run on
// Corpus.Inlined.
func (t Task) WordTables() bool { return t.perFile() && t != SeqCount }

// Traversal is the direction a task walks the grammar's DAG.
type Traversal int

// The traversals.
const (
	Auto     Traversal = iota // chosen per task and corpus by the cost estimate
	TopDown                   // weights flow from the root to the rules
	BottomUp                  // tables flow from the rules to the root
)

// String returns the traversal's flag name.
func (t Traversal) String() string {
	switch t {
	case Auto:
		return "auto"
	case TopDown:
		return "topdown"
	case BottomUp:
		return "bottomup"
	}
	return fmt.Sprintf("Traversal(%d)", int(t))
}

// ParseTraversal returns the traversal called s.
func ParseTraversal(s string) (Traversal, error) {
	for _, t := range []Traversal{Auto, TopDown, BottomUp} {
		if t.String() == s {
			return t, nil
		}
	}
	return Auto, fmt.Errorf("analytics: unknown traversal %q (want auto, topdown or bottomup)", s)
}

// Options tune a task.
type Options struct {
	Traversal Traversal
	SeqLen    int // words per sequence for seqcount (default 3, at most MaxSeqLen)
}

// WithDefaults returns o with its defaults filled in, or an error for an
// option out of range.
func (o Options) WithDefaults() (Options, error) {
	if o.SeqLen == 0 {
		o.SeqLen = 3
	}
	if o.SeqLen < 1 || o.SeqLen > MaxSeqLen {
		return o, fmt.Errorf("analytics: sequence length %d out of range 1..%d", o.SeqLen, MaxSeqLen)
	}
	return o, nil
}

// Matrix is a sparse matrix by rows: row i is Col[Start[i]:Start[i+1]]
// with Val alongside.
type Matrix struct {
	Start []int
	Col   []uint32
	Val   []uint32
}

// Rows returns the number of rows.
func (m *Matrix) Rows() int { return len(m.Start) - 1 }

// Row returns row i's columns and values.
func (m *Matrix) Row(i int) ([]uint32, []uint32) {
	return m.Col[m.Start[i]:m.Start[i+1]], m.Val[m.Start[i]:m.Start[i+1]]
}

// Transpose returns the transpose, with cols rows; each of its rows is
// sorted by column, whatever the order within m's rows (a counting sort:
// count each column's entries, then place m's rows in order).
func (m *Matrix) Transpose(cols int) *Matrix {
	t := &Matrix{Start: make([]int, cols+1), Col: make([]uint32, len(m.Col)), Val: make([]uint32, len(m.Val))}
	for _, c := range m.Col {
		t.Start[c+1]++
	}
	for c := range cols {
		t.Start[c+1] += t.Start[c]
	}
	next := slices.Clone(t.Start[:cols])
	for r := range m.Rows() {
		cs, vs := m.Row(r)
		for i, c := range cs {
			t.Col[next[c]], t.Val[next[c]] = uint32(r), vs[i]
			next[c]++
		}
	}
	return t
}

// Estimate is the selector's cost estimate of each traversal, in units of
// entries moved.
type Estimate struct {
	TopDown  float64 `json:"topdown"`
	BottomUp float64 `json:"bottomup"`
}

// Result is a task's output. Which fields are set depends on the task:
// Counts for wordcount and sort (indexed by word id, the dictionary being
// sorted); Postings for invindex and rankedinv (rows are word ids, columns
// docids); Vectors for termvector (rows are docids, columns word ids) and
// seqcount (rows are docids, columns sequence ids, Seqs holding SeqLen
// words per id in lexicographic order).
type Result struct {
	Task      Task
	Traversal Traversal // the one that ran; Auto for the plain computation
	Estimate  Estimate  // zero when none was needed
	SeqLen    int
	Counts    []uint64
	Postings  *Matrix
	Vectors   *Matrix
	Seqs      []uint32
	Init      time.Duration // preparing the rules' items (and head/tail buffers)
	Traverse  time.Duration // the traversal and the result's assembly
	Kernels   time.Duration // of Traverse, the device time of the kernels (GPU engine)
}

// Entries returns the size of the result: words with a count, postings,
// or (document, key) pairs.
func (r *Result) Entries() int {
	switch {
	case r.Postings != nil:
		return len(r.Postings.Col)
	case r.Vectors != nil:
		return len(r.Vectors.Col)
	}
	n := 0
	for _, c := range r.Counts {
		if c > 0 {
			n++
		}
	}
	return n
}

// Run computes task on the compressed corpus without decompressing it.
// Per-document word tables bottom-up run on c.Inlined(); seqcount keeps
// c's grammar, since the sequences its rules own are prepared in every
// run (Init), and on the inlined grammar that takes longer than it saves
// (dev box, rust-doc: 1.3-1.4 s a run against 2.0-2.1 s).
func Run(ctx context.Context, c *Corpus, task Task, opts Options) (*Result, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	if _, err := ParseTask(string(task)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Traversal == BottomUp {
		in, err := c.inlinedFor(task)
		if err != nil {
			return nil, err
		}
		if in != c {
			return Run(ctx, in, task, opts)
		}
	}
	start := time.Now()
	res := &Result{Task: task, SeqLen: opts.SeqLen, Traversal: opts.Traversal}
	g := c.Grammar
	if !task.perFile() && res.Traversal != BottomUp {
		// Corpus-wide counts top-down need no preparation: one pass over
		// the rules, parents first, carries each rule's weight to its
		// symbols. Bottom-up is never cheaper: every rule's table holds
		// at least its own words.
		res.Traversal = TopDown
		if res.Counts, err = wordTotalsTopDown(ctx, g, len(c.Dict)); err != nil {
			return nil, err
		}
		res.Traverse = time.Since(start)
		return res, nil
	}
	d := newDAG(g)
	var it *items
	if task == SeqCount {
		if it, res.Seqs, err = seqItems(ctx, g, len(c.Dict), c.RuleLengths(), opts.SeqLen); err != nil {
			return nil, err
		}
	} else {
		rules, files := wordItems(g, len(c.Dict))
		it = &items{numKeys: len(c.Dict), rules: rules, files: files}
	}
	if res.Traversal == Auto {
		res.Traversal = TopDown
		res.Estimate = estimate(d, it)
		if res.Estimate.BottomUp < res.Estimate.TopDown {
			res.Traversal = BottomUp
			if in, err := c.inlinedFor(task); err != nil || in != c {
				// Bottom-up runs on the inlined grammar; this choice
				// counts in its preparation.
				chose, est := time.Since(start), res.Estimate
				opts.Traversal = BottomUp
				res, err := Run(ctx, c, task, opts)
				if err != nil {
					return nil, err
				}
				res.Init += chose
				res.Estimate = est
				return res, nil
			}
		}
	}
	res.Init = time.Since(start)
	start = time.Now()
	td := res.Traversal == TopDown
	switch task {
	case WordCount, Sort:
		res.Counts, err = totalsBottomUp(ctx, d, it)
	case InvertedIndex, RankedInvertedIndex:
		if td {
			res.Postings, err = perFileTopDown(ctx, d, it)
		} else if res.Vectors, err = perFileBottomUp(ctx, d, it, false); err == nil {
			res.Postings, res.Vectors = res.Vectors.Transpose(it.numKeys), nil
		}
		if err == nil && task == RankedInvertedIndex {
			res.Postings.Rank()
		}
	case TermVector, SeqCount:
		if !td {
			res.Vectors, err = perFileBottomUp(ctx, d, it, true)
		} else if res.Postings, err = perFileTopDown(ctx, d, it); err == nil {
			res.Vectors, res.Postings = res.Postings.Transpose(d.files), nil
		}
	}
	if err != nil {
		return nil, err
	}
	res.Traverse = time.Since(start)
	return res, nil
}

// inlinedFor returns the corpus task runs on bottom-up: c.Inlined() for
// word tables, else c.
func (c *Corpus) inlinedFor(task Task) (*Corpus, error) {
	if !task.WordTables() {
		return c, nil
	}
	return c.Inlined()
}

// Rank orders each row by value descending, then column ascending.
func (m *Matrix) Rank() {
	m.sortRows(func(a, b entry) int {
		if c := cmp.Compare(b.val, a.val); c != 0 {
			return c
		}
		return cmp.Compare(a.col, b.col)
	})
}

// entry is one (column, value) of a row.
type entry struct{ col, val uint32 }

// sortRows orders every row's entries by order.
func (m *Matrix) sortRows(order func(a, b entry) int) {
	var buf []entry
	for r := range m.Rows() {
		cs, vs := m.Row(r)
		buf = buf[:0]
		for i, c := range cs {
			buf = append(buf, entry{c, vs[i]})
		}
		slices.SortFunc(buf, order)
		for i, e := range buf {
			cs[i], vs[i] = e.col, e.val
		}
	}
}

// estimate returns the cost of a per-file task each way, in entries moved,
// from bounds that one pass over the DAG computes:
//
//   - top-down moves, for every rule, one (file, weight) entry per file
//     the rule occurs in to each of its distinct children and own keys.
//     The file count is bounded by the rule's weight (its expansions in
//     the corpus) and by the span between the first and the last file it
//     occurs in (docids follow URL order, so a rule local to a site spans
//     few files).
//   - bottom-up moves, for every rule and every file, each child's table
//     into its own; a table is bounded by the number of keys and by the
//     sum of its own keys and its children's table bounds.
func estimate(d *dag, it *items) Estimate {
	w := d.weights()
	lo := make([]uint32, d.rules)
	hi := make([]uint32, d.rules)
	for i := range lo {
		lo[i] = ^uint32(0)
	}
	var est Estimate
	for f := range d.files {
		cs, _ := d.fileChildren.row(f)
		for _, c := range cs {
			lo[c] = min(lo[c], uint32(f))
			hi[c] = max(hi[c], uint32(f))
		}
		est.TopDown += float64(len(cs) + it.files.rowLen(f))
	}
	for r := d.rules - 1; r >= 0; r-- {
		cs, _ := d.children.row(r)
		if lo[r] > hi[r] { // never reached from the root
			continue
		}
		for _, c := range cs {
			lo[c] = min(lo[c], lo[r])
			hi[c] = max(hi[c], hi[r])
		}
		files := min(float64(w[r]), float64(hi[r]-lo[r]+1))
		est.TopDown += files * float64(len(cs)+it.rules.rowLen(r))
	}
	table := make([]float64, d.rules)
	keys := float64(it.numKeys)
	for r := range d.rules {
		cs, _ := d.children.row(r)
		sum := float64(it.rules.rowLen(r))
		for _, c := range cs {
			sum += table[c]
		}
		est.BottomUp += sum
		table[r] = min(keys, sum)
	}
	for f := range d.files {
		cs, _ := d.fileChildren.row(f)
		for _, c := range cs {
			est.BottomUp += table[c]
		}
		est.BottomUp += float64(it.files.rowLen(f))
	}
	return est
}
