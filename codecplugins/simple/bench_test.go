package simple

import (
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/varint"
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

// BenchmarkDecode decodes the blocks of a 64K-value list of clustered small
// gaps in turn, each block given exactly its own bytes; one op is one
// 128-value block. varint-SU runs on the same list as the baseline.
func BenchmarkDecode(b *testing.B) {
	gaps := clusteredGaps(1<<16, 1)
	for _, c := range []codecplugins.Codec{Simple9{}, Simple16{}, varint.SU{}} {
		data, off := encodeList(c, gaps)
		blocks := len(off) - 1
		b.Run(c.Name(), func(b *testing.B) {
			dst := make([]uint32, c.BlockSize())
			b.SetBytes(4 * 128)
			i := 0
			for b.Loop() {
				if err := c.DecodeBlock(dst, data[off[i]:off[i+1]], 128); err != nil {
					b.Fatal(err)
				}
				if i++; i == blocks {
					i = 0
				}
			}
			b.ReportMetric(float64(b.N)*128/b.Elapsed().Seconds()/1e6, "Mis")
			b.ReportMetric(float64(len(data))*8/float64(len(gaps)), "bits/int")
		})
	}
}
