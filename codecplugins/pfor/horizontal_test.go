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
	pairs := []struct{ hor, ver codecplugins.Codec }{{lookup(t, "newpfor-hor"), NewPFor{}}, {lookup(t, "optpfor-hor"), OptPFor{}}}
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

// lookup returns the registered codec called name.
func lookup(t testing.TB, name string) codecplugins.Codec {
	c, err := codecplugins.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewPForHorGoldenSize(t *testing.T) {
	codectest.ClusteredSize(t, lookup(t, "newpfor-hor"), 1000, 511)
}

func FuzzDecodeNewPForHor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(lookup(t, "newpfor-hor"), data, n)
		codectest.FuzzLevels(lookup(t, "newpfor-hor"), data, n)
	})
}

func FuzzDecodeOptPForHor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(lookup(t, "optpfor-hor"), data, n)
		codectest.FuzzLevels(lookup(t, "optpfor-hor"), data, n)
	})
}
