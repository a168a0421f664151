package query

import (
	"github.com/gpusearch/gpusearch/index"
)

// The DAAT algorithms, by the name Stats.Algorithm reports.
var (
	algoAnd         = daatAlgorithm{"and", andQuery, true}
	algoBlockMaxAnd = daatAlgorithm{"and-blockmax", blockMaxAndQuery, true}
	algoOr          = daatAlgorithm{"or", orQuery, false}
	algoMaxScore    = daatAlgorithm{"maxscore", maxScoreQuery, true}
	algoWAND        = daatAlgorithm{"wand", wandQuery, false}
	algoBMW         = daatAlgorithm{"bmw", bmwQuery, false}
)

// init registers the CPU engines, which doc.go describes.
func init() {
	daat := func(and, or daatAlgorithm) Driver {
		return Driver{Open: func(ix *index.Index, _ Options) (Engine, error) {
			return &DAAT{ix: ix, and: and, or: or}, nil
		}}
	}
	Register("exhaustive", Driver{Open: func(ix *index.Index, _ Options) (Engine, error) { return NewExhaustive(ix), nil }})
	Register("daat", daat(algoAnd, algoOr))
	Register("maxscore", daat(algoAnd, algoMaxScore))
	Register("wand", daat(algoAnd, algoWAND))
	Register("bmw", daat(algoBlockMaxAnd, algoBMW))
	Register("cpu", daat(algoAnd, algoMaxScore))
	Register("bitmap", Driver{Needs: Needs{Cache: true}, Open: func(ix *index.Index, o Options) (Engine, error) {
		return NewBitmap(ix, BitmapOptions{CacheBytes: o.CacheBytes}), nil
	}})
	Register("bitmap-nocache", Driver{Open: func(ix *index.Index, _ Options) (Engine, error) {
		return NewBitmap(ix, BitmapOptions{}), nil
	}})
}
