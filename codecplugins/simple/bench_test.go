package simple

import (
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// clusteredGaps returns n d-gaps of a clustered posting list, the shape URL
// order gives: runs of nearby documents (gaps of a few) broken by jumps of
// thousands. The same seed gives the same gaps.
func clusteredGaps(seed uint64, n int) []uint32 {
	rng := rand.New(rand.NewPCG(seed, 0x5EED))
	v := make([]uint32, n)
	inCluster := true
	for i := range v {
		if inCluster {
			v[i] = 1 + uint32(rng.ExpFloat64()*2)
			inCluster = rng.IntN(32) != 0
		} else {
			v[i] = 1 + uint32(rng.ExpFloat64()*3000)
			inCluster = rng.IntN(3) == 0
		}
	}
	return v
}

// goldenSize checks the bytes c takes for 10 blocks of clustered gaps
// against want, pinning the format: any change to it shows here.
func goldenSize(t *testing.T, c codecplugins.Codec, want int) {
	t.Helper()
	bs := c.BlockSize()
	v := clusteredGaps(42, 10*bs)
	total := 0
	for b := 0; b < 10; b++ {
		total += len(c.AppendBlock(nil, v[b*bs:(b+1)*bs]))
	}
	if total != want {
		t.Errorf("%s: encoded size of 10 clustered blocks = %d bytes, want %d", c.Name(), total, want)
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range []codecplugins.Codec{Simple9{}, Simple16{}} {
		b.Run(c.Name(), func(b *testing.B) {
			bs := c.BlockSize()
			v := clusteredGaps(7, bs)
			enc := c.AppendBlock(nil, v)
			dst := make([]uint32, bs)
			b.SetBytes(4 * int64(bs))
			for b.Loop() {
				if err := c.DecodeBlock(dst, enc, bs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(bs)/b.Elapsed().Seconds()/1e6, "Mis")
		})
	}
}
