package bp

import (
	"errors"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestBP32Format(t *testing.T) {
	two := make([]uint32, 33)
	two[32] = 5 // second sub-block: one value of width 3
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"zeros", []uint32{0, 0, 0}, []byte{0}},
		{"short", []uint32{1, 2, 3}, []byte{2, 0x39}},
		{"two sub-blocks", two, []byte{0, 3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (BP32{}).AppendBlock(nil, tt.v); !slices.Equal(got, tt.want) {
				t.Errorf("AppendBlock(%v) = %x, want %x", tt.v, got, tt.want)
			}
		})
	}
}

func TestBP32Corrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"width 33", append([]byte{0, 33}, make([]byte, 200)...), 40},
		{"missing widths", []byte{1, 1, 1}, 128},
		{"truncated full", append([]byte{1, 1, 1, 1}, make([]byte, 15)...), 128},
		{"truncated short", []byte{9, 0xFF}, 2},
		{"negative n", []byte{0}, -1},
		{"n above block", []byte{0, 0, 0, 0, 0}, 129},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (BP32{}).DecodeBlock(make([]uint32, 129), tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("DecodeBlock(%x, %d) = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

// TestBP32GoldenSize pins the encoded size of a fixed list so that a format
// change cannot slip through unnoticed.
func TestBP32GoldenSize(t *testing.T) { codectest.ClusteredSize(t, BP32{}, 1000, 1082) }

func FuzzDecodeBP32(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(BP32{}, data, n) })
}
