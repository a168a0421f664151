//go:build amd64 && !purego

package varint

import "github.com/gpusearch/gpusearch/codecplugins/internal/simd"

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
