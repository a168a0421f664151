package varint

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestG8CUFormat(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"one", []uint32{5}, []byte{0xFE, 5}},
		{"spanning", []uint32{1, 0x100, 0x10000, 0x1000000}, []byte{0xDA, 1, 0, 1, 0, 0, 1, 0, 0, 0xFD, 0, 1}},
		{"eight", []uint32{0, 1, 2, 3, 4, 5, 6, 7, 0xFFFF}, []byte{0x00, 0, 1, 2, 3, 4, 5, 6, 7, 0xFD, 0xFF, 0xFF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codectest.Format(t, G8CU{}, tt.v, tt.want)
		})
	}
}

func TestG8CUCorrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"unit ends no value", []byte{0xFF, 1, 2, 3, 4, 5, 6, 7, 8}, 1},
		{"more values than the block", []byte{0x00, 1, 2, 3, 4, 5, 6, 7, 8}, 3},
		{"value spans 8 bytes", []byte{0xFE, 1, 2, 3, 4, 5, 6, 7, 8, 0xFE, 9}, 2},
		{"truncated last unit", []byte{0xFB, 1, 2}, 1},
		{"carry never ends", []byte{0xFE, 1, 2, 3}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			if err := (G8CU{}).DecodeBlock(dst, tt.src, tt.n); !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%x, n=%d) error = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

func TestG8CUGoldenSize(t *testing.T) { codectest.ClusteredSize(t, G8CU{}, 1280, 1498) }

func FuzzDecodeG8CU(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(G8CU{}, data, n)
		codectest.FuzzLevels(G8CU{}, data, n)
	})
}
