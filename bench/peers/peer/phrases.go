package peer

import (
	"math/rand/v2"
	"strings"

	"github.com/gpusearch/gpusearch/analysis"
)

// Phrases draws n phrases of two or three words from titles, the same for
// the same titles, n and seed. A candidate is a run of two or three
// consecutive terms of one title (gpusearch's analysis), as the title's
// text from the first term's word to the last one's ("crypto/subtle" is
// the phrase crypto subtle), holding no double quote (the phrase syntax)
// and no term twice. Candidates with the same terms count once, under the
// text met first; they are shuffled by a PCG seeded with seed and the first
// n kept (all of them when there are fewer).
func Phrases(titles []string, n int, seed uint64) []string {
	type word struct {
		term       string
		start, end int
	}
	a := analysis.New()
	seen := map[string]bool{}
	var cands []string
	var words []word
	for _, title := range titles {
		words = words[:0]
		a.AnalyzeOffsets([]byte(title), func(t string, start, end int) { words = append(words, word{t, start, end}) })
		for i := range words {
			for size := 2; size <= 3 && i+size <= len(words); size++ {
				run := words[i : i+size]
				terms := make([]string, size)
				for j, w := range run {
					terms[j] = w.term
				}
				text := title[run[0].start:run[size-1].end]
				key := strings.Join(terms, " ")
				if seen[key] || repeats(terms) || strings.Contains(text, `"`) {
					continue
				}
				seen[key] = true
				cands = append(cands, text)
			}
		}
	}
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	return cands[:min(n, len(cands))]
}

// repeats reports whether a term occurs twice in terms.
func repeats(terms []string) bool {
	for i, t := range terms {
		for _, u := range terms[i+1:] {
			if t == u {
				return true
			}
		}
	}
	return false
}
