package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// TestRootChunks cuts random roots (words and rule references mixed, some
// documents empty) and checks that the chunks cover each document's run
// in order, each within the limits and ended early only by one of them.
func TestRootChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, ruleShare := range []float64{0, 0.05, 0.5, 1} {
		g := &sequitur.Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0}}
		for range 60 {
			for range r.IntN(700) * r.IntN(2) {
				s := uint32(r.IntN(1000))
				if r.Float64() < ruleShare {
					s |= sequitur.RuleFlag
				}
				g.Root = append(g.Root, s)
			}
			g.FileStart = append(g.FileStart, uint32(len(g.Root)))
		}
		chunks := rootChunks(g)
		if len(chunks)%3 != 0 {
			t.Fatalf("rule share %v: %d values, not triples", ruleShare, len(chunks))
		}
		next := 0 // the next chunk to check
		for f := range g.NumFiles() {
			for at := g.FileStart[f]; at < g.FileStart[f+1]; {
				if next+3 > len(chunks) {
					t.Fatalf("rule share %v: document %d's symbols from %d have no chunk", ruleShare, f, at)
				}
				file, start, end := chunks[next], chunks[next+1], chunks[next+2]
				next += 3
				if int(file) != f || start != at || end <= start || end > g.FileStart[f+1] {
					t.Fatalf("rule share %v: chunk (%d, %d, %d), want document %d from %d", ruleShare, file, start, end, f, at)
				}
				rules := 0
				for _, s := range g.Root[start:end] {
					if s&sequitur.RuleFlag != 0 {
						rules++
					}
				}
				full := rules == chunkRules || end-start == analyticsCTA
				if rules > chunkRules || end-start > analyticsCTA || (end < g.FileStart[f+1] && !full) {
					t.Errorf("rule share %v: chunk (%d, %d, %d) has %d symbols and %d rules", ruleShare, file, start, end, end-start, rules)
				}
				at = end
			}
		}
		if next != len(chunks) {
			t.Errorf("rule share %v: %d values after the last document's chunks", ruleShare, len(chunks)-next)
		}
	}
}
