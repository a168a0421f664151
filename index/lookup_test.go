package index

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestLookupSampled checks Lookup, narrowed by the sampled keys, against
// a plain search over every term, on lexicons whose terms share long
// prefixes, are shorter than 8 bytes or hold zero bytes, for terms in
// the lexicon and between, before and after its terms.
func TestLookupSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	tests := []struct {
		name string
		gen  func() string
	}{
		{"short", func() string { return word("abcdefgh", 1+rng.IntN(6)) }},
		{"shared prefix", func() string { return "prefix-of-" + word("abcdefgh", 1+rng.IntN(5)) }},
		{"mixed", func() string {
			return strings.Repeat("z", rng.IntN(10)) + word("a\x00b", rng.IntN(12))
		}},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 15, 16, 17, 300, 5000} {
			seen := map[string]bool{}
			var terms []string
			for len(terms) < n {
				if w := tt.gen(); w != "" && !seen[w] {
					seen[w] = true
					terms = append(terms, w)
				}
			}
			slices.Sort(terms)
			ix := &Index{}
			for _, w := range terms {
				ix.lexicon = append(ix.lexicon, lexEntry{termOff: uint64(len(ix.terms)), termLen: uint32(len(w))})
				ix.terms = append(ix.terms, w...)
			}
			ix.sampleLexicon()
			probes := append([]string{"", "\x00", "\xff\xff", "prefix-of-"}, terms...)
			for range 500 {
				probes = append(probes, tt.gen())
			}
			for _, p := range probes {
				want := sort.SearchStrings(terms, p)
				got, ok := ix.Lookup(p)
				if found := want < len(terms) && terms[want] == p; ok != found || ok && got.ID != want {
					t.Fatalf("%s, %d terms: Lookup(%q) = (id %d, %v), want (id %d, %v)", tt.name, n, p, got.ID, ok, want, found)
				}
				if lo, hi := ix.searchRange(p); want < lo || want > hi {
					t.Fatalf("%s, %d terms: searchRange(%q) = [%d, %d), the term's place is %d", tt.name, n, p, lo, hi, want)
				}
			}
		}
	}
}
