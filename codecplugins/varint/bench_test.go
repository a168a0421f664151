package varint

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// BenchmarkDecode decodes the blocks of a 64K-value list of clustered small
// gaps in turn, each block given exactly its own bytes; one op is one
// 128-value block.
func BenchmarkDecode(b *testing.B) {
	gaps := clusteredGaps(1<<16, 1)
	for _, c := range []codecplugins.Codec{SU{}, G4B{}, G8B{}, G8IU{}, G8CU{}, StreamVByte{}} {
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
