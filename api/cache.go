package api

import (
	"github.com/gpusearch/gpusearch/internal/lru"
	"github.com/gpusearch/gpusearch/query"
)

// cached is a cached answer: the ranked hits to the cached depth, with
// their URLs, and the statistics of the search that produced them.
type cached struct {
	hits  []Hit
	stats query.Stats
}

// resultCache is the result cache of a generation (nil: off).
type resultCache = lru.Cache[cached]
