package broker

import (
	"github.com/gpusearch/gpusearch/api"
)

// mergeHits merges the shards' ranked hits (each in rank order: higher
// score first, lower docid first among equal scores, the order of
// query.TopK) into the best n. Shards hold disjoint documents numbered
// with the collection's docids, so the merge is the collection's top n.
func mergeHits(parts [][]api.Hit, n int) []api.Hit {
	out := make([]api.Hit, 0, n)
	pos := make([]int, len(parts))
	for len(out) < n {
		best := -1
		for i, p := range parts {
			if pos[i] == len(p) {
				continue
			}
			if best < 0 || ranksAbove(p[pos[i]], parts[best][pos[best]]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, parts[best][pos[best]])
		pos[best]++
	}
	return out
}

// ranksAbove reports whether a ranks above b.
func ranksAbove(a, b api.Hit) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.DocID < b.DocID)
}
