package pfor

import (
	"math/rand/v2"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// clusteredGaps returns n d-gaps of a list whose docids come in clusters, as
// under URL ordering: runs of small gaps (mostly 1..4) broken by a jump
// every twenty values or so. The seed fixes the sequence.
func clusteredGaps(n int, seed uint64) []uint32 {
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

// encodeList cuts v into blocks and encodes each, returning the
// concatenated bytes and the offset of each block (plus the end).
func encodeList(c codecplugins.Codec, v []uint32) (data []byte, off []int) {
	for len(v) > 0 {
		blk := v[:min(len(v), c.BlockSize())]
		off = append(off, len(data))
		data = c.AppendBlock(data, blk)
		v = v[len(blk):]
	}
	return data, append(off, len(data))
}
