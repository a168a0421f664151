//go:build amd64 && !purego

package varint

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/internal/simd"
)

//go:generate go run ./internal/gensimd -out varint_amd64.s -stubs varint_amd64_stubs.go

// svbAsm decodes the block's full streamvbyte groups with SSSE3, or the
// same kernel in AVX encoding at the AVX2 level, and reports whether it
// did: it leaves blocks of fewer than 6 full groups, and every block at
// the Go level, to the caller. ctrl holds the full groups' control bytes
// and data exactly their data bytes, a size the caller has computed from
// ctrl. It requires len(dst) >= 4*len(ctrl).
func svbAsm(dst []uint32, ctrl, data []byte) bool {
	full := len(ctrl)
	if full < 6 || simd.Current() < simd.SSE {
		return false
	}
	_ = dst[4*full-1]
	if simd.Current() >= simd.AVX2 {
		svbAVX(&dst[0], &ctrl[0], &data[0], full)
	} else {
		svbSSE(&dst[0], &ctrl[0], &data[0], full)
	}
	return true
}

// svbBlockAsm decodes a whole 128-value streamvbyte block from src in one
// assembly call, with AVX at level lv = simd.AVX2 and SSSE3 at any other,
// which checks src's length itself, and reports whether it did: false,
// dst untouched, where src is shorter than the block. Its callers call
// it only at a level above simd.Go. It inlines.
func svbBlockAsm(dst *[128]uint32, src []byte, lv simd.Level) bool {
	return svbBlock(dst, unsafe.SliceData(src), len(src), uint8(lv))
}

// svbBlockPrefixAsm is svbBlockAsm for running sums from base, at the
// level the decoders use now, false at the Go level; it also reports
// false where a value has four bytes or base is above
// 2^32-1 - 128*(2^24-1), so that no sum it writes can have wrapped. It is
// small enough to inline.
func svbBlockPrefixAsm(dst *[128]uint32, src []byte, base uint32) bool {
	lv := simd.Current()
	return lv != simd.Go && svbBlockPrefix(dst, unsafe.SliceData(src), len(src), base, uint8(lv))
}

// suAsm decodes varint-SU values into dst with the masked VByte kernel at
// the SSE and AVX2 levels, while 16 values are left to decode and 16 bytes
// left in src, and returns the values decoded and the bytes they took: 0
// and 0 at the Go level. It stops before a malformed value, for the Go
// loop to report.
func suAsm(dst []uint32, src []byte) (n, used int) {
	if len(dst) < 16 || len(src) < 16 || simd.Current() < simd.SSE {
		return 0, 0
	}
	return suSSE(&dst[0], src, len(dst))
}

// g8iuAsm decodes varint-G8IU groups into dst with SSSE3 at the SSE and
// AVX2 levels, while 8 values are left to decode and a whole group is left
// in src, and returns the values decoded and the bytes they took: 0 and 0
// at the Go level. It stops before a group the Go loop rejects.
func g8iuAsm(dst []uint32, src []byte) (n, used int) {
	if len(dst) < 8 || len(src) < 9 || simd.Current() < simd.SSE {
		return 0, 0
	}
	return g8iuSSE(&dst[0], src, len(dst))
}

// g8cuAsm decodes varint-G8CU units into dst with SSSE3 at the SSE and
// AVX2 levels, from the state the Go loop is in before the unit at p: i
// values decoded, cl bytes (carry) of a value carried over. It returns the
// state after the units it decoded: the same at the Go level, or where it
// cannot start (p < 4, cl > 3), or before a unit the Go loop rejects.
func g8cuAsm(dst []uint32, src []byte, i, p, cl int, carry uint64) (int, int, int, uint64) {
	if p < 4 || cl > 3 || len(dst)-i < 8 || len(src)-p < 12 || simd.Current() < simd.SSE {
		return i, p, cl, carry
	}
	i, p, cl = g8cuSSE(&dst[0], src, i, len(dst), p, cl)
	// The carried bytes are the last cl data bytes of the unit before p.
	carry = 0
	for j := range cl {
		carry |= uint64(src[p-cl+j]) << (8 * j)
	}
	return i, p, cl, carry
}
