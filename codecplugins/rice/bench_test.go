package rice

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// BenchmarkDecode decodes one 128-value block of geometric gaps (mean 12)
// per iteration.
func BenchmarkDecode(b *testing.B) {
	v := codectest.GeometricGaps(blockSize, 12, 7)
	for _, c := range []codecplugins.Codec{Rice{}, OptRice{}, splitCodec(b, "rice-hor"), splitCodec(b, "rice-ver")} {
		b.Run(c.Name(), func(b *testing.B) { codectest.BenchDecode(b, c, v) })
	}
}
