//go:build ignore

// tablework counts the hash-table inserts that per-document word tables
// (invindex, termvector, rankedinv) cost on a compressed corpus, against
// the plain computation's one insert per word, to bound what the
// bottom-up traversal can gain over it on any processor.
//
// Bottom-up, a document's table takes one insert per word of its root
// run and one per entry of each child rule's table (the rule's distinct
// words), and building a rule's table costs the same over its body. A rule
// need not have a table: inlined, its body stands in for it wherever it is
// referenced. The script prints the documents' inserts with every rule
// tabled (what the engines do); a lower bound on the documents' inserts
// under any choice of tabled rules, the tables free (a reference to rule
// r costs at least the smaller of r's distinct words and the sum of its
// body's bounds); and the total, tables and documents, when a rule is
// tabled only where that pays, (refs-1) * body cost > refs * distinct.
//
//	go run scripts/analytics/tablework.go COMPRESSED_DIR
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run scripts/analytics/tablework.go COMPRESSED_DIR")
	}
	c, err := analytics.Open(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	g := c.Grammar
	nr := g.NumRules()
	child := func(s uint32) (int, bool) { return int(s &^ sequitur.RuleFlag), s&sequitur.RuleFlag != 0 }

	// distinct[r]: the distinct words of rule r's expansion, from its
	// children's (rules come children first); refs[r]: its references.
	distinct := make([]int, nr)
	refs := make([]int, nr)
	sets := make([][]uint32, nr)
	seen := make([]int, len(c.Dict))
	gen := 0
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
			ch, isRule := child(s)
			if !isRule {
				add(s)
				continue
			}
			refs[ch]++
			for _, w := range sets[ch] {
				add(w)
			}
		}
		sets[r], distinct[r] = set, len(set)
	}
	postings := 0
	for f := range g.NumFiles() {
		gen++
		for _, s := range g.File(f) {
			ch, isRule := child(s)
			words := []uint32{s}
			if isRule {
				refs[ch]++
				words = sets[ch]
			}
			for _, w := range words {
				if seen[w] != gen {
					seen[w] = gen
					postings++
				}
			}
		}
	}

	// Per reference, with every rule tabled (all), at least (bound), and
	// with the tabled rules chosen (chosen, cost of building them: build).
	bound := make([]int, nr)
	chosen := make([]int, nr)
	build, tabled := 0, 0
	for r := range nr {
		b, body := 0, 0
		for _, s := range g.Rule(r) {
			ch, isRule := child(s)
			if !isRule {
				b++
				body++
				continue
			}
			b += bound[ch]
			body += chosen[ch]
		}
		bound[r] = min(b, distinct[r])
		chosen[r] = body
		if (refs[r]-1)*body > refs[r]*distinct[r] {
			chosen[r] = distinct[r]
			build += body
			tabled++
		}
	}
	var words, all, lower, docs int
	lens := c.RuleLengths()
	for _, s := range g.Root {
		ch, isRule := child(s)
		if !isRule {
			words, all, lower, docs = words+1, all+1, lower+1, docs+1
			continue
		}
		words += int(lens[ch])
		all += distinct[ch]
		lower += bound[ch]
		docs += chosen[ch]
	}
	for r := range nr {
		for _, s := range g.Rule(r) {
			if ch, isRule := child(s); isRule {
				all += distinct[ch]
			} else {
				all++
			}
		}
	}
	ratio := func(n int) string { return fmt.Sprintf("%d (%.2fx of the words)", n, float64(n)/float64(words)) }
	fmt.Printf("documents %d, rules %d, words %d, postings %s\n", g.NumFiles(), nr, words, ratio(postings))
	fmt.Printf("every rule tabled: tables and documents %s\n", ratio(all))
	fmt.Printf("documents alone, lower bound under any tabling: %s\n", ratio(lower))
	fmt.Printf("tabled where it pays (%d rules): tables %d + documents %d = %s\n", tabled, build, docs, ratio(build+docs))
}
