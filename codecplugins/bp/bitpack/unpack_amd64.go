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

// decodeVBlockAsm runs DecodeVerticalBlock's assembly decoder of the
// current SIMD level, which checks src itself, and reports its answer, ok,
// and whether there was one, done.
func decodeVBlockAsm(dst *[BlockLen]uint32, src []byte) (ok, done bool) {
	switch simd.Current() {
	case simd.AVX2:
		return decodeVBlockAVX2(dst, unsafe.SliceData(src), len(src)), true
	case simd.SSE:
		return decodeVBlockSSE(dst, unsafe.SliceData(src), len(src)), true
	}
	return false, false
}

// decodeVBlockPrefixAsm is decodeVBlockAsm for DecodeVerticalBlockPrefix.
func decodeVBlockPrefixAsm(dst *[BlockLen]uint32, src []byte, base uint32) (ok, done bool) {
	switch simd.Current() {
	case simd.AVX2:
		return decodeVBlockPrefixAVX2(dst, unsafe.SliceData(src), len(src), base), true
	case simd.SSE:
		return decodeVBlockPrefixSSE(dst, unsafe.SliceData(src), len(src), base), true
	}
	return false, false
}
