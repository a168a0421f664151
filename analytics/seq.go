package analytics

import (
	"context"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// MaxSeqLen is the longest sequence seqcount counts.
const MaxSeqLen = 64

// headTail holds, per rule, the first and the last min(l-1, length) words
// of its expansion: all a parent needs to see the sequences that cross
// the rule's edges.
type headTail struct {
	w          int // l-1: the buffers' capacity
	head, tail []uint32
	hlen, tlen []uint8
}

// newHeadTail fills the buffers bottom-up: a rule's head is the heads of
// its first symbols until w words are gathered, its tail likewise from the
// end.
func newHeadTail(g *sequitur.Grammar, l int) *headTail {
	w := l - 1
	r := g.NumRules()
	ht := &headTail{w: w, head: make([]uint32, r*w), tail: make([]uint32, r*w), hlen: make([]uint8, r), tlen: make([]uint8, r)}
	if w == 0 {
		return ht
	}
	rev := make([]uint32, 0, w)
	for rule := range r {
		body := g.Rule(rule)
		h := ht.head[rule*w : rule*w : rule*w+w]
		for _, s := range body {
			if len(h) == w {
				break
			}
			if s&sequitur.RuleFlag == 0 {
				h = append(h, s)
				continue
			}
			ch := ht.headOf(s &^ sequitur.RuleFlag)
			h = append(h, ch[:min(len(ch), w-len(h))]...)
		}
		ht.hlen[rule] = uint8(len(h))
		rev = rev[:0]
		for i := len(body) - 1; i >= 0 && len(rev) < w; i-- {
			s := body[i]
			if s&sequitur.RuleFlag == 0 {
				rev = append(rev, s)
				continue
			}
			ct := ht.tailOf(s &^ sequitur.RuleFlag)
			for j := len(ct) - 1; j >= 0 && len(rev) < w; j-- {
				rev = append(rev, ct[j])
			}
		}
		t := ht.tail[rule*w : rule*w+len(rev)]
		for i, x := range rev {
			t[len(rev)-1-i] = x
		}
		ht.tlen[rule] = uint8(len(rev))
	}
	return ht
}

func (ht *headTail) headOf(r uint32) []uint32 {
	return ht.head[int(r)*ht.w : int(r)*ht.w+int(ht.hlen[r])]
}

func (ht *headTail) tailOf(r uint32) []uint32 {
	return ht.tail[int(r)*ht.w : int(r)*ht.w+int(ht.tlen[r])]
}

// seqInterner numbers distinct l-word sequences. When l word ids fit in
// 64 bits the key is the ids packed into a uint64, else their bytes.
type seqInterner struct {
	l      int
	bits   int // bits per word id in a packed key; 0: keys are strings
	packed map[uint64]uint32
	ids    map[string]uint32
	seqs   []uint32 // l words per id
	key    []byte
}

func newSeqInterner(l, numWords int) *seqInterner {
	si := &seqInterner{l: l}
	if b := wordBits(numWords); b*l <= 64 {
		si.bits, si.packed = b, map[uint64]uint32{}
	} else {
		si.ids, si.key = map[string]uint32{}, make([]byte, 4*l)
	}
	return si
}

// wordBits is the width of a word id of a dictionary of numWords words in
// a packed sequence key. No id is all ones at that width.
func wordBits(numWords int) int { return max(1, bits.Len(uint(numWords))) }

// pack returns the key of a sequence: its word ids, width bits each, the
// first highest, so that keys order as their sequences do.
func pack(words []uint32, width int) uint64 {
	var k uint64
	for _, w := range words {
		k = k<<width | uint64(w)
	}
	return k
}

func (si *seqInterner) id(words []uint32) uint32 {
	if si.packed != nil {
		k := pack(words, si.bits)
		if id, ok := si.packed[k]; ok {
			return id
		}
		id := uint32(len(si.packed))
		si.packed[k] = id
		si.seqs = append(si.seqs, words...)
		return id
	}
	for i, w := range words {
		binary.LittleEndian.PutUint32(si.key[4*i:], w)
	}
	if id, ok := si.ids[string(si.key)]; ok {
		return id
	}
	id := uint32(len(si.ids))
	si.ids[string(si.key)] = id
	si.seqs = append(si.seqs, words...)
	return id
}

func (si *seqInterner) len() int { return len(si.seqs) / si.l }

// canonical renumbers the sequences in lexicographic order of their words
// (which is the order of their text, the dictionary being sorted) and
// returns the map from old to new ids and the sequences in the new order.
func (si *seqInterner) canonical() ([]uint32, []uint32) {
	l := si.l
	order := make([]uint32, si.len())
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		return slices.Compare(si.seqs[int(a)*l:int(a)*l+l], si.seqs[int(b)*l:int(b)*l+l])
	})
	remap := make([]uint32, len(order))
	seqs := make([]uint32, 0, len(si.seqs))
	for rank, id := range order {
		remap[id] = uint32(rank)
		seqs = append(seqs, si.seqs[int(id)*l:int(id)*l+l]...)
	}
	return remap, seqs
}

// ownSeqs finds the sequences a run of symbols owns: the l-word windows of
// its expansion that do not lie inside the expansion of one child rule.
// They all fall in a compact stream of the run: its words, and for each
// child rule its whole expansion when it is at most 2(l-1) words long, or
// else its head and its tail. Windows inside one child's part of the
// stream are skipped; those are also all the windows that join a head to
// its tail across the words left out, since head and tail are l-1 words
// each.
type ownSeqs struct {
	l      int
	lens   []uint64
	ht     *headTail
	si     *seqInterner
	words  []uint32
	origin []int32 // index in the run of the symbol each stream word came from
}

// each calls fn with the sequence id of every owned window of syms.
func (o *ownSeqs) each(syms []uint32, fn func(id uint32)) {
	o.words, o.origin = o.words[:0], o.origin[:0]
	w := o.ht.w
	emit := func(ws []uint32, i int) {
		for _, x := range ws {
			o.words = append(o.words, x)
			o.origin = append(o.origin, int32(i))
		}
	}
	for i, s := range syms {
		if s&sequitur.RuleFlag == 0 {
			o.words = append(o.words, s)
			o.origin = append(o.origin, int32(i))
			continue
		}
		c := s &^ sequitur.RuleFlag
		h, t := o.ht.headOf(c), o.ht.tailOf(c)
		emit(h, i)
		if n := o.lens[c]; n <= uint64(2*w) {
			t = t[len(t)-int(n-uint64(len(h))):]
		}
		emit(t, i)
	}
	for p := 0; p+o.l <= len(o.words); p++ {
		q := p + o.l - 1
		if o.origin[p] == o.origin[q] && syms[o.origin[p]]&sequitur.RuleFlag != 0 {
			continue
		}
		fn(o.si.id(o.words[p : q+1]))
	}
}

// seqItems returns the sequences each rule and each file owns, keyed by
// canonical sequence ids, and the sequences (l words per id).
func seqItems(ctx context.Context, g *sequitur.Grammar, numWords int, lens []uint64, l int) (*items, []uint32, error) {
	o := &ownSeqs{l: l, lens: lens, ht: newHeadTail(g, l), si: newSeqInterner(l, numWords)}
	var stamp []uint32
	build := func(n int, rowSyms func(int) []uint32) (*sparse, error) {
		s := &sparse{start: make([]uint32, 1, n+1)}
		for i := range n {
			if i%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			base := len(s.key)
			o.each(rowSyms(i), func(id uint32) {
				for int(id) >= len(stamp) {
					stamp = append(stamp, 0)
				}
				if at := stamp[id]; at != 0 {
					s.mult[at-1]++
					return
				}
				s.key = append(s.key, id)
				s.mult = append(s.mult, 1)
				stamp[id] = uint32(len(s.key))
			})
			for _, k := range s.key[base:] {
				stamp[k] = 0
			}
			s.start = append(s.start, uint32(len(s.key)))
		}
		return s, nil
	}
	rules, err := build(g.NumRules(), g.Rule)
	if err != nil {
		return nil, nil, err
	}
	files, err := build(g.NumFiles(), g.File)
	if err != nil {
		return nil, nil, err
	}
	remap, seqs := o.si.canonical()
	for _, s := range []*sparse{rules, files} {
		for i, k := range s.key {
			s.key[i] = remap[k]
		}
	}
	return &items{numKeys: len(remap), rules: rules, files: files}, seqs, nil
}
