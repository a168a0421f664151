package varint

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// BenchmarkDecode decodes the blocks of a 64K-value list of clustered small
// gaps in turn, each block given exactly its own bytes; one op is one
// 128-value block.
func BenchmarkDecode(b *testing.B) {
	gaps := codectest.ClusteredGaps(1<<16, 1)
	for _, c := range []codecplugins.Codec{SU{}, G4B{}, G8B{}, G8IU{}, G8CU{}, StreamVByte{}} {
		b.Run(c.Name(), func(b *testing.B) { codectest.BenchDecode(b, c, gaps) })
	}
}
