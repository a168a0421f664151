//go:build amd64 && !purego

package bitpack

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/codecplugins/internal/simd"
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

// decodeVBlockAsm runs DecodeVerticalBlock's assembly decoder at level
// lv, SSE or AVX2, which checks src itself, and returns its answer. It is
// small enough to inline, so that a block costs one Go call and one
// assembly call.
func decodeVBlockAsm(dst *[BlockLen]uint32, src []byte, lv simd.Level) bool {
	return decodeVBlock(dst, unsafe.SliceData(src), len(src), lv == simd.AVX2)
}

// decodeVBlockPrefixAsm is decodeVBlockAsm for DecodeVerticalBlockPrefix.
func decodeVBlockPrefixAsm(dst *[BlockLen]uint32, src []byte, base uint32, lv simd.Level) bool {
	return decodeVBlockPrefix(dst, unsafe.SliceData(src), len(src), base, lv == simd.AVX2)
}
