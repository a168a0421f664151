package simple

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestSimple16Format(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		// 7 2-bit fields then 14 1-bit ones: selector 1.
		{"mixed widths", []uint32{3, 0, 0, 0, 0, 0, 0, 1}, []byte{0x03, 0x40, 0x00, 0x10}},
		{"largest packed", []uint32{1<<28 - 2}, []byte{0xFE, 0xFF, 0xFF, 0xFF}},
		{"escape", []uint32{1<<28 - 1}, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codectest.Format(t, Simple16{}, tt.v, tt.want)
		})
	}
}

func TestSimple16Corrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"escape without value", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0}, 1},
		{"half a word", []byte{0xFF, 0xFF}, 1},
		{"too few words", []byte{0, 0, 0, 0}, 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			if err := (Simple16{}).DecodeBlock(dst, tt.src, tt.n); !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%x, n=%d) error = %v, want ErrCorrupt", tt.src, tt.n, err)
			}
		})
	}
}

func TestSimple16GoldenSize(t *testing.T) { codectest.ClusteredSize(t, Simple16{}, 1280, 796) }

func FuzzDecodeSimple16(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(Simple16{}, data, n) })
}
