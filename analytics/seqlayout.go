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
// runs on up to workers goroutines: the entries are sorted by key (keys
// order as their sequences do) with a stable radix sort, which numbers the
// sequences and leaves each one's documents in order; transposing that
// sequence-by-document matrix gives the rows.
func (s *SeqLayout) Result(start []int, keys []uint64, vals []uint32, workers int) (vectors *Matrix, seqs []uint32) {
	workers = max(1, workers)
	// The payload of an entry is its document and count.
	pay := make([]uint64, len(keys))
	rows := (&Matrix{Start: start}).rowRanges(workers)
	parallel(len(rows)-1, func(w int) {
		for d := rows[w]; d < rows[w+1]; d++ {
			for i := start[d]; i < start[d+1]; i++ {
				pay[i] = uint64(d)<<32 | uint64(vals[i])
			}
		}
	})
	keys, pay = radixSort(slices.Clone(keys), pay, s.Bits*s.SeqLen, workers)
	bySeq := &Matrix{Start: []int{0}, Col: make([]uint32, len(keys)), Val: make([]uint32, len(keys))}
	l, mask := s.SeqLen, uint64(1)<<s.Bits-1
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			if i > 0 {
				bySeq.Start = append(bySeq.Start, i)
			}
			for j := range l {
				seqs = append(seqs, uint32(k>>(uint(l-1-j)*uint(s.Bits))&mask))
			}
		}
		bySeq.Col[i], bySeq.Val[i] = uint32(pay[i]>>32), uint32(pay[i])
	}
	if len(keys) > 0 {
		bySeq.Start = append(bySeq.Start, len(keys))
	}
	return bySeq.ParallelTranspose(len(start)-1, workers), seqs
}

// radixDigit is the width of a radix sort digit in bits.
const radixDigit = 11

// radixSort sorts keys, all below 2^keyBits, and pay with them, stably,
// and returns the sorted slices (either the inputs or buffers of the same
// length; the inputs are overwritten). Each pass, on up to
// workers goroutines, counts a digit's values per chunk of the entries,
// then places every chunk's entries, chunks in order.
func radixSort(keys, pay []uint64, keyBits, workers int) ([]uint64, []uint64) {
	n := len(keys)
	workers = max(1, min(workers, n/4096+1))
	k2, p2 := make([]uint64, n), make([]uint64, n)
	chunk := func(w int) (int, int) { return n * w / workers, n * (w + 1) / workers }
	at := make([][]int, workers)
	for shift := 0; shift < keyBits; shift += radixDigit {
		parallel(workers, func(w int) {
			at[w] = make([]int, 1<<radixDigit)
			lo, hi := chunk(w)
			for _, k := range keys[lo:hi] {
				at[w][k>>shift&(1<<radixDigit-1)]++
			}
		})
		pos := 0
		for d := range 1 << radixDigit {
			for w := range at {
				at[w][d], pos = pos, pos+at[w][d]
			}
		}
		parallel(workers, func(w int) {
			next := at[w]
			lo, hi := chunk(w)
			for i := lo; i < hi; i++ {
				d := keys[i] >> shift & (1<<radixDigit - 1)
				k2[next[d]], p2[next[d]] = keys[i], pay[i]
				next[d]++
			}
		})
		keys, k2, pay, p2 = k2, keys, p2, pay
	}
	return keys, pay
}
