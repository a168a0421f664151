package broker

import (
	"sync/atomic"

	"github.com/gpusearch/gpusearch/internal/lru"
)

// answerCache is the broker's result cache, counting its hits and
// misses; a nil *answerCache is off: it misses and keeps nothing.
type answerCache struct {
	c            *lru.Cache[SearchResponse]
	hits, misses atomic.Int64
}

// newAnswerCache makes a cache of capacity answers, nil when capacity <= 0.
func newAnswerCache(capacity int) *answerCache {
	c := lru.New[SearchResponse](capacity)
	if c == nil {
		return nil
	}
	return &answerCache{c: c}
}

// get returns the answer under key. Its hits are shared and must not be
// modified.
func (a *answerCache) get(key string) (SearchResponse, bool) {
	if a == nil {
		return SearchResponse{}, false
	}
	v, ok := a.c.Get(key)
	if ok {
		a.hits.Add(1)
	} else {
		a.misses.Add(1)
	}
	return v, ok
}

// add stores an answer, evicting the least recently used one when full.
func (a *answerCache) add(key string, val SearchResponse) {
	if a != nil {
		a.c.Add(key, val)
	}
}

// len is the number of answers held.
func (a *answerCache) len() int {
	if a == nil {
		return 0
	}
	return a.c.Len()
}
