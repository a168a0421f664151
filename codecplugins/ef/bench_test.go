package ef

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// BenchmarkDecode decodes one 128-value block of geometric gaps (mean 12)
// per iteration.
func BenchmarkDecode(b *testing.B) {
	v := codectest.GeometricGaps(blockSize, 12, 7)
	for _, c := range []codecplugins.Codec{EliasFano{}, PartitionedEliasFano{}} {
		b.Run(c.Name(), func(b *testing.B) { codectest.BenchDecode(b, c, v) })
	}
}

// BenchmarkEncode encodes the same block; partitioned-elias-fano's cost is
// dominated by its O(n^2) partition search.
func BenchmarkEncode(b *testing.B) {
	v := codectest.GeometricGaps(blockSize, 12, 7)
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
