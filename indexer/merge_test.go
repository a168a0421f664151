package indexer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergePlan checks the tiered policy's choices.
func TestMergePlan(t *testing.T) {
	p := MergePolicy{SegmentsPerTier: 4, FloorShare: -1, MaxDeletedShare: 0.3}.withDefaults() // ratio 8, no floor, 4M documents
	for _, tt := range []struct {
		name string
		segs []segmentSize
		want []int
	}{
		{"one segment", []segmentSize{{docs: 32000}}, nil},
		{"three small under a big one", []segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}, {docs: 310}}, nil},
		{"four small: the tier is full", []segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}, {docs: 310}, {docs: 400}}, []int{1, 3, 2, 4}},
		{"small ones of other tiers", []segmentSize{{docs: 32000}, {docs: 3}, {docs: 300}, {docs: 30}, {docs: 3000}}, nil},
		{"a segment mostly deleted, with the tiers below", []segmentSize{{docs: 32000, deleted: 16000}, {docs: 300}}, []int{1, 0}},
		{"a segment mostly deleted", []segmentSize{{docs: 32000, deleted: 16000}, {docs: 40000}}, []int{0}},
		{"a deleted one merges with its tier", []segmentSize{{docs: 300, deleted: 200}, {docs: 90}, {docs: 32000}}, []int{1, 0}},
		{"empty segments", []segmentSize{{docs: 5, deleted: 5}, {docs: 1}, {docs: 2}, {docs: 3}}, []int{0, 1, 2, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.plan(tt.segs); !slices.Equal(got, tt.want) {
				t.Errorf("plan = %v, want %v", got, tt.want)
			}
		})
	}
	if got := (MergePolicy{FloorShare: -1}).withDefaults().plan([]segmentSize{{docs: 32000}, {docs: 300}, {docs: 320}}); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("2 per tier plans %v, want [1 2]", got)
	}
	small := MergePolicy{SegmentsPerTier: 4, MaxMergeDocs: 500, FloorShare: -1}.withDefaults()
	if got := small.plan([]segmentSize{{docs: 300}, {docs: 300}, {docs: 300}, {docs: 300}}); got != nil {
		t.Errorf("merges beyond max_merge_docs: %v", got)
	}
}

// TestMergePlanFloor checks the default policy: the segments under a tenth
// of the live documents form one tier, and a purge takes the tiers below
// along.
func TestMergePlanFloor(t *testing.T) {
	p := MergePolicy{}.withDefaults() // 2 per tier, ratio 8, floor 0.1, 10% deleted
	for _, tt := range []struct {
		name string
		segs []segmentSize
		want []int
	}{
		{"one small segment", []segmentSize{{docs: 9148, deleted: 92}, {docs: 92}}, nil},
		{"two small ones of other tiers", []segmentSize{{docs: 9148, deleted: 184}, {docs: 600}, {docs: 92}}, []int{2, 1}},
		{"a mid-sized one above the floor", []segmentSize{{docs: 9148}, {docs: 1104}, {docs: 92}}, nil},
		{"a purge takes the small one along", []segmentSize{{docs: 9148, deleted: 1000}, {docs: 900}}, []int{1, 0}},
		{"a purge of a small one", []segmentSize{{docs: 9148}, {docs: 100, deleted: 50}}, []int{1}},
		{"a purge takes the tiers below", []segmentSize{{docs: 9148, deleted: 920}, {docs: 920}}, []int{1, 0}},
		{"a purge leaves larger tiers", []segmentSize{{docs: 9148}, {docs: 2000, deleted: 300}, {docs: 100}}, []int{2, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.plan(tt.segs); !slices.Equal(got, tt.want) {
				t.Errorf("plan = %v, want %v", got, tt.want)
			}
		})
	}
	capped := MergePolicy{MaxMergeDocs: 5000}.withDefaults()
	if got := capped.plan([]segmentSize{{docs: 9148, deleted: 1000}, {docs: 900}}); got != nil {
		t.Errorf("a purge beyond max_merge_docs merges %v", got)
	}
}

// TestMergePlanEnds runs the policy's loop, as mergeByPolicy does, on
// random segment sets under random policies: it must end, each merge
// lowering the count of segments or purging one.
func TestMergePlanEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for run := range 2000 {
		p := MergePolicy{SegmentsPerTier: 2 + rng.IntN(3), TierRatio: 2 + 10*rng.Float64(),
			FloorShare: rng.Float64()*0.4 - 0.1, MaxDeletedShare: 0.05 + rng.Float64()/2,
			MaxMergeDocs: int64(1 + rng.IntN(20000))}.withDefaults()
		segs := make([]segmentSize, 1+rng.IntN(12))
		for i := range segs {
			segs[i].docs = uint64(1 + rng.IntN(10000))
			segs[i].deleted = uint64(rng.IntN(int(segs[i].docs) + 1))
		}
		for steps, most := 0, 2*len(segs); ; steps++ {
			if steps > most {
				t.Fatalf("run %d: the policy %+v does not end: %v", run, p, segs)
			}
			pick := p.plan(segs)
			if pick == nil {
				break
			}
			var merged segmentSize
			for _, i := range pick {
				merged.docs += uint64(segs[i].live())
			}
			var rest []segmentSize
			for i, s := range segs {
				if !slices.Contains(pick, i) {
					rest = append(rest, s)
				}
			}
			if merged.docs > 0 {
				rest = append(rest, merged)
			}
			segs = rest
		}
	}
}
