package peer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
)

// TestSplitPassages checks that each passage, analysed on its own, holds
// exactly the terms indexer.Options.Passages puts in it: the k =
// max(1, round(L/size)) runs of L/k consecutive terms.
func TestSplitPassages(t *testing.T) {
	a := analysis.New()
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"Protocol", "routers'", "e.g.", "TCP/IP", "3.14", "naïve", "running", "—", "x", "HTTP-2"}
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString([]string{" ", "  ", ", ", ".\n", "\t"}[r.IntN(5)])
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	tests := []struct {
		name string
		text string
		size int
	}{
		{"empty", "", 4},
		{"no terms", " , — ", 4},
		{"shorter than half a passage", text(1), 4},
		{"one passage", text(5), 4},
		{"two passages", text(7), 4},
		{"many passages", text(203), 8},
		{"size one", text(9), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := a.Terms(tc.text)
			got := SplitPassages(a, []byte(tc.text), tc.size)
			k := max(1, int(float64(len(all))/float64(tc.size)+0.5))
			if len(got) != k {
				t.Fatalf("%d passages, want %d", len(got), k)
			}
			for i, p := range got {
				want := all[i*len(all)/k : (i+1)*len(all)/k]
				if terms := a.Terms(string(p)); !slices.Equal(terms, want) {
					t.Errorf("passage %d %q: terms %q, want %q", i, p, terms, want)
				}
			}
		})
	}
}

func ExampleSplitPassages() {
	for _, p := range SplitPassages(analysis.New(), []byte("one two, three four. five six"), 2) {
		fmt.Printf("%q\n", p)
	}
	// Output:
	// "one two"
	// "three four"
	// "five six"
}
