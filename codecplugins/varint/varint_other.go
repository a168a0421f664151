//go:build !amd64 || purego

package varint

import "github.com/gpusearch/gpusearch/internal/simd"

// svbAsm decodes nothing: there is no assembly on this build.
func svbAsm([]uint32, []byte, []byte) bool { return false }

// svbBlockAsm decodes with the pure-Go path: there is no assembly on this
// build, where the level is always simd.Go and DecodeBlock, which calls
// it only above that level, never does.
func svbBlockAsm(dst *[128]uint32, src []byte, _ simd.Level) bool {
	return svbDecode(dst[:], src, 128) == nil
}

// svbBlockPrefixAsm decodes nothing: there is no assembly on this build.
func svbBlockPrefixAsm(*[128]uint32, []byte, uint32) bool { return false }

// suAsm decodes nothing: there is no assembly on this build.
func suAsm([]uint32, []byte) (n, used int) { return 0, 0 }

// g8iuAsm decodes nothing: there is no assembly on this build.
func g8iuAsm([]uint32, []byte) (n, used int) { return 0, 0 }

// g8cuAsm decodes nothing: there is no assembly on this build.
func g8cuAsm(_ []uint32, _ []byte, i, p, cl int, carry uint64) (int, int, int, uint64) {
	return i, p, cl, carry
}
