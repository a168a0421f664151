package index

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestLookup checks Lookup, by hashing, against a plain search over every
// term, and LookupAll against Lookup, on lexicons whose terms share long prefixes, are short or hold
// zero bytes, and on one large enough to be hashed on several goroutines,
// for terms in the lexicon and between, before and after its terms.
func TestLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	tests := []struct {
		name  string
		gen   func() string
		sizes []int
	}{
		{"short", func() string { return word("abcdefgh", 1+rng.IntN(6)) }, []int{0, 1, 2, 3, 4, 5, 16, 17, 300, 5000}},
		{"shared prefix", func() string { return "prefix-of-" + word("abcdefgh", 1+rng.IntN(5)) }, []int{1, 17, 5000}},
		{"mixed", func() string {
			return strings.Repeat("z", rng.IntN(10)) + word("a\x00b", rng.IntN(12))
		}, []int{1, 300, 5000}},
		{"many", func() string { return word("abcdefghijklmnopqrstuvwxyz", 3+rng.IntN(8)) }, []int{140000}},
	}
	for _, tt := range tests {
		for _, n := range tt.sizes {
			seen := map[string]bool{}
			var terms []string
			for len(terms) < n {
				if w := tt.gen(); w != "" && !seen[w] {
					seen[w] = true
					terms = append(terms, w)
				}
			}
			ix := lexiconOf(terms)
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
				if ok && got.Term != p {
					t.Fatalf("%s, %d terms: Lookup(%q) names the term %q", tt.name, n, p, got.Term)
				}
			}
			// LookupAll, over runs of probes shorter and longer than its
			// batch, finds what Lookup finds.
			for i := 0; i < len(probes); {
				run := probes[i:min(i+rng.IntN(3*lookupBatch), len(probes))]
				i += len(run)
				var want, got []TermInfo
				for _, p := range run {
					if t, ok := ix.Lookup(p); ok {
						want = append(want, t)
					}
				}
				last := -1
				ix.LookupAll(run, func(j int, ti TermInfo) {
					if j <= last || j >= len(run) || run[j] != ti.Term {
						t.Fatalf("%s, %d terms: LookupAll(%q) calls found(%d, %q) after %d", tt.name, n, run, j, ti.Term, last)
					}
					last = j
					got = append(got, ti)
				})
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %d terms: LookupAll(%q) = %v, Lookup finds %v", tt.name, n, run, got, want)
				}
			}
		}
	}
}

// BenchmarkLookup looks up random terms of a 2^21-term lexicon, by
// Lookup's hash and, for comparison, by binary search.
func BenchmarkLookup(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	var terms []string
	for len(terms) < 1<<21 {
		n := 3 + rng.IntN(8)
		w := make([]byte, n)
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			terms = append(terms, string(w))
		}
	}
	ix := lexiconOf(terms)
	probes := make([]string, 4096)
	for i := range probes {
		probes[i] = terms[rng.IntN(len(terms))]
	}
	b.Run("hash", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, ok := ix.Lookup(probes[i%len(probes)]); !ok {
				b.Fatal("term not found")
			}
		}
	})
	b.Run("binary-search", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			p := probes[i%len(probes)]
			if j := sort.Search(len(ix.lexicon), func(j int) bool { return ix.termString(j) >= p }); ix.termString(j) != p {
				b.Fatal("term not found")
			}
		}
	})
}

// lexiconOf sorts terms and returns an Index holding only them as its
// lexicon, hashed for Lookup.
func lexiconOf(terms []string) *Index {
	slices.Sort(terms)
	ix := &Index{}
	for _, w := range terms {
		ix.lexicon = append(ix.lexicon, lexEntry{termOff: uint64(len(ix.terms)), termLen: uint32(len(w))})
		ix.terms = append(ix.terms, w...)
	}
	ix.byTerm = newTermTable(len(ix.lexicon), ix.termString)
	return ix
}
