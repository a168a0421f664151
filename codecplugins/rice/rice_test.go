package rice

import (
	"errors"
	"math"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func FuzzDecodeRice(f *testing.F) {
	f.Add(Rice{}.AppendBlock(nil, []uint32{0, 1, 2, 3, 100, 5}), 6)
	f.Add(Rice{}.AppendBlock(nil, []uint32{math.MaxUint32, 0, 7}), 3)
	f.Add([]byte{0x1F, 0x00, 0x00, 0x00, 0x00, 0x01}, 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(Rice{}, data, n) })
}

func TestRiceGoldenSize(t *testing.T) {
	want := map[string]int{
		"geometric-mean-12":   84,
		"geometric-mean-3000": 215,
		"ones-and-outliers":   470,
		"uniform-32bit":       522,
	}
	codectest.GoldenSizes(t, Rice{}, codectest.GoldenBlocks(blockSize), want)
}

func TestMeanK(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want uint
	}{
		{"empty", nil, 0},
		{"zeros", []uint32{0, 0, 0}, 0},
		{"mean-1", []uint32{1, 1}, 0},            // b = 0
		{"mean-3", []uint32{3, 3}, 1},            // b = 2
		{"mean-100", []uint32{100, 100, 100}, 6}, // b = 69
		{"all-max", []uint32{math.MaxUint32, math.MaxUint32}, 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := meanK(tt.v); got != tt.want {
				t.Errorf("meanK(%v) = %d, want %d", tt.v, got, tt.want)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	tests := []struct {
		name    string
		v       []uint32
		k       uint
		wantLen int
	}{
		// 32 zeros, a one and 32 raw bits: 65 bits, 9 bytes, plus the header.
		{"max-at-k0", []uint32{math.MaxUint32}, 0, 10},
		{"quotient-31-is-not-escaped", []uint32{31}, 0, 1 + 4},
		{"quotient-32-is-escaped", []uint32{32}, 0, 10},
		// At k = 1: 2 + 2 + 65 (escape) + 3 bits = 72 bits.
		{"outlier-among-small", []uint32{1, 0, 1 << 30, 2}, 1, 1 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := encode(nil, tt.v, tt.k)
			if len(enc) != tt.wantLen {
				t.Errorf("len(encode(%v, k=%d)) = %d, want %d", tt.v, tt.k, len(enc), tt.wantLen)
			}
			got := make([]uint32, len(tt.v))
			if err := (Rice{}).DecodeBlock(got, enc, len(tt.v)); err != nil {
				t.Fatalf("Decode(%v) error: %v", enc, err)
			}
			for i := range got {
				if got[i] != tt.v[i] {
					t.Fatalf("Decode(%v) = %v, want %v", enc, got, tt.v)
				}
			}
		})
	}
}

func TestDecodeCorrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"no-header", nil, 1},
		{"k-out-of-range", []byte{32, 0x01}, 1},
		{"quotient-over-escape", []byte{0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0}, 1},
		// Escape (32 zeros, a one) followed by x = 5, which fits a normal
		// codeword at k = 0.
		{"short-escaped-value", []byte{0, 0, 0, 0, 0, 0x01 | 5<<1, 0, 0, 0, 0}, 1},
		// k = 31 allows quotients 0 and 1 only.
		{"quotient-overflows-32-bits", []byte{31, 0x04, 0, 0, 0, 0}, 1},
		{"missing-terminator", []byte{0, 0x00}, 1},
		{"missing-remainder", []byte{8, 0x01}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			err := Rice{}.DecodeBlock(dst, tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%v) = %v, %v; want an error wrapping ErrCorrupt", tt.src, dst, err)
			}
		})
	}
}
