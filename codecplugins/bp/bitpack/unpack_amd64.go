//go:build amd64 && !purego

package bitpack

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/internal/simd"
)

//go:generate go run ../internal/gensimd -out unpack_amd64.s -stubs unpack_amd64_stubs.go

// unpackVAsm decodes a vertical block of width b with the assembly unpacker
// of the current SIMD level and reports whether there was one. It requires
// 1 <= b <= 32 and len(src) >= VerticalLen(b), and checks the latter
// itself: the assembly trusts its caller.
func unpackVAsm(dst *[BlockLen]uint32, src []byte, b int) bool {
	_ = src[VerticalLen(b)-1]
	switch simd.Current() {
	case simd.AVX2:
		unpackVAVX2(dst, &src[0], b)
	case simd.SSE:
		unpackVSSE(dst, &src[0], b)
	default:
		return false
	}
	return true
}

// unpackVPrefixAsm is unpackVAsm for UnpackVerticalPrefix.
func unpackVPrefixAsm(dst *[BlockLen]uint32, src []byte, b int, base uint32) bool {
	_ = src[VerticalLen(b)-1]
	switch simd.Current() {
	case simd.AVX2:
		unpackVPrefixAVX2(dst, &src[0], b, base)
	case simd.SSE:
		unpackVPrefixSSE(dst, &src[0], b, base)
	default:
		return false
	}
	return true
}

// unpackVPatchedPrefixAsm is unpackVAsm for UnpackVerticalPatchedPrefix.
func unpackVPatchedPrefixAsm(dst *[BlockLen]uint32, src []byte, b int, patch *[BlockLen]uint32, base uint32) bool {
	lv := simd.Current()
	if lv == simd.Go {
		return false
	}
	var s *byte
	if b > 0 {
		_ = src[VerticalLen(b)-1]
		s = &src[0]
	}
	unpackVPatchedPrefix(dst, s, b, patch, base, uint8(lv))
	return true
}

// prefixAsm is PrefixSum with the assembly of the current SIMD level,
// and reports whether there was one.
func prefixAsm(dst *[BlockLen]uint32, base uint32) bool {
	switch simd.Current() {
	case simd.AVX2:
		prefixAVX2(dst, base)
	case simd.SSE:
		prefixSSE(dst, base)
	default:
		return false
	}
	return true
}

// UnpackVerticalSIMD decodes a vertical block of width b from src into
// dst with the assembly of level lv, AVX2 at simd.AVX2 and SSE at any
// other, in one assembly call that checks nothing: it requires
// 0 <= b <= 32 and len(src) >= VerticalLen(b), which it trusts, and is
// for callers at a level above simd.Go that have checked both. It
// inlines, so that such a caller, checking in Go, keeps nothing live
// across the call; the bp128 codec's DecodeBlock decodes a full block so.
func UnpackVerticalSIMD(dst *[BlockLen]uint32, src []byte, b int, lv simd.Level) {
	unpackVBlock(dst, unsafe.SliceData(src), b, uint8(lv))
}

// UnpackVerticalPatchedPrefixSIMD is UnpackVerticalPatchedPrefix with the
// assembly of level lv, in one assembly call that checks nothing, as
// UnpackVerticalSIMD is UnpackVertical's: it requires 0 <= b <= 32 and
// len(src) >= VerticalLen(b), and a caller at a level above simd.Go that
// has checked both.
func UnpackVerticalPatchedPrefixSIMD(dst *[BlockLen]uint32, src []byte, b int, patch *[BlockLen]uint32, base uint32, lv simd.Level) {
	unpackVPatchedPrefix(dst, unsafe.SliceData(src), b, patch, base, uint8(lv))
}

// DecodeVerticalBlockPrefixSIMD decodes a whole bp128 block, a width
// byte b followed by VerticalLen(b) bytes of the vertical layout, from
// src into running sums from base, as UnpackVerticalPrefix writes them,
// in one assembly call, which checks the block, picks the width's kernel
// and decodes, and reports whether it did: false, with dst untouched,
// where src is empty, b is above 32, src is shorter than the block or a
// sum could pass 2^32-1 (base+128*(2^b-1) above it), and at the Go level,
// where there is no assembly. Bytes after the block are ignored. It
// inlines, so that a block costs its caller one assembly call and no Go
// call; the caller keeps a pure-Go path for the blocks it refuses.
func DecodeVerticalBlockPrefixSIMD(dst *[BlockLen]uint32, src []byte, base uint32) bool {
	lv := simd.Current()
	return lv != simd.Go && decodeVBlockPrefix(dst, unsafe.SliceData(src), len(src), base, uint8(lv))
}
