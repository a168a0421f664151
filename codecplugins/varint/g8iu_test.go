package varint

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestG8IUFormat(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"one", []uint32{5}, []byte{0xFE, 5}},
		{"padding", []uint32{1, 0x100, 0x10000, 0x1000000}, []byte{0xDA, 1, 0, 1, 0, 0, 1, 0, 0, 0xF7, 0, 0, 0, 1}},
		{"eight", []uint32{0, 1, 2, 3, 4, 5, 6, 7, 0xFFFF}, []byte{0x00, 0, 1, 2, 3, 4, 5, 6, 7, 0xFD, 0xFF, 0xFF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codectest.Format(t, G8IU{}, tt.v, tt.want)
		})
	}
}

func TestG8IUCorrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"group ends no value", []byte{0xFF, 1, 2, 3, 4, 5, 6, 7, 8}, 1},
		{"more values than the block", []byte{0x00, 1, 2, 3, 4, 5, 6, 7, 8}, 3},
		{"value of 6 bytes", []byte{0xDF, 1, 2, 3, 4, 5, 6, 0, 0}, 1},
		{"truncated last group", []byte{0xFB, 1, 2}, 1},
		{"missing group", []byte{0x00, 1, 2, 3, 4, 5, 6, 7, 8}, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			if err := (G8IU{}).DecodeBlock(dst, tt.src, tt.n); !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%x, n=%d) error = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

func TestG8IUGoldenSize(t *testing.T) { codectest.ClusteredSize(t, G8IU{}, 1280, 1504) }

func FuzzDecodeG8IU(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(G8IU{}, data, n)
		codectest.FuzzLevels(G8IU{}, data, n)
	})
}
