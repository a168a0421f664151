package gpuformat

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDecode decodes one full block of geometric gaps (mean 16, about
// the Uniform dense set's) per iteration, for each GPU format's CPU
// reference decoder.
func BenchmarkDecode(b *testing.B) {
	for _, name := range names {
		c := lookup(b, name)
		bs := c.BlockSize()
		rng := rand.New(rand.NewPCG(7, uint64(bs)))
		v := make([]uint32, bs)
		for i := range v {
			v[i] = 1 + uint32(rng.ExpFloat64()*15)
		}
		enc := c.AppendBlock(nil, v)
		dst := make([]uint32, bs)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(4 * bs))
			for b.Loop() {
				if err := c.DecodeBlock(dst, enc, bs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(bs)/b.Elapsed().Seconds()/1e6, "Mis")
		})
	}
}
