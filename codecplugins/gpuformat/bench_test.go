package gpuformat

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// BenchmarkDecode decodes one full block of geometric gaps (mean 16, about
// the Uniform dense set's) per iteration, for each GPU format's CPU
// reference decoder.
func BenchmarkDecode(b *testing.B) {
	for _, name := range names {
		c := lookup(b, name)
		v := codectest.GeometricGaps(c.BlockSize(), 15, 7)
		for i := range v {
			v[i]++ // docid gaps are at least 1
		}
		b.Run(name, func(b *testing.B) { codectest.BenchDecode(b, c, v) })
	}
}
