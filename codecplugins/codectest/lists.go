package codectest

import (
	"math/rand/v2"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// ClusteredGaps returns n d-gaps of a list whose docids come in clusters,
// as under URL ordering: runs of small gaps (mostly 0..4) broken by a jump
// every twenty values or so. The seed fixes the sequence. Golden sizes and
// every family's BenchmarkDecode use it, so their numbers compare.
func ClusteredGaps(n int, seed uint64) []uint32 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	v := make([]uint32, n)
	for i := range v {
		if rng.IntN(20) == 0 {
			v[i] = uint32(rng.ExpFloat64() * 1000)
		} else {
			v[i] = uint32(rng.ExpFloat64() * 2)
		}
	}
	return v
}

// GeometricGaps returns n values drawn from an exponential distribution of
// the given mean, rounded down. The seed and n fix the sequence.
func GeometricGaps(n int, mean float64, seed uint64) []uint32 {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	v := make([]uint32, n)
	for i := range v {
		v[i] = uint32(rng.ExpFloat64() * mean)
	}
	return v
}

// Fill returns the n values f(0), ..., f(n-1), computed in that order.
func Fill(n int, f func(i int) uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// EncodeList cuts v into blocks of c.BlockSize() values and encodes each,
// returning the concatenated bytes and the offset of each block, plus the
// end: block i is data[off[i]:off[i+1]].
func EncodeList(c codecplugins.Codec, v []uint32) (data []byte, off []int) {
	for len(v) > 0 {
		blk := v[:min(len(v), c.BlockSize())]
		off = append(off, len(data))
		data = c.AppendBlock(data, blk)
		v = v[len(blk):]
	}
	return data, append(off, len(data))
}
