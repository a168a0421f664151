package analytics

import (
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// TestInlinedKeepsRulesThatPay builds grammars by hand and checks which
// rules keep a table: one referred to once never does, one whose body
// costs more than its table over its references does, and the documents'
// words stay the same.
func TestInlinedKeepsRulesThatPay(t *testing.T) {
	const R = sequitur.RuleFlag
	tests := []struct {
		name    string
		g       *sequitur.Grammar
		words   int
		wantRef int // rules kept
	}{{
		// Rule 0 = a b, referred to once: written out.
		name:    "once",
		g:       &sequitur.Grammar{RuleStart: []uint32{0, 2}, Body: []uint32{0, 1}, FileStart: []uint32{0, 2}, Root: []uint32{0 | R, 2}},
		words:   3,
		wantRef: 0,
	}, {
		// Rule 0 = a a a a (1 distinct word, cost 4), referred to 3 times:
		// (3-1) x 4 > 3 x 1, kept.
		name:    "repeated words",
		g:       &sequitur.Grammar{RuleStart: []uint32{0, 4}, Body: []uint32{0, 0, 0, 0}, FileStart: []uint32{0, 2, 3}, Root: []uint32{0 | R, 0 | R, 0 | R}},
		words:   1,
		wantRef: 1,
	}, {
		// Rule 0 = a b (2 distinct, cost 2), twice: (2-1) x 2 > 2 x 2 is
		// false, inlined; rule 1 = r0 r0 c (3 distinct, cost 5), twice:
		// 5 > 6 false, inlined too.
		name:    "short rules",
		g:       &sequitur.Grammar{RuleStart: []uint32{0, 2, 5}, Body: []uint32{0, 1, 0 | R, 0 | R, 2}, FileStart: []uint32{0, 1, 2}, Root: []uint32{1 | R, 1 | R}},
		words:   3,
		wantRef: 0,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.g.Validate(tt.words); err != nil {
				t.Fatal(err)
			}
			dict := make([]string, tt.words)
			for i := range dict {
				dict[i] = string(rune('a' + i))
			}
			c := &Corpus{Dict: dict, Grammar: tt.g}
			in, err := c.Inlined()
			if err != nil {
				t.Fatal(err)
			}
			if err := in.Grammar.Validate(tt.words); err != nil {
				t.Fatal(err)
			}
			if got := in.Grammar.NumRules(); got != tt.wantRef {
				t.Errorf("%d rules kept, want %d", got, tt.wantRef)
			}
			if !slices.EqualFunc(in.Decompress(), c.Decompress(), slices.Equal) {
				t.Errorf("the documents' words changed")
			}
		})
	}
}

// TestInlinedRealCrawl checks the sample crawl's inlined grammar: fewer
// rules, the same words, the same tasks.
func TestInlinedRealCrawl(t *testing.T) {
	c, _, docs := realCorpus(t)
	in, err := c.Inlined()
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Grammar.Validate(len(in.Dict)); err != nil {
		t.Fatal(err)
	}
	if in.Grammar.NumRules() >= c.Grammar.NumRules() {
		t.Errorf("%d rules kept of %d", in.Grammar.NumRules(), c.Grammar.NumRules())
	}
	t.Logf("%d of %d rules kept, %d grammar symbols of %d", in.Grammar.NumRules(), c.Grammar.NumRules(), in.Grammar.Size(), c.Grammar.Size())
	checkTasks(t, in, docs, []int{3})
}
