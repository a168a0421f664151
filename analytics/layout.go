package analytics

import (
	"math/bits"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// ThreadWork is the most work (body symbols plus the table slots of the
// children merged) a data-parallel engine gives one thread; a rule with
// more gets a warp, and one with more than WarpWork a block of warps.
const (
	ThreadWork = 64
	WarpWork   = 32 * 128
)

// Sizes are the groups a level's rules are cut into, by work: a thread,
// a warp, a block.
const Sizes = 3

// Layout prepares a corpus for a data-parallel engine such as the GPU's:
// the rules grouped by level, so that one launch per level handles rules
// whose dependencies are all done, and a memory pool of hash tables, one
// per rule and one per document, each sized from a bound on its distinct
// words.
//
// A rule's level is 0 when it refers to no rule, else one more than its
// children's highest; parents are always on higher levels than their
// children. Bottom-up walks the levels upwards, top-down downwards: these
// level lists stand for G-TADOC's per-rule ready masks, computed once.
type Layout struct {
	Levels int
	// Rules holds every rule, level by level from 0; within a level first
	// the rules one thread handles (work at most ThreadWork), then those
	// a warp handles (at most WarpWork), then those a block handles.
	// Level l's rules of size i (0 thread, 1 warp, 2 block) are
	// Rules[LevelStart[Sizes*l+i]:LevelStart[Sizes*l+i+1]].
	Rules      []uint32
	LevelStart []uint32
	// TableOff[r]..TableOff[r+1] are rule r's slots in the rule pool: a
	// power of two at least twice a bound on the distinct words of the
	// rule's expansion (0 slots for none). FileOff does the same for each
	// document in the file pool.
	TableOff []uint64
	FileOff  []uint64
}

// tableSlots returns the slots of a table for at most bound keys.
func tableSlots(bound uint64) uint64 {
	if bound == 0 {
		return 0
	}
	return 1 << bits.Len64(2*bound-1)
}

// NewLayout computes the layout of g over a dictionary of numWords words
// in one pass over the rules in increasing order (children first).
func NewLayout(g *sequitur.Grammar, numWords int) *Layout {
	words := func(int) uint64 { return uint64(numWords) }
	return newLayout(g, ownWord, words, words)
}

// ownWord is the keys a symbol adds to a word table itself: 1 for a word.
func ownWord(s uint32) uint64 {
	if s&sequitur.RuleFlag == 0 {
		return 1
	}
	return 0
}

// TableLayout returns the layout of c's word tables: each table sized
// from the exact distinct words of its rule or document where c knows
// them (a corpus from Inlined), else from bounds (NewLayout). Exact sizes
// make the pools, and the passes over them, smaller. A corpus without
// rules keeps its bounds (each document's words): on the H100 its
// tables filled more slowly when sized exactly.
func (c *Corpus) TableLayout() *Layout {
	if c.sizes == nil {
		return NewLayout(c.Grammar, len(c.Dict))
	}
	return newLayout(c.Grammar, ownWord, func(r int) uint64 { return c.sizes.rules[r] }, func(f int) uint64 { return c.sizes.files[f] })
}

// newLayout computes a layout whose table bounds are, for a rule or a
// document, the sum over its symbols of own(symbol) (the keys the symbol
// adds itself) and of its child rules' bounds, at most ruleCap(r) or
// fileCap(f).
func newLayout(g *sequitur.Grammar, own func(uint32) uint64, ruleCap, fileCap func(int) uint64) *Layout {
	nr := g.NumRules()
	level := make([]uint32, nr)
	bound := make([]uint64, nr)
	work := make([]uint64, nr)
	l := &Layout{TableOff: make([]uint64, nr+1), FileOff: make([]uint64, g.NumFiles()+1)}
	slots := func(syms []uint32) (lv uint32, b, w uint64) {
		w = uint64(len(syms))
		for _, s := range syms {
			b += own(s)
			if s&sequitur.RuleFlag == 0 {
				continue
			}
			c := s &^ sequitur.RuleFlag
			lv = max(lv, level[c]+1)
			b += bound[c]
			w += l.TableOff[c+1] - l.TableOff[c]
		}
		return lv, b, w
	}
	for r := range nr {
		level[r], bound[r], work[r] = slots(g.Rule(r))
		bound[r] = min(bound[r], ruleCap(r))
		l.Levels = max(l.Levels, int(level[r])+1)
		l.TableOff[r+1] = l.TableOff[r] + tableSlots(bound[r])
	}
	for f := range g.NumFiles() {
		_, b, _ := slots(g.File(f))
		l.FileOff[f+1] = l.FileOff[f] + tableSlots(min(b, fileCap(f)))
	}
	// Counting sort by (level, size).
	l.LevelStart = make([]uint32, Sizes*l.Levels+1)
	bucket := func(r int) int {
		b := Sizes * int(level[r])
		switch {
		case work[r] > WarpWork:
			b += 2
		case work[r] > ThreadWork:
			b++
		}
		return b
	}
	for r := range nr {
		l.LevelStart[bucket(r)+1]++
	}
	for i := range Sizes * l.Levels {
		l.LevelStart[i+1] += l.LevelStart[i]
	}
	at := make([]uint32, Sizes*l.Levels)
	copy(at, l.LevelStart)
	l.Rules = make([]uint32, nr)
	for r := range nr {
		b := bucket(r)
		l.Rules[at[b]] = uint32(r)
		at[b]++
	}
	return l
}
