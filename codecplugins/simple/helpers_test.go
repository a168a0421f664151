package simple

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// clusteredGaps returns n d-gaps of a list whose docids come in clusters, as
// under URL ordering: runs of small gaps (mostly 0..4) broken by a jump
// every twenty values or so. The seed fixes the sequence. It is the model
// the other codec packages' benchmarks use, so their numbers compare.
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

// goldenSize checks the bytes c takes for 10 blocks of clustered gaps
// against want, pinning the format: any change to it shows here.
func goldenSize(t *testing.T, c codecplugins.Codec, want int) {
	t.Helper()
	data, _ := encodeList(c, clusteredGaps(10*c.BlockSize(), 42))
	if len(data) != want {
		t.Errorf("%s: encoded size of 10 clustered blocks = %d bytes, want %d", c.Name(), len(data), want)
	}
}

// checkFormat checks that c encodes v as want and decodes want back to v.
func checkFormat(t *testing.T, c codecplugins.Codec, v []uint32, want []byte) {
	t.Helper()
	if got := c.AppendBlock(nil, v); string(got) != string(want) {
		t.Errorf("Encode(%v) = %x, want %x", v, got, want)
	}
	got := make([]uint32, len(v))
	if err := c.DecodeBlock(got, want, len(v)); err != nil || !slices.Equal(got, v) {
		t.Errorf("Decode(%x) = %v, %v, want %v", want, got, err, v)
	}
}
