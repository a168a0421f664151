package main

import (
	"testing"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/indexer"
)

// TestMergePolicy checks the config's merge keys as the indexer gets them:
// a floor_share of 0 turns the floor tier off (the indexer's zero value
// would be its default).
func TestMergePolicy(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   config.Merge
		want indexer.MergePolicy
	}{
		{"default", config.Default().Index.Merge, indexer.MergePolicy{SegmentsPerTier: 2, TierRatio: 8, FloorShare: 0.1, MaxDeletedShare: 0.1, MaxMergeDocs: 4_000_000}},
		{"no floor", config.Merge{Policy: "tiered", FloorShare: 0}, indexer.MergePolicy{FloorShare: -1}},
		{"off", config.Merge{Policy: "off", FloorShare: 0.2}, indexer.MergePolicy{Off: true, FloorShare: 0.2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergePolicy(tt.in); got != tt.want {
				t.Errorf("mergePolicy(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}
