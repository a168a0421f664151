package analytics

import (
	"errors"
	"runtime"
	"sync"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// ErrSeqKey is returned by NewSeqLayout when l word ids do not fit in one
// 64-bit key.
var ErrSeqKey = errors.New("analytics: sequences of this length do not pack into 64-bit keys")

// SeqLayout prepares seqcount for a data-parallel engine such as the
// GPU's: the rules by level with hash tables sized for sequences, each
// rule's head and tail buffers, and the packing of a sequence into one
// 64-bit key.
//
// A table's bound is the windows its expansion has (length - SeqLen + 1)
// and at most the sum over its symbols of the stream words each adds (a
// word one, a child rule min(length, 2(SeqLen-1)), as in the package
// doc's streams) and of its child rules' bounds: a rule owns at most one
// window per stream word.
type SeqLayout struct {
	*Layout
	SeqLen int
	// Bits is the width of a word id in a key: w1..wl packs into
	// w1<<((l-1)Bits) | ... | wl (pack), so that keys order as their
	// sequences do. No key is all ones (a word id is below 2^Bits - 1).
	Bits int
	// Rule r's head is Head[r*(SeqLen-1):][:HeadLen[r]], its tail
	// Tail[r*(SeqLen-1):][:TailLen[r]]: the first and the last
	// min(SeqLen-1, length) words of its expansion.
	Head, Tail       []uint32
	HeadLen, TailLen []uint32
}

// NewSeqLayout computes the layout for l-word sequences of g, whose rules
// expand to lens words, over a dictionary of numWords words. It fails with
// ErrSeqKey when l word ids need more than 64 bits.
func NewSeqLayout(g *sequitur.Grammar, numWords int, lens []uint64, l int) (*SeqLayout, error) {
	b := wordBits(numWords)
	if l < 1 || b*l > 64 {
		return nil, ErrSeqKey
	}
	w := uint64(l - 1)
	windows := func(n uint64) uint64 {
		if n < uint64(l) {
			return 0
		}
		return n - uint64(l) + 1
	}
	stream := func(s uint32) uint64 {
		if s&sequitur.RuleFlag == 0 {
			return 1
		}
		return min(lens[s&^sequitur.RuleFlag], 2*w)
	}
	docLens := docLengths(g, lens)
	s := &SeqLayout{
		Layout: newLayout(g, stream,
			func(r int) uint64 { return windows(lens[r]) },
			func(f int) uint64 { return windows(uint64(docLens[f])) }),
		SeqLen: l,
		Bits:   b,
	}
	ht := newHeadTail(g, l)
	s.Head, s.Tail = ht.head, ht.tail
	s.HeadLen, s.TailLen = make([]uint32, len(ht.hlen)), make([]uint32, len(ht.tlen))
	for r := range ht.hlen {
		s.HeadLen[r], s.TailLen[r] = uint32(ht.hlen[r]), uint32(ht.tlen[r])
	}
	return s, nil
}

// Pack returns the key of a sequence of SeqLen words, as the CPU
// engine's sequence interner packs it.
func (s *SeqLayout) Pack(words []uint32) uint64 { return pack(words, s.Bits) }

// unpackShare is the fewest keys Unpack gives a goroutine of their own.
const unpackShare = 1 << 16

// Unpack returns the words of the sequences keys packs, SeqLen a key. A
// GPU's seqcount hands it millions of keys, so it shares them among the
// cores.
func (s *SeqLayout) Unpack(keys []uint64) []uint32 {
	l, mask := s.SeqLen, uint64(1)<<s.Bits-1
	seqs := make([]uint32, l*len(keys))
	unpack := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := keys[i]
			for j := l - 1; j >= 0; j-- {
				seqs[i*l+j] = uint32(k & mask)
				k >>= s.Bits
			}
		}
	}
	parts := min(runtime.GOMAXPROCS(0), max(1, len(keys)/unpackShare))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { unpack(len(keys)*p/parts, len(keys)*(p+1)/parts) })
	}
	wg.Wait()
	return seqs
}
