package gpu

import (
	"math"
	"slices"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// qlist is one posting list of a query as the device holds it.
type qlist struct {
	first uint32 // the list's first block in the columns (a row, with a list cache)
	nb    int    // blocks
	df    int    // postings
	term  int32  // the term's ID in the index
}

// qpos is one query term in query order: the list it scores from (an
// index into the plan's lists) and its idf.
type qpos struct {
	list int
	idf  float32
}

// qplan is one pass of a query: for AND, the distinct lists shortest
// first (the order of intersection); for OR, every found term's list in
// query order. pos gives the order scores add up in.
type qplan struct {
	and   bool
	k     int
	lists []qlist
	pos   []qpos
}

// planQuery resolves q's terms for one pass (mode And or Or). It returns
// false when the pass has nothing to do: no terms found or, for AND, a
// term missing. Duplicate terms keep their places in the score order, as
// the CPU engines do; AND intersects each distinct list once.
func planQuery(ix *index.Index, q query.Query, mode query.Mode) (qplan, bool) {
	p := qplan{and: mode == query.And, k: q.K}
	bs := ix.BlockSize()
	var ids []int // the term ID of each list (a query has a few)
	for _, t := range q.Terms {
		info, ok := ix.Lookup(t)
		if !ok {
			if p.and {
				return qplan{}, false
			}
			continue
		}
		l := slices.Index(ids, info.ID)
		if l < 0 || !p.and {
			l = len(p.lists)
			ids = append(ids, info.ID)
			p.lists = append(p.lists, qlist{first: info.FirstBlock, nb: info.NumBlocks(bs), df: int(info.DF), term: int32(info.ID)})
		}
		p.pos = append(p.pos, qpos{list: l, idf: ix.IDF(info)})
	}
	if len(p.pos) == 0 || q.K <= 0 {
		return qplan{}, false
	}
	if p.and {
		// Shortest first, ties in query order; positions follow their lists.
		order := make([]int, len(p.lists))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return p.lists[a].df - p.lists[b].df })
		rank := make([]int, len(order))
		lists := make([]qlist, len(order))
		for r, l := range order {
			rank[l] = r
			lists[r] = p.lists[l]
		}
		p.lists = lists
		for i := range p.pos {
			p.pos[i].list = rank[p.pos[i].list]
		}
	}
	return p, true
}

// postings is the number of postings in the plan's lists.
func (p *qplan) postings() int {
	n := 0
	for _, l := range p.lists {
		n += l.df
	}
	return n
}

// makeKey is the device's top-k key of a hit: larger keys rank higher
// (score descending, then docid ascending), so the k largest keys are the
// top-k. It matches make_key in kernels/query.cu.
func makeKey(score float32, doc uint32) uint64 {
	b := math.Float32bits(score)
	if b&0x80000000 != 0 {
		b = ^b
	} else {
		b |= 0x80000000
	}
	return uint64(b)<<32 | uint64(math.MaxUint32-doc)
}

// keyHit inverts makeKey.
func keyHit(key uint64) query.Hit {
	b := uint32(key >> 32)
	if b&0x80000000 != 0 {
		b &^= 0x80000000
	} else {
		b = ^b
	}
	return query.Hit{DocID: math.MaxUint32 - uint32(key), Score: math.Float32frombits(b)}
}

// hitsFromKeys turns the device's unordered top-k keys into ranked hits.
func hitsFromKeys(keys []uint64) []query.Hit {
	keys = slices.Clone(keys)
	slices.SortFunc(keys, func(a, b uint64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	hits := make([]query.Hit, len(keys))
	for i, k := range keys {
		hits[i] = keyHit(k)
	}
	return hits
}

// Phase names a stage of GPU query processing, for Profile.
type Phase int

// The phases, in the order of the paper's Table 3 breakdown.
const (
	PhaseInit      Phase = iota // zeroing accumulators and state
	PhaseSelection              // choosing the blocks to decode (merge find in the skip table)
	PhaseDecode                 // decoding docid and frequency blocks
	PhaseIntersect              // intersecting candidates with the decoded blocks
	PhaseScore                  // BM25 scores (accumulation for OR)
	PhaseTopK                   // selecting and reading back the top-k
	numPhases
)

var phaseNames = [numPhases]string{"init", "selection", "decode", "intersect", "score", "topk"}

func (p Phase) String() string {
	if p < 0 || p >= numPhases {
		return "phase?"
	}
	return phaseNames[p]
}

// Phases is the device time of one query by phase, measured with CUDA
// events between the phases (the events themselves add a little).
type Phases [numPhases]time.Duration

// Total is the sum of the phases.
func (ph Phases) Total() time.Duration {
	var t time.Duration
	for _, d := range ph {
		t += d
	}
	return t
}

// Map returns the phases by name, in microseconds.
func (ph Phases) Map() map[string]float64 {
	m := make(map[string]float64, numPhases)
	for i, d := range ph {
		m[Phase(i).String()] = float64(d.Nanoseconds()) / 1e3
	}
	return m
}
