package simple

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestSimple9Format(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"partly used last word", []uint32{1, 0, 1}, []byte{0x05, 0, 0, 0x00}},
		{"fourteen 2-bit", []uint32{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, []byte{0xFF, 0xFF, 0xFF, 0x1F}},
		{"28 bits", []uint32{1<<28 - 1}, []byte{0xFF, 0xFF, 0xFF, 0x8F}},
		{"escape", []uint32{1 << 28, 2}, []byte{0, 0, 0, 0x90, 0, 0, 0, 0x10, 0x02, 0, 0, 0x10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codectest.Format(t, Simple9{}, tt.v, tt.want)
		})
	}
}

func TestSimple9Corrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"selector 10", []byte{0, 0, 0, 0xA0}, 1},
		{"selector 9 with data", []byte{1, 0, 0, 0x90, 0, 0, 0, 0}, 1},
		{"escape without value", []byte{0, 0, 0, 0x90, 0, 0}, 1},
		{"too few words", []byte{0xFF, 0xFF, 0xFF, 0x1F}, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			if err := (Simple9{}).DecodeBlock(dst, tt.src, tt.n); !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%x, n=%d) error = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

func TestSimple9GoldenSize(t *testing.T) { codectest.ClusteredSize(t, Simple9{}, 1280, 828) }

func FuzzDecodeSimple9(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(Simple9{}, data, n) })
}
