//go:build amd64 && !purego

package pfor

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/codecplugins/internal/simd"
)

//go:generate go run ./internal/gensimd -out patch_amd64.s -stubs patch_amd64_stubs.go

// scatter writes each of f's exceptions' high parts plus one into patch
// at its position and returns their sum, in assembly at any SIMD level
// but Go; it reports false where the positions do not increase strictly
// below blockLen.
func scatter(patch *[blockLen]uint32, f *fastBlock) (uint64, bool) {
	if simd.Current() != simd.Go && f.padded() {
		return scatterHighs(patch, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, blockLen)
	}
	return scatterGo(patch, f)
}

// patchBlock adds f's exceptions to dst, f's slots decoded, in assembly
// at any SIMD level but Go; it reports false where the positions do not
// increase strictly below blockLen.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) bool {
	if simd.Current() != simd.Go && f.padded() {
		return patchValues(dst, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, f.b, blockLen)
	}
	return patchValuesGo(dst[:], f)
}
