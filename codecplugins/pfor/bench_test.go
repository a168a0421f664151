package pfor

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/codecplugins/varint"
)

// BenchmarkDecode decodes the blocks of a 64K-value list of clustered small
// gaps in turn, each block given exactly its own bytes; one op is one
// 128-value block. varint-SU runs on the same list as the baseline for the
// speed ratio.
func BenchmarkDecode(b *testing.B) {
	gaps := codectest.ClusteredGaps(1<<16, 1)
	for _, c := range []codecplugins.Codec{NewPFor{}, OptPFor{}, varint.SU{}} {
		b.Run(c.Name(), func(b *testing.B) { codectest.BenchDecode(b, c, gaps) })
	}
}
