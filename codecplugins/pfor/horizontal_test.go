package pfor

import (
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// TestHorizontalLikeVertical: a -hor codec picks the same widths and
// exceptions as its vertical twin, so every block takes the same bytes
// (full blocks with their slots laid out differently, partial ones
// identical), and decodes to the same values.
func TestHorizontalLikeVertical(t *testing.T) {
	pairs := []struct{ hor, ver codecplugins.Codec }{{NewPForHor{}, NewPFor{}}, {OptPForHor{}, OptPFor{}}}
	v := codectest.ClusteredGaps(5000, 7)
	for _, p := range pairs {
		for start := 0; start < len(v); start += blockLen {
			block := v[start:min(start+blockLen, len(v))]
			h, ve := p.hor.AppendBlock(nil, block), p.ver.AppendBlock(nil, block)
			if len(h) != len(ve) || len(block) < blockLen && !slices.Equal(h, ve) {
				t.Fatalf("%s and %s: blocks of %d and %d bytes", p.hor.Name(), p.ver.Name(), len(h), len(ve))
			}
			got := make([]uint32, len(block))
			if err := p.hor.DecodeBlock(got, h, len(block)); err != nil || !slices.Equal(got, block) {
				t.Fatalf("%s: decodes %v, %v; want %v", p.hor.Name(), got, err, block)
			}
		}
	}
}

func TestNewPForHorGoldenSize(t *testing.T) { codectest.ClusteredSize(t, NewPForHor{}, 1000, 511) }

func FuzzDecodeNewPForHor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(NewPForHor{}, data, n)
		codectest.FuzzLevels(NewPForHor{}, data, n)
	})
}

func FuzzDecodeOptPForHor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(OptPForHor{}, data, n)
		codectest.FuzzLevels(OptPForHor{}, data, n)
	})
}
