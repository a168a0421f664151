package gpu

import "github.com/gpusearch/gpusearch/analytics/sequitur"

const (
	analyticsCTA = 256 // threads per CTA of the analytics kernels
	chunkRules   = 32  // rule references per CTA of tadoc_files (rootChunks)
)

// rootChunks cuts each document's root run into the chunks a CTA of
// tadoc_files (and its top-down and sequence twins) takes: triples
// (document, first symbol, end). A chunk ends after chunkRules rule
// references, each a table to merge, or analyticsCTA symbols, a word for
// each thread.
func rootChunks(g *sequitur.Grammar) []uint32 {
	var chunks []uint32
	for f := range g.NumFiles() {
		start, rules := g.FileStart[f], 0
		for s := g.FileStart[f]; s < g.FileStart[f+1]; s++ {
			if g.Root[s]&sequitur.RuleFlag != 0 {
				rules++
			}
			if rules == chunkRules || s+1-start == analyticsCTA || s+1 == g.FileStart[f+1] {
				chunks = append(chunks, uint32(f), start, s+1)
				start, rules = s+1, 0
			}
		}
	}
	return chunks
}
