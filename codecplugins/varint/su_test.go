package varint

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

func FuzzDecodeSU(f *testing.F) {
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x10}, 1)
	f.Add([]byte{1, 2, 3}, 3)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(SU{}, data, n)
		codectest.FuzzLevels(SU{}, data, n)
	})
}

// TestSUCorruptLevels puts malformed values where the masked VByte kernel
// meets them (among at least 16 values and bytes), at every SIMD level: a
// fifth byte with overflowing bits and a sixth byte must be ErrCorrupt,
// and a fifth byte that just fits must decode.
func TestSUCorruptLevels(t *testing.T) {
	ones := bytes.Repeat([]byte{1}, 20)
	tests := []struct {
		name string
		val  []byte
		ok   bool
	}{
		{"max", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, true},
		{"overflow", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x10}, false},
		{"overflow high bit 6", []byte{0x80, 0x80, 0x80, 0x80, 0x40}, false},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, false},
	}
	for _, lv := range simd.Levels() {
		for _, tt := range tests {
			for _, at := range []int{0, 3, 9} {
				t.Run(fmt.Sprintf("%s/%s/at=%d", lv, tt.name, at), func(t *testing.T) {
					src := append(append(append([]byte(nil), ones[:at]...), tt.val...), ones...)
					dst := make([]uint32, at+1+len(ones))
					var err error
					simd.Run(lv, func() { err = (SU{}).DecodeBlock(dst, src, len(dst)) })
					if tt.ok {
						if err != nil || dst[at] != math.MaxUint32 || dst[at+1] != 1 {
							t.Fatalf("DecodeBlock = %v, value %#x, next %d", err, dst[at], dst[at+1])
						}
					} else if !errors.Is(err, codecplugins.ErrCorrupt) {
						t.Fatalf("DecodeBlock = %v, want ErrCorrupt", err)
					}
				})
			}
		}
	}
}
