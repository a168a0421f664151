package broker

import (
	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/query"
)

// mergeHits merges the shards' ranked hits into the best n with
// query.MergeHits, the merge a node serving several shards uses (higher
// score first, lower docid first among equal scores), and gives each
// merged hit back its URL, title and snippet. Shards hold disjoint
// documents numbered with the collection's docids, so the merge is the
// collection's top n, and a docid names one shard's hit.
func mergeHits(parts [][]api.Hit, n int) []api.Hit {
	ranked := make([][]query.Hit, len(parts))
	for i, p := range parts {
		ranked[i] = make([]query.Hit, len(p))
		for j, h := range p {
			ranked[i][j] = query.Hit{DocID: h.DocID, Score: h.Score}
		}
	}
	merged := query.MergeHits(n, ranked...)
	out := make([]api.Hit, len(merged))
	next := make([]int, len(parts)) // each part's hits are taken in rank order
	for k, h := range merged {
		for i, p := range parts {
			if next[i] < len(p) && p[next[i]].DocID == h.DocID {
				out[k] = p[next[i]]
				next[i]++
				break
			}
		}
	}
	return out
}
