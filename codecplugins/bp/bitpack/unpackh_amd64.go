//go:build amd64 && !purego

package bitpack

import "github.com/gpusearch/gpusearch/internal/simd"

// maxSIMDHorizontal is the widest width the horizontal SIMD unpackers
// take: a value starting at bit 7 of a byte must end inside the 32-bit
// lane that starts there.
const maxSIMDHorizontal = 25

// hTable is what the horizontal unpackers of one width read (offsets
// fixed by unpackh_amd64.s): for the four values from 8k and the four
// from 8k+4, the PSHUFB masks that give lane l the bytes its value starts
// in, the SSE multipliers 2^(7-shift), the value mask, and the AVX2
// per-lane shift counts.
type hTable struct {
	shuf  [2][16]byte
	mul   [2][4]uint32
	mask  [8]uint32
	shift [8]uint32
}

// hTables holds the table of each width 1..maxSIMDHorizontal.
var hTables = func() (ts [maxSIMDHorizontal + 1]hTable) {
	for b := 1; b <= maxSIMDHorizontal; b++ {
		t := &ts[b]
		for half := range 2 {
			base := 4 * b * half / 8 * 8 // the bit the half's load starts at
			for l := range 4 {
				bit := (4*half+l)*b - base
				for j := range 4 {
					t.shuf[half][4*l+j] = byte(bit/8 + j)
				}
				t.mul[half][l] = 1 << (7 - bit%8)
				t.shift[4*half+l] = uint32(bit % 8)
			}
		}
		for i := range t.mask {
			t.mask[i] = 1<<b - 1
		}
	}
	return ts
}()

// unpackHAsm decodes a horizontal block of width b with the assembly
// unpacker of the current SIMD level and reports whether there was one
// for b. It requires len(src) >= HorizontalLen(BlockLen, b) and copies a
// src without the 16 bytes past the block the unpackers read.
func unpackHAsm(dst *[BlockLen]uint32, src []byte, b int) bool {
	lv := simd.Current()
	if b < 1 || b > maxSIMDHorizontal || lv == simd.Go {
		return false
	}
	n := HorizontalLen(BlockLen, b)
	_ = src[n-1]
	if len(src) < n+16 {
		var buf [16*maxSIMDHorizontal + 16]byte
		copy(buf[:], src[:n])
		src = buf[:]
	}
	if lv == simd.AVX2 {
		unpackHAVX2(dst, &src[0], b, &hTables[b])
	} else {
		unpackHSSE(dst, &src[0], b, &hTables[b])
	}
	return true
}

//go:noescape
func unpackHSSE(dst *[BlockLen]uint32, src *byte, b int, t *hTable)

//go:noescape
func unpackHAVX2(dst *[BlockLen]uint32, src *byte, b int, t *hTable)
