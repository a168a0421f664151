package query

import (
	"fmt"

	"github.com/gpusearch/gpusearch/index"
)

// Algorithms lists the CPU engines New accepts besides "cpu", in the order
// benchmarks report them.
var Algorithms = []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap"}

// The DAAT algorithms, by the name Stats.Algorithm reports.
var (
	algoAnd         = daatAlgorithm{"and", andQuery, true}
	algoBlockMaxAnd = daatAlgorithm{"and-blockmax", blockMaxAndQuery, true}
	algoOr          = daatAlgorithm{"or", orQuery, false}
	algoMaxScore    = daatAlgorithm{"maxscore", maxScoreQuery, false}
	algoWAND        = daatAlgorithm{"wand", wandQuery, false}
	algoBMW         = daatAlgorithm{"bmw", bmwQuery, false}
)

// New returns the CPU engine named name over ix:
//
//	exhaustive  term-at-a-time reference scorer (both modes)
//	daat        DAAT AND / exhaustive DAAT OR
//	maxscore    DAAT AND / MaxScore OR
//	wand        DAAT AND / WAND OR
//	bmw         block-max DAAT AND / Block-Max WAND OR
//	bitmap      roaring-bitmap baseline with a DefaultBitmapCacheBytes cache
//	cpu         the fastest measured per mode on real collections
//	            (docs/queries.md): DAAT AND and MaxScore OR
//
// Stats.Algorithm names the algorithm that answered, "and+maxscore" for an
// AND+OR query that fell back to OR.
func New(ix *index.Index, name string) (Engine, error) {
	daat := func(and, or daatAlgorithm) Engine { return &DAAT{ix: ix, and: and, or: or} }
	switch name {
	case "exhaustive":
		return NewExhaustive(ix), nil
	case "daat":
		return daat(algoAnd, algoOr), nil
	case "maxscore":
		return daat(algoAnd, algoMaxScore), nil
	case "wand":
		return daat(algoAnd, algoWAND), nil
	case "bmw":
		return daat(algoBlockMaxAnd, algoBMW), nil
	case "cpu":
		return daat(algoAnd, algoMaxScore), nil
	case "bitmap":
		return NewBitmap(ix, BitmapOptions{CacheBytes: DefaultBitmapCacheBytes}), nil
	}
	return nil, fmt.Errorf("query: unknown engine %q (want cpu or one of %v)", name, Algorithms)
}
