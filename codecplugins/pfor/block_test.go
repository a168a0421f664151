package pfor

import (
	"errors"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/internal/simd"
)

func TestBlockFormat(t *testing.T) {
	full := make([]uint32, blockLen)
	full[0], full[5] = 1, 3 // b=1: value 3 at position 5 is the one exception
	fullEnc := append([]byte{0x81, 1}, make([]byte, 16)...)
	fullEnc[2] = 0x01                           // lane 0 word 0: value 0
	fullEnc[2+4] = 0x02                         // lane 1 word 0: its second value, block position 5
	fullEnc = append(fullEnc, 0x05, 0, 0, 0x50) // simple16 selector 5: gap 5, high-1 = 0
	tests := []struct {
		name string
		v    []uint32
		b    int
		want []byte
	}{
		{"empty", nil, 3, nil},
		{"no exceptions", []uint32{1, 2, 3}, 2, []byte{2, 0x39}},
		// Slots 1,0,1 in one byte; exception at position 2 with high part 4:
		// simple16 of gap 2 and 4-1 = 3 is selector 1, fields 2 and 3.
		{"short", []uint32{1, 0, 9}, 1, []byte{0x81, 1, 0x05, 0x0e, 0, 0, 0x10}},
		// Gap 1 and 7-1 = 6: selector 5, fields of 4 and 3 bits.
		{"width 0", []uint32{0, 7}, 0, []byte{0x80, 1, 0x61, 0, 0, 0x50}},
		{"full", full, 1, fullEnc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendBlock(nil, tt.v, tt.b, vertical)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("appendBlock(%v, %d) = %x, want %x", tt.v, tt.b, got, tt.want)
			}
			if l := blockLenAt(tt.v, tt.b); len(tt.v) > 0 && l != len(got) {
				t.Errorf("blockLenAt(%v, %d) = %d, want %d", tt.v, tt.b, l, len(got))
			}
			dec := make([]uint32, len(tt.v))
			if err := decodeBlock("test", dec, got, len(tt.v), vertical); err != nil || !slices.Equal(dec, tt.v) {
				t.Errorf("decodeBlock(%x) = %v, %v; want %v", got, dec, err, tt.v)
			}
		})
	}
}

func TestBlockCorrupt(t *testing.T) {
	slots128 := func(b int) []byte { return make([]byte, 16*b) }
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"negative n", []byte{0, 0}, -1},
		{"n above block", []byte{0, 0}, 129},
		{"no header", nil, 3},
		{"flag without count", []byte{0x81}, 3},
		{"flag with zero count", []byte{0x81, 0, 0xff, 0, 0, 0, 0}, 3},
		{"width 33", append([]byte{33}, make([]byte, 200)...), 3},
		{"width 33 with exceptions", append([]byte{0x80 | 33, 1}, make([]byte, 200)...), 3},
		{"too many exceptions", []byte{0x80, 4, 0, 0, 0, 0}, 3},
		{"truncated slots", append([]byte{5}, slots128(5)[1:]...), 128},
		{"truncated exceptions", []byte{0x81, 2, 0x05, 0x0e, 0, 0, 0x10}, 3},
		{"exceptions at width 32", append(append([]byte{0x80 | 32, 1}, make([]byte, 4)...), 0, 0, 0, 0), 1},
		{"position past n", []byte{0x81, 1, 0x05, 0x03, 0, 0, 0x10}, 3},                            // gap 3
		{"overflow", append(append([]byte{0x80 | 30, 1}, slots128(30)...), 0x40, 0, 0, 0x50), 128}, // high 5 at b=30
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireCorrupt(t, "decodeBlock", tt.src, tt.n, func(dst []uint32) error { return decodeBlock("test", dst, tt.src, tt.n, vertical) })
		})
	}
}

// requireCorrupt runs decode, the decoder called name, on src, a corrupt
// block of n values, into a poisoned dst of 129 values, and requires an
// error wrapping ErrCorrupt and nothing written past the n values.
func requireCorrupt(t *testing.T, name string, src []byte, n int, decode func(dst []uint32) error) {
	t.Helper()
	dst := make([]uint32, 129)
	for i := range dst {
		dst[i] = 0xDEADBEEF
	}
	if err := decode(dst); !errors.Is(err, codecplugins.ErrCorrupt) {
		t.Fatalf("%s at %s: %x as %d values = %v, want ErrCorrupt", name, simd.Current(), src, n, err)
	}
	for i, x := range dst[max(n, 0):] {
		if x != 0xDEADBEEF {
			t.Fatalf("%s at %s: %x as %d values wrote dst[%d] = %d", name, simd.Current(), src, n, max(n, 0)+i, x)
		}
	}
}
