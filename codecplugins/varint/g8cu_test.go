package varint

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestG8CU(t *testing.T) { codectest.Run(t, G8CU{}) }

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
			if got := (G8CU{}).AppendBlock(nil, tt.v); string(got) != string(tt.want) {
				t.Errorf("Encode(%v) = %x, want %x", tt.v, got, tt.want)
			}
		})
	}
}

func TestG8CUGoldenSize(t *testing.T) { goldenSize(t, G8CU{}, 1498) }

func FuzzDecodeG8CU(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(G8CU{}, data, n) })
}
