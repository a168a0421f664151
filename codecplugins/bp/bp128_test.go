package bp

import (
	"errors"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestBP128Format(t *testing.T) {
	full := make([]uint32, 128)
	full[5] = 1 // lane 1, second value: bit 1 of lane 1's only word
	fullEnc := append([]byte{1}, make([]byte, 16)...)
	fullEnc[1+4] = 0x02
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"zeros", []uint32{0, 0, 0}, []byte{0}},
		{"short", []uint32{1, 2, 3}, []byte{2, 0x39}},
		{"wide", []uint32{0xFFFFFFFF}, []byte{32, 0xFF, 0xFF, 0xFF, 0xFF}},
		{"full", full, fullEnc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (BP128{}).AppendBlock(nil, tt.v); !slices.Equal(got, tt.want) {
				t.Errorf("AppendBlock(%v) = %x, want %x", tt.v, got, tt.want)
			}
		})
	}
}

func TestBP128Corrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"width 33 full", append([]byte{33}, make([]byte, 16*33)...), 128},
		{"width 33 short", append([]byte{33}, make([]byte, 64)...), 3},
		{"no width", nil, 128},
		{"truncated full", append([]byte{3}, make([]byte, 47)...), 128},
		{"truncated short", []byte{9, 0xFF}, 2},
		{"negative n", []byte{0}, -1},
		{"n above block", []byte{0}, 129},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (BP128{}).DecodeBlock(make([]uint32, 129), tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("DecodeBlock(%x, %d) = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

// TestBP128GoldenSize pins the encoded size of a fixed list so that a format
// change cannot slip through unnoticed.
func TestBP128GoldenSize(t *testing.T) { codectest.ClusteredSize(t, BP128{}, 1000, 1367) }

func FuzzDecodeBP128(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(BP128{}, data, n)
		codectest.FuzzLevels(BP128{}, data, n)
	})
}
