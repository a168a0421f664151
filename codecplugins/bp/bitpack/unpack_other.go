//go:build !amd64 || purego

package bitpack

import "github.com/gpusearch/gpusearch/internal/simd"

// unpackVAsm reports that there is no assembly unpacker on this build.
func unpackVAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// unpackVPrefixAsm reports that there is no assembly unpacker on this build.
func unpackVPrefixAsm(*[BlockLen]uint32, []byte, int, uint32) bool { return false }

// unpackVPatchedPrefixAsm reports that there is no assembly unpacker on
// this build.
func unpackVPatchedPrefixAsm(*[BlockLen]uint32, []byte, int, *[BlockLen]uint32, uint32) bool {
	return false
}

// prefixAsm reports that there is no assembly running sum on this build.
func prefixAsm(*[BlockLen]uint32, uint32) bool { return false }

// unpackHAsm reports that there is no assembly unpacker on this build.
func unpackHAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// UnpackVerticalSIMD decodes with the pure-Go unpacker: this build has no
// assembly, and simd.Current() is always simd.Go, so its callers, which
// call it only at a level above simd.Go, never do. On amd64 it decodes
// in one assembly call.
func UnpackVerticalSIMD(dst *[BlockLen]uint32, src []byte, b int, _ simd.Level) {
	unpackV[b](dst, src)
}

// UnpackVerticalPatchedPrefixSIMD decodes with the pure-Go unpacker: this
// build has no assembly, and its callers, which call it only at a level
// above simd.Go, never do.
func UnpackVerticalPatchedPrefixSIMD(dst *[BlockLen]uint32, src []byte, b int, patch *[BlockLen]uint32, base uint32, _ simd.Level) {
	UnpackVerticalPatchedPrefix(dst, src, b, patch, base)
}

// DecodeVerticalBlockPrefixSIMD reports false: this build has no assembly.
// On amd64 it decodes a whole bp128 block into running sums in one
// assembly call.
func DecodeVerticalBlockPrefixSIMD(*[BlockLen]uint32, []byte, uint32) bool { return false }
