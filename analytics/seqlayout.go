package analytics

import (
	"errors"
	"math/bits"
	"slices"

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
	// w1<<((l-1)Bits) | ... | wl, so that keys order as their sequences
	// do. No key is all ones (a word id is below 2^Bits - 1).
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
	b := max(1, bits.Len(uint(numWords)))
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

// Pack returns the key of a sequence of SeqLen words.
func (s *SeqLayout) Pack(words []uint32) uint64 {
	var k uint64
	for _, w := range words {
		k = k<<s.Bits | uint64(w)
	}
	return k
}

// Result turns per-document rows of (key, count) entries, row d being
// keys[start[d]:start[d+1]] in any order and each key at most once a
// row, into seqcount's result: sequence ids numbered in the sequences'
// order, rows sorted by id, and the sequences (SeqLen words per id). It
// runs on up to workers goroutines.
func (s *SeqLayout) Result(start []int, keys []uint64, vals []uint32, workers int) (vectors *Matrix, seqs []uint32) {
	workers = max(1, workers)
	distinct := sortedDistinct(keys, workers)
	col := make([]uint32, len(keys))
	chunk := (len(keys) + workers - 1) / workers
	parallel(workers, func(w int) {
		for i := w * chunk; i < min(len(keys), (w+1)*chunk); i++ {
			id, _ := slices.BinarySearch(distinct, keys[i])
			col[i] = uint32(id)
		}
	})
	m := &Matrix{Start: start, Col: col, Val: vals}
	// Two counting-sort transposes sort every row by id.
	vectors = m.ParallelTranspose(len(distinct), workers).ParallelTranspose(m.Rows(), workers)
	l, mask := s.SeqLen, uint64(1)<<s.Bits-1
	seqs = make([]uint32, l*len(distinct))
	for i, k := range distinct {
		for j := l - 1; j >= 0; j-- {
			seqs[i*l+j] = uint32(k & mask)
			k >>= s.Bits
		}
	}
	return vectors, seqs
}

// sortedDistinct returns keys' distinct values in increasing order: each
// of up to workers chunks sorted and deduplicated on its own goroutine,
// then merged in pairs, the pairs of a round in parallel.
func sortedDistinct(keys []uint64, workers int) []uint64 {
	workers = max(1, min(workers, len(keys)))
	parts := make([][]uint64, workers)
	parallel(workers, func(w int) {
		p := slices.Clone(keys[len(keys)*w/workers : len(keys)*(w+1)/workers])
		slices.Sort(p)
		parts[w] = slices.Compact(p)
	})
	for len(parts) > 1 {
		next := make([][]uint64, (len(parts)+1)/2)
		parallel(len(next), func(i int) {
			if 2*i+1 == len(parts) {
				next[i] = parts[2*i]
				return
			}
			next[i] = mergeDistinct(parts[2*i], parts[2*i+1])
		})
		parts = next
	}
	return parts[0]
}

// mergeDistinct merges two increasing lists without repeats into one.
func mergeDistinct(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}
