package indexer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// termSequences rebuilds every document's term sequence from the index:
// each posting's term at each of its positions.
func termSequences(t *testing.T, ix *index.Index) [][]string {
	t.Helper()
	seqs := make([][]string, ix.NumDocs())
	for d := range seqs {
		seqs[d] = make([]string, ix.DocLen(uint32(d)))
	}
	var buf []uint32
	for i := range ix.NumTerms() {
		info := ix.Term(i)
		c := ix.Cursor(info)
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			var err error
			if buf, err = c.Positions(buf); err != nil {
				t.Fatal(err)
			}
			if len(buf) != int(c.Freq()) {
				t.Fatalf("term %q doc %d: %d positions, tf %d", info.Term, d, len(buf), c.Freq())
			}
			for _, p := range buf {
				if seqs[d][p] != "" {
					t.Fatalf("doc %d position %d: %q and %q", d, p, seqs[d][p], info.Term)
				}
				seqs[d][p] = info.Term
			}
		}
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
	}
	return seqs
}

// TestBuildPositions checks that the positions rebuild every document's
// analyzed text exactly: in memory, through spilled runs, in passage mode
// (a document's passages, in docid order, make up its text) and with a
// positions codec of its own.
func TestBuildPositions(t *testing.T) {
	c := genCorpus(2, 300)
	crawl := t.TempDir()
	c.write(t, crawl)
	a := analysis.New()
	for _, tc := range []struct {
		name string
		opts indexer.Options
	}{
		{"in memory", indexer.Options{Workers: 3}},
		{"runs", indexer.Options{Workers: 2, MemoryBudget: 16 << 10}},
		{"passages", indexer.Options{Workers: 2, MemoryBudget: 16 << 10, Passages: 20}},
		{"own codec", indexer.Options{DocIDCodec: "bp128", FreqCodec: "bp128", PositionsCodec: "varint-SU"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Positions = true
			ix, rep, _ := build(t, crawl, tc.opts)
			if rep.Runs == 0 && tc.opts.MemoryBudget > 0 {
				t.Errorf("no runs spilled under a budget of %d", tc.opts.MemoryBudget)
			}
			got := map[string][]string{}
			for d, seq := range termSequences(t, ix) {
				u, _, _ := strings.Cut(ix.URL(uint32(d)), "#p")
				got[u] = append(got[u], seq...)
			}
			for u, text := range c.textByURL() {
				if want := a.Terms(text); !slices.Equal(got[u], want) && len(got[u])+len(want) > 0 {
					t.Fatalf("%s: the positions give %s, the text %s", u, fmt.Sprint(got[u]), fmt.Sprint(want))
				}
			}
		})
	}
}
