package indexer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// MergePolicy is the tiered merge policy an update runs after its commit
// (and `gpusearch merge` with All): segments are grouped in tiers by their
// live documents, tier t holding those of TierRatio^t to TierRatio^(t+1)
// (tier 0 below TierRatio); when a tier holds SegmentsPerTier segments
// they merge into one, which lands in a higher tier, until no tier is
// full. The segments under FloorShare of the index's live documents form
// one tier of their own, below the others, as Lucene's floor segment
// size does: a small update's segment merges at once with the small ones
// before it, which costs only their size, and the index keeps at most
// SegmentsPerTier-1 small segments, whose fixed cost per query and term
// a query pays in each. A segment whose deleted documents exceed
// MaxDeletedShare of its own is merged too (alone, or with its tier's),
// with every segment of the tiers below, which purges them. Each merge
// restores URL order across its inputs and computes bounds afresh; a
// merge whose inputs hold more than MaxMergeDocs live documents is not
// run (the memory a merge holds grows with its documents: their lengths,
// URLs and one list at a time), nor any when Off.
type MergePolicy struct {
	Off             bool
	SegmentsPerTier int     // segments of one tier that trigger a merge (default 2)
	TierRatio       float64 // size ratio between tiers (default 8)
	FloorShare      float64 // share of the live documents under which segments form one tier (default 0.1; negative: none)
	MaxDeletedShare float64 // deleted share of a segment that triggers its merge (default 0.1)
	MaxMergeDocs    int64   // most live documents one merge writes (default 4,000,000)
}

func (p MergePolicy) withDefaults() MergePolicy {
	if p.SegmentsPerTier < 2 {
		p.SegmentsPerTier = 2
	}
	if !(p.TierRatio > 1) {
		p.TierRatio = 8
	}
	if p.FloorShare == 0 || math.IsNaN(p.FloorShare) {
		p.FloorShare = 0.1
	}
	if !(p.MaxDeletedShare > 0) {
		p.MaxDeletedShare = 0.1
	}
	if p.MaxMergeDocs <= 0 {
		p.MaxMergeDocs = 4_000_000
	}
	return p
}

// segmentSize is what the policy knows of a segment: its documents and
// how many of them are deleted (as the commit point records them).
type segmentSize struct{ docs, deleted uint64 }

func (s segmentSize) live() int64 { return int64(s.docs - s.deleted) }

// sizes are the segments' sizes a commit point records.
func sizes(m index.Meta) []segmentSize {
	if len(m.Segments) == 0 {
		return []segmentSize{{docs: m.Docs}}
	}
	out := make([]segmentSize, len(m.Segments))
	for i, s := range m.Segments {
		out[i].docs = s.Meta.Docs
		if s.Deletions != nil {
			out[i].deleted = s.Deletions.Count
		}
	}
	return out
}

// floorTier is the tier of the segments under the policy's floor.
const floorTier = -1

// plan picks the segments of the next merge, by index, or none.
func (p MergePolicy) plan(segs []segmentSize) []int {
	var total int64
	for _, s := range segs {
		total += s.live()
	}
	tiers := map[int][]int{}
	for i, s := range segs {
		t := 0
		switch l := s.live(); {
		case float64(l) < p.FloorShare*float64(total):
			t = floorTier
		case l >= 1:
			t = int(math.Floor(math.Log(float64(l)) / math.Log(p.TierRatio)))
		}
		tiers[t] = append(tiers[t], i)
	}
	purges := func(i int) bool {
		return float64(segs[i].deleted) > p.MaxDeletedShare*float64(segs[i].docs)
	}
	for _, t := range slices.Sorted(maps.Keys(tiers)) {
		in := tiers[t]
		purge := slices.ContainsFunc(in, purges)
		full := len(in) >= p.SegmentsPerTier
		if !full && !purge {
			continue
		}
		if purge {
			// The purge rewrites a segment larger than those of the
			// tiers below: merging them into it at most doubles its
			// cost, and saves their own merges.
			in = slices.Clone(in)
			for u, below := range tiers {
				if u < t {
					in = append(in, below...)
				}
			}
		}
		// The smallest first (equal ones in commit order), as many as
		// fit the largest merge.
		slices.Sort(in)
		slices.SortStableFunc(in, func(a, b int) int { return cmp.Compare(segs[a].live(), segs[b].live()) })
		var pick []int
		var docs int64
		for _, i := range in {
			if docs+segs[i].live() > p.MaxMergeDocs {
				break
			}
			pick = append(pick, i)
			docs += segs[i].live()
		}
		// Every merge either lowers the count of segments or purges one,
		// so that the policy's loop ends.
		if (full && len(pick) >= 2) || slices.ContainsFunc(pick, purges) {
			return pick
		}
	}
	return nil
}

// mergeByPolicy runs the merges opts.Merge asks for on the index in d
// (locked), or, with all, merges every segment into one; it returns the
// segments merged.
func mergeByPolicy(ctx context.Context, d *index.Dir, opts Options, all bool) (int, error) {
	merged := 0
	for {
		if opts.Merge.Off && !all {
			return merged, nil
		}
		// The plan needs only the commit point; the index opens for a
		// merge alone.
		m, err := index.ReadMeta(d.Path())
		if err != nil {
			return merged, err
		}
		var pick []int
		switch {
		case all && (len(m.Segments) > 1 || len(m.Segments) == 1 && m.Segments[0].Deletions != nil):
			pick = make([]int, len(m.Segments))
			for i := range pick {
				pick[i] = i
			}
		case !all:
			pick = opts.Merge.plan(sizes(m))
		}
		if pick == nil {
			return merged, nil
		}
		ix, err := index.Open(d.Path())
		if err != nil {
			return merged, err
		}
		segs := segmentsOf(ix)
		progressf(opts, "merge: %d segments\n", len(pick))
		err = mergeSegments(ctx, d, ix, segs, pick, opts)
		ix.Close()
		if err != nil {
			return merged, err
		}
		merged += len(pick)
	}
}

// mergeSegments merges segments pick of ix into one, in URL order, and
// commits it in their place.
func mergeSegments(ctx context.Context, d *index.Dir, ix *index.Index, segs []segment, pick []int, opts Options) error {
	chosen := make([]segment, len(pick))
	for k, i := range pick {
		chosen[k] = segs[i]
	}
	srcs, where := liveSources(chosen)
	inputs := make([]index.MergeInput, len(chosen))
	for k, s := range chosen {
		inputs[k] = index.MergeInput{Index: s.ix, DocMap: make([]uint32, s.ix.NumDocs())}
		for i := range inputs[k].DocMap {
			inputs[k].DocMap[i] = index.Dropped
		}
		_, all, _ := s.ix.Sources()
		inputs[k].Sources = all
	}
	next := uint32(0)
	for i, src := range srcs {
		at := where[i]
		for j := range src.Docs {
			inputs[at.seg].DocMap[at.first+j] = next
			next++
		}
	}
	base := segs[0].ix
	wopts := index.WriterOptions{DocIDCodec: base.Meta().DocIDCodec, FreqCodec: base.Meta().FreqCodec, Order: base.Meta().Order,
		BM25: base.BM25(), TitleWeight: base.Meta().TitleWeight, Positions: base.HasPositions()}
	if wopts.Positions {
		wopts.PositionsCodec = base.PositionsCodec().Name()
	}
	m, err := index.MergeSegment(ctx, d, wopts, inputs)
	if err != nil {
		return fmt.Errorf("indexer: merge: %w", err)
	}
	// The merged segment takes the place of its first input.
	first := slices.Min(pick)
	var commit []index.CommitSegment
	for i, s := range segs {
		switch {
		case i == first:
			commit = append(commit, index.CommitSegment{Meta: m})
		case !slices.Contains(pick, i):
			commit = append(commit, index.CommitSegment{Meta: s.ix.Meta(), Prior: s.prior})
		}
	}
	_, err = d.CommitSegments(commit, true)
	return err
}

// MergeReport summarises `gpusearch merge`.
type MergeReport struct {
	Inputs    int `json:"inputs"`    // segments merged
	Segments  int `json:"segments"`  // segments after
	Documents int `json:"documents"` // live documents
}

// Merge merges the segments of the index in dir: all of them into one
// with all (which purges every deletion), else as opts.Merge asks.
func Merge(ctx context.Context, dir string, opts Options, all bool) (MergeReport, error) {
	var rep MergeReport
	if err := refuseShards(dir, "a merge"); err != nil {
		return rep, err
	}
	d, err := index.LockDir(dir)
	if err != nil {
		return rep, err
	}
	defer d.Unlock()
	opts = opts.withDefaults()
	if rep.Inputs, err = mergeByPolicy(ctx, d, opts, all); err != nil {
		return rep, err
	}
	m, err := index.ReadMeta(dir)
	if err != nil {
		return rep, err
	}
	rep.Segments, rep.Documents = max(1, len(m.Segments)), int(m.Docs)
	return rep, nil
}
