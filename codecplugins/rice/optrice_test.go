package rice

import (
	"math"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func FuzzDecodeOptRice(f *testing.F) {
	f.Add(OptRice{}.AppendBlock(nil, []uint32{0, 1, 2, 3, 100, 5}), 6)
	f.Add(OptRice{}.AppendBlock(nil, []uint32{math.MaxUint32, 0, 7}), 3)
	f.Add([]byte{0x05, 0xFF, 0xFF}, 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(OptRice{}, data, n) })
}

func TestOptRiceGoldenSize(t *testing.T) {
	want := map[string]int{
		"geometric-mean-12":   79,
		"geometric-mean-3000": 208,
		"ones-and-outliers":   112,
		"uniform-32bit":       521,
	}
	codectest.GoldenSizes(t, OptRice{}, codectest.GoldenBlocks(blockSize), want)
}

// TestOptRiceIsOptimal checks optrice against every fixed k, rice's
// choice included.
func TestOptRiceIsOptimal(t *testing.T) {
	for _, tt := range codectest.GoldenBlocks(blockSize) {
		t.Run(tt.Name, func(t *testing.T) {
			got := len(OptRice{}.AppendBlock(nil, tt.V))
			for k := uint(0); k <= maxK; k++ {
				if n := len(encode(nil, tt.V, k)); n < got {
					t.Errorf("len(optrice(%s)) = %d, but k=%d gives %d", tt.Name, got, k, n)
				}
			}
		})
	}
}
