package ef

import (
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// BenchmarkDecode decodes one 128-value block of geometric gaps (mean 12)
// per iteration.
func BenchmarkDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 128))
	v := make([]uint32, blockSize)
	for i := range v {
		v[i] = uint32(rng.ExpFloat64() * 12)
	}
	for _, c := range []codecplugins.Codec{EliasFano{}, PartitionedEliasFano{}} {
		b.Run(c.Name(), func(b *testing.B) {
			enc := c.AppendBlock(nil, v)
			dst := make([]uint32, blockSize)
			b.SetBytes(4 * blockSize)
			for b.Loop() {
				if err := c.DecodeBlock(dst, enc, blockSize); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*blockSize/b.Elapsed().Seconds()/1e6, "Mis")
		})
	}
}

// BenchmarkEncode encodes the same block; partitioned-elias-fano's cost is
// dominated by its O(n^2) partition search.
func BenchmarkEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 128))
	v := make([]uint32, blockSize)
	for i := range v {
		v[i] = uint32(rng.ExpFloat64() * 12)
	}
	for _, c := range []codecplugins.Codec{EliasFano{}, PartitionedEliasFano{}} {
		b.Run(c.Name(), func(b *testing.B) {
			buf := make([]byte, 0, 1024)
			b.SetBytes(4 * blockSize)
			for b.Loop() {
				buf = c.AppendBlock(buf[:0], v)
			}
			b.ReportMetric(float64(b.N)*blockSize/b.Elapsed().Seconds()/1e6, "Mis")
		})
	}
}
