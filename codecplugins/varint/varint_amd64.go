//go:build amd64 && !purego

package varint

import "github.com/gpusearch/gpusearch/codecplugins/internal/simd"

//go:generate go run ./internal/gensimd -out varint_amd64.s -stubs varint_amd64_stubs.go

// svbHead decodes the block's full streamvbyte groups with SSSE3 (at the
// SSE and AVX2 levels; there is no 256-bit kernel): from group 0 on, until
// group full, or earlier where the data are truncated or shorter than 16
// bytes. ctrl holds the control bytes and data the data, up to the end of
// src. It returns the groups decoded and the data bytes they take, which
// the caller checks against len(data): 0 and 0 at the Go level. It
// requires len(dst) >= 4*full and len(ctrl) >= full.
func svbHead(dst []uint32, ctrl, data []byte, full int) (g, used int) {
	if full == 0 || simd.Current() < simd.SSE {
		return 0, 0
	}
	_ = dst[4*full-1]
	_ = ctrl[full-1]
	return svbSSE(&dst[0], &ctrl[0], data, full)
}
