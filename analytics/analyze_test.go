package analytics

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The plain computations below work on documents as lists of word
// strings, with maps, as one would write them without any grammar.

type posting struct{ doc, tf int }

type wordCount struct {
	word  string
	count uint64
}

func plainWordCount(docs [][]string) map[string]uint64 {
	m := map[string]uint64{}
	for _, d := range docs {
		for _, w := range d {
			m[w]++
		}
	}
	return m
}

func plainSort(docs [][]string) []wordCount {
	var out []wordCount
	for w, n := range plainWordCount(docs) {
		out = append(out, wordCount{w, n})
	}
	slices.SortFunc(out, func(a, b wordCount) int { return strings.Compare(a.word, b.word) })
	return out
}

func plainTermVectors(docs [][]string) []map[string]int {
	out := make([]map[string]int, len(docs))
	for i, d := range docs {
		out[i] = map[string]int{}
		for _, w := range d {
			out[i][w]++
		}
	}
	return out
}

func plainInvIndex(docs [][]string) map[string][]posting {
	out := map[string][]posting{}
	for i, tv := range plainTermVectors(docs) {
		for _, w := range slices.Sorted(maps.Keys(tv)) {
			out[w] = append(out[w], posting{i, tv[w]})
		}
	}
	return out
}

func plainRankedInvIndex(docs [][]string) map[string][]posting {
	out := plainInvIndex(docs)
	for _, l := range out {
		slices.SortStableFunc(l, func(a, b posting) int { return cmp.Compare(b.tf, a.tf) })
	}
	return out
}

func plainSeqCount(docs [][]string, l int) []map[string]int {
	out := make([]map[string]int, len(docs))
	for i, d := range docs {
		out[i] = map[string]int{}
		for p := 0; p+l <= len(d); p++ {
			out[i][strings.Join(d[p:p+l], " ")]++
		}
	}
	return out
}

// The same shapes read from a Result.

func resWordCount(c *Corpus, r *Result) map[string]uint64 {
	m := map[string]uint64{}
	for id, n := range r.Counts {
		if n > 0 {
			m[c.Dict[id]] = n
		}
	}
	return m
}

func resSort(c *Corpus, r *Result) []wordCount {
	var out []wordCount
	for id, n := range r.Counts {
		if n > 0 {
			out = append(out, wordCount{c.Dict[id], n})
		}
	}
	return out
}

func resPostings(c *Corpus, r *Result) map[string][]posting {
	out := map[string][]posting{}
	for id := range r.Postings.Rows() {
		docs, tfs := r.Postings.Row(id)
		for i, d := range docs {
			out[c.Dict[id]] = append(out[c.Dict[id]], posting{int(d), int(tfs[i])})
		}
	}
	return out
}

func resTermVectors(c *Corpus, r *Result) []map[string]int {
	out := make([]map[string]int, r.Vectors.Rows())
	for d := range out {
		out[d] = map[string]int{}
		ws, tfs := r.Vectors.Row(d)
		for i, w := range ws {
			if i > 0 && ws[i-1] >= w {
				out[d]["(unsorted)"] = 1
			}
			out[d][c.Dict[w]] = int(tfs[i])
		}
	}
	return out
}

func resSeqCount(c *Corpus, r *Result) []map[string]int {
	out := make([]map[string]int, r.Vectors.Rows())
	l := r.SeqLen
	for d := range out {
		out[d] = map[string]int{}
		ids, ns := r.Vectors.Row(d)
		for i, id := range ids {
			if i > 0 && ids[i-1] >= id {
				out[d]["(unsorted)"] = 1
			}
			words := make([]string, l)
			for j, w := range r.Seqs[int(id)*l : int(id)*l+l] {
				words[j] = c.Dict[w]
			}
			out[d][strings.Join(words, " ")] = int(ns[i])
		}
	}
	// Sequence ids must follow the sequences' order.
	for id := 1; id < len(r.Seqs)/max(l, 1); id++ {
		if slices.Compare(r.Seqs[(id-1)*l:id*l], r.Seqs[id*l:(id+1)*l]) >= 0 {
			out = append(out, map[string]int{"(sequences out of order)": id})
			break
		}
	}
	return out
}

// checkTasks runs every task on c with every traversal, and the plain
// engine on the decompressed corpus, against the plain computations on
// docs.
func checkTasks(t *testing.T, c *Corpus, docs [][]string, seqLens []int) {
	t.Helper()
	ctx := context.Background()
	ids := c.Decompress()
	type run struct {
		name string
		do   func(Task, Options) (*Result, error)
	}
	runs := []run{{"plain", func(task Task, o Options) (*Result, error) { return RunPlain(ctx, ids, len(c.Dict), task, o) }}}
	for _, tr := range []Traversal{Auto, TopDown, BottomUp} {
		runs = append(runs, run{tr.String(), func(task Task, o Options) (*Result, error) {
			o.Traversal = tr
			return Run(ctx, c, task, o)
		}})
	}
	for _, task := range Tasks() {
		lens := []int{0}
		if task == SeqCount {
			lens = seqLens
		}
		for _, l := range lens {
			var want any
			read := func(*Result) any { return nil }
			switch task {
			case WordCount:
				want, read = plainWordCount(docs), func(r *Result) any { return resWordCount(c, r) }
			case Sort:
				want, read = plainSort(docs), func(r *Result) any { return resSort(c, r) }
			case InvertedIndex:
				want, read = plainInvIndex(docs), func(r *Result) any { return resPostings(c, r) }
			case RankedInvertedIndex:
				want, read = plainRankedInvIndex(docs), func(r *Result) any { return resPostings(c, r) }
			case TermVector:
				want, read = plainTermVectors(docs), func(r *Result) any { return resTermVectors(c, r) }
			case SeqCount:
				want, read = plainSeqCount(docs, l), func(r *Result) any { return resSeqCount(c, r) }
			}
			for _, r := range runs {
				name := fmt.Sprintf("%s/%s", r.name, task)
				if task == SeqCount {
					name += fmt.Sprintf("/l=%d", l)
				}
				res, err := r.do(task, Options{SeqLen: l})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := read(res); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %s, want %s", name, abbrev(got), abbrev(want))
				}
			}
		}
	}
}

func abbrev(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}

// randomDocs makes n documents over a vocabulary of v words; with repeat
// near 1 they are mostly copies of earlier stretches of the corpus, so
// that Sequitur makes deep rules.
func randomDocs(r *rand.Rand, n, maxLen, v int, repeat float64) [][]string {
	var all []string
	docs := make([][]string, n)
	for i := range docs {
		l := r.IntN(maxLen + 1)
		d := make([]string, 0, l)
		for len(d) < l {
			if len(all) > 4 && r.Float64() < repeat {
				start := r.IntN(len(all))
				end := min(len(all), start+1+r.IntN(40))
				d = append(d, all[start:end]...)
				continue
			}
			d = append(d, fmt.Sprintf("w%d", r.IntN(v)))
		}
		d = d[:l]
		all = append(all, d...)
		docs[i] = d
	}
	return docs
}

func corpusOf(t *testing.T, docs [][]string) *Corpus {
	t.Helper()
	b := NewBuilder()
	for i, d := range docs {
		if err := b.AddDoc(fmt.Sprintf("doc%05d", i), d); err != nil {
			t.Fatal(err)
		}
	}
	return b.Corpus(Meta{})
}

func TestTasksRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tests := []struct {
		name                string
		docs, maxLen, vocab int
		repeat              float64
	}{
		{"empty corpus", 0, 0, 1, 0},
		{"empty docs", 5, 0, 1, 0},
		{"one word", 3, 50, 1, 0},
		{"two words", 6, 80, 2, 0.5},
		{"small vocab", 10, 200, 4, 0.3},
		{"repetitive", 20, 400, 30, 0.9},
		{"very repetitive", 8, 2000, 10, 0.98},
		{"many small docs", 300, 12, 40, 0.8},
		{"large vocab", 15, 300, 5000, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := randomDocs(r, tt.docs, tt.maxLen, tt.vocab, tt.repeat)
			c := corpusOf(t, docs)
			checkTasks(t, c, docs, []int{1, 2, 3, 5})
			// The same corpus without rules answers the same.
			p := c.Plain()
			if err := p.Grammar.Validate(len(p.Dict)); err != nil || p.Grammar.NumRules() != 0 {
				t.Fatalf("Plain: %d rules, Validate = %v", p.Grammar.NumRules(), err)
			}
			checkTasks(t, p, docs, []int{1, 3})
			// So does the corpus with only the rules that pay for a table.
			in, err := c.Inlined()
			if err != nil {
				t.Fatal(err)
			}
			if err := in.Grammar.Validate(len(in.Dict)); err != nil || in.Grammar.NumRules() > c.Grammar.NumRules() {
				t.Fatalf("Inlined: %d rules of %d, Validate = %v", in.Grammar.NumRules(), c.Grammar.NumRules(), err)
			}
			checkTasks(t, in, docs, []int{1, 3})
		})
	}
}

func TestDeepRules(t *testing.T) {
	// A doubling text makes a grammar of depth log n.
	d := []string{"a", "b", "c"}
	for range 9 {
		d = append(d, d...)
		d = append(d, "x")
	}
	docs := [][]string{d, d[:700], d[100:]}
	c := corpusOf(t, docs)
	depth := make([]int, c.Grammar.NumRules())
	deepest := 0
	for r := range depth {
		for _, s := range c.Grammar.Rule(r) {
			if s>>31 == 1 {
				depth[r] = max(depth[r], depth[s&^(1<<31)]+1)
			}
		}
		deepest = max(deepest, depth[r])
	}
	if deepest < 8 {
		t.Fatalf("deepest rule has depth %d, want at least 8", deepest)
	}
	checkTasks(t, c, docs, []int{1, 3, 4, 7})
}

func TestRunRejects(t *testing.T) {
	c := corpusOf(t, [][]string{{"a", "b"}})
	ctx := context.Background()
	if _, err := Run(ctx, c, "wordcont", Options{}); err == nil {
		t.Error(`Run(task "wordcont") = nil error, want one`)
	}
	for _, l := range []int{-1, MaxSeqLen + 1} {
		if _, err := Run(ctx, c, SeqCount, Options{SeqLen: l}); err == nil {
			t.Errorf("Run(seqcount, SeqLen %d) = nil error, want one", l)
		}
	}
	if _, err := RunPlain(ctx, [][]uint32{{5}}, 2, WordCount, Options{}); err == nil {
		t.Error("RunPlain(word 5 of 2) = nil error, want one")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cancelled, c, InvertedIndex, Options{}); err == nil {
		t.Error("Run(cancelled context) = nil error, want one")
	}
}

func TestParse(t *testing.T) {
	for _, task := range Tasks() {
		if got, err := ParseTask(string(task)); err != nil || got != task {
			t.Errorf("ParseTask(%q) = %q, %v", task, got, err)
		}
	}
	for _, tr := range []Traversal{Auto, TopDown, BottomUp} {
		if got, err := ParseTraversal(tr.String()); err != nil || got != tr {
			t.Errorf("ParseTraversal(%q) = %v, %v", tr, got, err)
		}
	}
	if _, err := ParseTraversal("sideways"); err == nil {
		t.Error(`ParseTraversal("sideways") = nil error, want one`)
	}
}

func TestEstimateChoosesByShape(t *testing.T) {
	// Few long files favour top-down; many tiny files sharing rules favour
	// bottom-up (the paper's datasets B and A).
	r := rand.New(rand.NewPCG(9, 10))
	phrase := randomDocs(r, 1, 30, 2000, 0)[0]
	var many [][]string
	for range 3000 {
		many = append(many, phrase)
	}
	few := randomDocs(r, 2, 20000, 500, 0.9)
	tests := []struct {
		name string
		docs [][]string
		want Traversal
	}{
		{"few long files", few, TopDown},
		{"many small files", many, BottomUp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), corpusOf(t, tt.docs), TermVector, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Traversal != tt.want {
				t.Errorf("Run(termvector) chose %v (estimate %+v), want %v", res.Traversal, res.Estimate, tt.want)
			}
		})
	}
}
