package analytics

import (
	"fmt"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// Inlined returns the corpus with a grammar for bottom-up word tables:
// only the rules whose table pays for itself keep one, and every other
// rule is written out, recursively, in place of each reference to it.
// The expansions, and so every task's result, are the same.
//
// Bottom-up, a reference to a rule with a table costs its distinct words
// (the table's entries), and a reference to an inlined rule the cost of
// its body, once per reference. A rule with refs references keeps its
// table when (refs-1) x body cost > refs x distinct words: building the
// table costs one body, then each reference costs its entries. A rule
// referred to once is always inlined, and an inlined rule costs at most
// twice its distinct words, so the grammar grows by a bounded factor.
// On rust-doc this keeps 9,243 of 260,066 rules and cuts the inserts of
// the documents' tables from 1.02x to 0.81x of the plain computation's
// (docs/analytics.md, "a work bound").
//
// Run takes bottom-up per-document word tables to it, and the GPU engine
// its bottom-up tables, seqcount's included. It is computed once and
// kept (as it is the corpus it returns); the first call costs about a
// fifth of a second on rust-doc's 260,066 rules.
func (c *Corpus) Inlined() (*Corpus, error) {
	if c.inlined != nil {
		return c.inlined, nil
	}
	g, sizes, err := inlineRules(c.Grammar, len(c.Dict))
	if err != nil {
		return nil, err
	}
	meta := c.Meta
	meta.Rules = g.NumRules()
	in := &Corpus{Meta: meta, Dict: c.Dict, URLs: c.URLs, Grammar: g, sizes: sizes}
	in.inlined, c.inlined = in, in
	return in, nil
}

// tableSizes are the exact distinct words of each rule's and each
// document's expansion.
type tableSizes struct {
	rules, files []uint64
}

// inlineRules returns g with the rules that do not pay for a table
// inlined (Inlined), the kept rules renumbered in their order, and the
// new grammar's table sizes.
func inlineRules(g *sequitur.Grammar, numWords int) (*sequitur.Grammar, *tableSizes, error) {
	nr := g.NumRules()
	refs := make([]uint64, nr)
	count := func(syms []uint32) {
		for _, s := range syms {
			if s&sequitur.RuleFlag != 0 {
				refs[s&^sequitur.RuleFlag]++
			}
		}
	}
	count(g.Body)
	count(g.Root)

	// Children first: each rule's distinct words (from its children's
	// word sets), its body's cost and whether it keeps a table.
	distinct := make([]uint64, nr)
	cost := make([]uint64, nr)
	keep := make([]bool, nr)
	sets := make([][]uint32, nr)
	seen := make([]uint32, numWords)
	gen := uint32(0)
	for r := range nr {
		gen++
		var set []uint32
		add := func(w uint32) {
			if seen[w] != gen {
				seen[w] = gen
				set = append(set, w)
			}
		}
		for _, s := range g.Rule(r) {
			if s&sequitur.RuleFlag == 0 {
				add(s)
				cost[r]++
				continue
			}
			ch := s &^ sequitur.RuleFlag
			for _, w := range sets[ch] {
				add(w)
			}
			if keep[ch] {
				cost[r] += distinct[ch]
			} else {
				cost[r] += cost[ch]
			}
		}
		sets[r], distinct[r] = set, uint64(len(set))
		keep[r] = refs[r] > 1 && (refs[r]-1)*cost[r] > refs[r]*distinct[r]
	}
	sizes := &tableSizes{files: make([]uint64, g.NumFiles())}
	for f := range g.NumFiles() {
		gen++
		for _, s := range g.File(f) {
			words := []uint32{s}
			if s&sequitur.RuleFlag != 0 {
				words = sets[s&^sequitur.RuleFlag]
			}
			for _, w := range words {
				if seen[w] != gen {
					seen[w] = gen
					sizes.files[f]++
				}
			}
		}
	}
	sets = nil

	// The new grammar: kept rules renumbered in order (children stay
	// below their parents), inlined rules' bodies written out once and
	// copied at each reference.
	id := make([]uint32, nr)
	kept := uint32(0)
	for r := range nr {
		if keep[r] {
			id[r] = kept
			kept++
			sizes.rules = append(sizes.rules, distinct[r])
		}
	}
	written := make([][]uint32, nr)
	var write func(dst, syms []uint32) []uint32
	write = func(dst, syms []uint32) []uint32 {
		for _, s := range syms {
			if s&sequitur.RuleFlag == 0 {
				dst = append(dst, s)
				continue
			}
			ch := s &^ sequitur.RuleFlag
			switch {
			case keep[ch]:
				dst = append(dst, id[ch]|sequitur.RuleFlag)
			case written[ch] != nil:
				dst = append(dst, written[ch]...)
			default:
				start := len(dst)
				dst = write(dst, g.Rule(int(ch)))
				written[ch] = dst[start:len(dst):len(dst)]
			}
		}
		return dst
	}
	out := &sequitur.Grammar{RuleStart: make([]uint32, 1, kept+1), FileStart: make([]uint32, 1, g.NumFiles()+1)}
	for r := range nr {
		if keep[r] {
			out.Body = write(out.Body, g.Rule(r))
			if len(out.Body) > 1<<32-1 {
				return nil, nil, fmt.Errorf("analytics: inlined rules exceed 2^32 symbols")
			}
			out.RuleStart = append(out.RuleStart, uint32(len(out.Body)))
		}
	}
	for f := range g.NumFiles() {
		out.Root = write(out.Root, g.File(f))
		if len(out.Root) > 1<<32-1 {
			return nil, nil, fmt.Errorf("analytics: inlined documents exceed 2^32 symbols")
		}
		out.FileStart = append(out.FileStart, uint32(len(out.Root)))
	}
	return out, sizes, nil
}
