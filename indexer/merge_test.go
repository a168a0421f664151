package indexer

import (
	"slices"
	"testing"
)

// TestMergePlan checks the tiered policy's choices.
func TestMergePlan(t *testing.T) {
	p := MergePolicy{SegmentsPerTier: 4}.withDefaults() // ratio 8, 30% deleted, 4M documents
	for _, tt := range []struct {
		name string
		segs []segmentSize
		want []int
	}{
		{"one segment", []segmentSize{{docs: 32000}}, nil},
		{"three small under a big one", []segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}, {docs: 310}}, nil},
		{"four small: the tier is full", []segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}, {docs: 310}, {docs: 400}}, []int{1, 3, 2, 4}},
		{"small ones of other tiers", []segmentSize{{docs: 32000}, {docs: 3}, {docs: 300}, {docs: 30}, {docs: 3000}}, nil},
		{"a segment mostly deleted", []segmentSize{{docs: 32000, deleted: 16000}, {docs: 300}}, []int{0}},
		{"a deleted one merges with its tier", []segmentSize{{docs: 300, deleted: 200}, {docs: 90}, {docs: 32000}}, []int{1, 0}},
		{"empty segments", []segmentSize{{docs: 5, deleted: 5}, {docs: 1}, {docs: 2}, {docs: 3}}, []int{0, 1, 2, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.plan(tt.segs); !slices.Equal(got, tt.want) {
				t.Errorf("plan = %v, want %v", got, tt.want)
			}
		})
	}
	if got := (MergePolicy{}).withDefaults().plan([]segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}}); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("the default policy (2 per tier) plans %v, want [1 2]", got)
	}
	small := MergePolicy{SegmentsPerTier: 4, MaxMergeDocs: 500}.withDefaults()
	if got := small.plan([]segmentSize{{docs: 300}, {docs: 300}, {docs: 300}, {docs: 300}}); got != nil {
		t.Errorf("merges beyond max_merge_docs: %v", got)
	}
}
